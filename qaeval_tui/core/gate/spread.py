"""The run-to-run spread a sampled run shows (`[run] samples` = k > 1), and tolerances inside it.

A system whose answers vary (an LLM at temperature > 0) moves its metrics between two runs in which
nothing changed. With k samples of every case the gate sees that spread: per metric, the pooled
within-case variance s_w^2 (the mean over cases with two or more sample values of their sample
variance). Each case's value is the mean of its k samples, so a metric's mean over n cases moves by
sd s_w / sqrt(n k) from run to run, and the difference of two such runs by sqrt(2) times that. The
band is 1.96 x sqrt(2 s_w^2 / (n k)): 95% of the changes two unchanged runs of k samples show. A
tolerance inside the band (smaller) is warned about in `tolerance` mode: an unchanged system would
cross it by chance. Assumes the baseline was run with as many samples and that cases vary
independently. (In `statistical` mode the paired test on the per-case means already weighs this
noise: the case is its unit.)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from qaeval_tui.core.gate import power
from qaeval_tui.core.running.result import CaseResult

Z95 = 1.959963984540054


@dataclass(frozen=True)
class MetricSpread:
    """One metric's run-to-run spread in a sampled run."""

    name: str
    n_cases: int  # cases with two or more sample values
    sd_within: float  # pooled within-case sd of one sample's value
    band: float  # 95% of the change of the metric's mean between two unchanged runs of k samples
    tolerance: float | None
    warning: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "n_cases": self.n_cases,
            "sd_within": self.sd_within,
            "band": self.band,
            "tolerance": self.tolerance,
            "warning": self.warning,
        }


def sample_spread(
    cases: Sequence[CaseResult], samples: int, tolerances: Mapping[str, float], warn: bool
) -> tuple[MetricSpread, ...]:
    """Per metric with a value in two or more samples of some case: its spread (`warn`: tolerance mode)."""
    if samples < 2:
        return ()
    names = list(dict.fromkeys(name for case in cases for sample in case.samples for name in sample.values))
    out = []
    for name in names:
        variances = []
        for case in cases:
            seen = [value for sample in case.samples if (value := sample.values.get(name)) is not None]
            if len(seen) >= 2:
                mean = sum(seen) / len(seen)
                variances.append(sum((value - mean) ** 2 for value in seen) / (len(seen) - 1))
        if not variances:
            continue
        within = sum(variances) / len(variances)
        band = Z95 * math.sqrt(2.0 * within / (len(variances) * samples))
        tolerance = tolerances.get(name)
        warning = None
        if warn and tolerance is not None and tolerance < band:
            warning = (
                f"the {power.short(tolerance)} tolerance of {name} is inside its run-to-run spread: two runs of "
                f"{samples} samples with no change differ by up to {power.short(band)} (95%); a wider tolerance, "
                'more samples, or mode = "statistical"'
            )
        out.append(MetricSpread(name, len(variances), math.sqrt(within), band, tolerance, warning))
    return tuple(out)


def spread_line(spread: Sequence[MetricSpread], samples: int) -> str | None:
    """The spread in one line (None for an unsampled run)."""
    if samples < 2:
        return None
    if not spread:
        return f"run-to-run spread ({samples} samples a case): no metric varied in any case"
    shown = ", ".join(f"{row.name} ±{row.band:.3f}" for row in spread if row.band > 0) or "none varied"
    return f"run-to-run spread ({samples} samples a case; 95% band of the mean between two unchanged runs): {shown}"
