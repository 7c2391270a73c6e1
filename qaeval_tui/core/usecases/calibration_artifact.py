"""Calibrate the judge and keep the result as the artifact the gate reads (`qaeval calibrate --out`).

The same inputs as `calibration_report` (labels from files, the store or the labels folder;
verdicts beside them or from the store; adjudications from the store when there is one), and
beside the report the artifact bound to the judge config hash, the rubric version and the content
hashes of the labels, adjudications and verdicts read.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from qaeval_tui.core.config import Config
from qaeval_tui.core.gate.calibration_file import CalibrationArtifact, artifact_from
from qaeval_tui.core.statistics.calibration import CalibrationReport
from qaeval_tui.core.statistics.sources import calibration_for
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.usecases.statistics import Say, calibration_inputs, calibration_report, quiet


def calibration_with_artifact(
    config: Config,
    store: StoreBackend | None,
    labels: Sequence[Path] | None,
    verdicts: Sequence[Path] | None,
    *,
    judge_config_hash: str | None = None,
    include_post_reveal: bool = False,
    say: Say = quiet,
) -> tuple[CalibrationReport, CalibrationArtifact]:
    """Judge versus human per axis for one judge config, and the artifact of that calibration."""
    label_input, table = calibration_inputs(
        config, store, labels, verdicts, judge_config_hash=judge_config_hash,
        include_post_reveal=include_post_reveal, say=say,
    )  # fmt: skip
    report = calibration_for(label_input, table, config, store)
    adjudicated = store.adjudications() if store is not None else {}
    return report, artifact_from(report, label_input.selection.labels, adjudicated, table)


def calibrate(
    config: Config,
    store: StoreBackend | None,
    labels: Sequence[Path] | None,
    verdicts: Sequence[Path] | None,
    *,
    with_artifact: bool,
    judge_config_hash: str | None = None,
    include_post_reveal: bool = False,
    say: Say = quiet,
) -> tuple[CalibrationReport, CalibrationArtifact | None]:
    """`qaeval calibrate`: the report, and its artifact when one is to be written or checked (hashing
    every label read is work a plain report does not need)."""
    if with_artifact:
        return calibration_with_artifact(
            config, store, labels, verdicts, judge_config_hash=judge_config_hash,
            include_post_reveal=include_post_reveal, say=say,
        )  # fmt: skip
    report = calibration_report(
        config, store, labels, verdicts, judge_config_hash=judge_config_hash,
        include_post_reveal=include_post_reveal, say=say,
    )  # fmt: skip
    return report, None
