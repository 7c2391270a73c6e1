"""Which judge axes the gate may trust: the stored calibration of this judge config, if any.

A judge-scored metric is only evidence when that axis's calibration against humans is TRUSTED
(DESIGN §6). No labels paired with this judge's verdicts means no calibration exists, and
nothing is marked; a calibration that exists but is RETUNE or INSUFFICIENT marks its axis.
"""

from __future__ import annotations

from qaeval_tui.core.config import Config
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.statistics.sources import calibration_from_store
from qaeval_tui.core.store.sqlite import Store


def stored_axis_trust(store: Store, config: Config, judge_config_hash: str) -> dict[str, str] | None:
    """axis -> TRUSTED / RETUNE / INSUFFICIENT for this judge config, or None when uncalibrated."""
    if store.count("labels") == 0:
        return None
    try:
        report = calibration_from_store(store, config, judge_config_hash=judge_config_hash)
    except UsageError:  # no verdicts of this judge in the store
        return None
    if report.judge_config_hash != judge_config_hash or report.rubric_version != config.rubric.version:
        return None
    if all(axis.n == 0 for axis in report.axes.values()):
        return None
    return {name: str(axis.verdict) for name, axis in report.axes.items()}
