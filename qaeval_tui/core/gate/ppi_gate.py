"""`[gate] judge_metrics = "ppi"`: gate each judge-scored metric on its prediction-powered estimate.

What is compared: for every judge-scored metric with a tolerance, the PPI estimate of this run (the
judge mean over the run's cases plus the mean human - judge correction on its labelled cases, see
`statistics/run_ppi.py`) against the PPI estimate the baseline recorded (`ppi.metrics.<name>.value`,
written by `qaeval baseline` when the store held labels on the baseline run's cases). Like with
like: against the baseline's judge mean, the judge's own bias would read as a drop or a gain.
The two estimates are compared unpaired, each over its own run's cases, with the same tolerance
rule as the judge mean; a judge that went quiet on shared cases still fails (delta.py).

Refused with exit 2 (UsageError), never a pass and never a Tier 2 finding (which would read as a
drop): a baseline without a PPI value for a gated judge metric (found before the run), and a run
with no labelled case for one (found after it: labels belong to the run's own outputs). There is no
number to gate, so there is no verdict.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.gate.baseline import Baseline
from qaeval_tui.core.gate.delta import MetricDelta
from qaeval_tui.core.running.metrics import METRIC_SPECS
from qaeval_tui.core.statistics.ppi import PPIEstimate

_EPSILON = 1e-9
FIX = 'label some of its cases (`qaeval review`, `qaeval labels import`) or set `[gate] judge_metrics = "judge"`'


def gated_judge_metrics(tolerances: Mapping[str, float]) -> list[str]:
    """The judge-scored metrics the gate gates (those with a tolerance)."""
    return [name for name, spec in METRIC_SPECS.items() if spec.judge_axis is not None and name in tolerances]


def baseline_ppi(baseline: Baseline, gated: Sequence[str]) -> dict[str, float]:
    """The baseline's PPI value of each gated judge metric; UsageError naming the first one it lacks."""
    values = baseline.ppi or {}
    for name in gated:
        if values.get(name) is None:
            raise UsageError(
                f"{baseline.path}: ppi.metrics.{name}.value: no PPI estimate in the baseline, so "
                '`judge_metrics = "ppi"` has nothing to compare with; write the baseline with `qaeval baseline` '
                "where the store holds labels on its cases"
            )
    return {name: float(value) for name in gated if (value := values.get(name)) is not None}


def current_ppi(estimates: Mapping[str, PPIEstimate], gated: Sequence[str]) -> dict[str, PPIEstimate]:
    """This run's estimates of the gated metrics; UsageError when one has no labelled case."""
    for name in gated:
        estimate = estimates[name]
        if estimate.value is None:
            raise UsageError(
                f'[gate] judge_metrics = "ppi": {name} has no PPI estimate for this run ({estimate.reason}); {FIX}'
            )
    return {name: estimates[name] for name in gated}


@dataclass(frozen=True)
class PPIGate:
    """The estimates a `judge_metrics = "ppi"` gate compares, per gated judge metric."""

    current: Mapping[str, PPIEstimate]
    baseline: Mapping[str, float]

    def apply(self, delta: MetricDelta) -> MetricDelta:
        """`delta` with its values, delta, status and reason from the PPI estimates (other metrics unchanged)."""
        now, before = self.current.get(delta.name), self.baseline.get(delta.name)
        if now is None or now.value is None or before is None or delta.tolerance is None:
            return delta
        change = now.value - before
        shown = f"PPI {before:.3f} -> {now.value:.3f}, {now.n_labelled} of {now.n_cases} case(s) labelled"
        status: Literal["pass", "fail"] = "pass"
        reason: str | None = None
        if change < -delta.tolerance - _EPSILON:  # every judge-scored metric is higher-is-better
            status, reason = "fail", f"dropped {change:+.3f} ({shown}, tolerance {delta.tolerance:.3f})"
        if delta.lost_cases:  # the judge mean's own failure stands: values lost on shared cases
            status, reason = "fail", f"{reason or shown}; judge mean: {delta.reason}"
        interval = (
            "no interval for this run's estimate"
            if now.ci is None
            else f"this run's 95% CI [{now.ci[0]:.3f}, {now.ci[1]:.3f}]"
        )
        return replace(
            delta,
            baseline=before,
            current=now.value,
            delta=change,
            basis="ppi",
            status=status,
            reason=reason,
            ci=None,
            ci_reason=f"PPI estimates compared unpaired; {interval}",
            n_paired=0,
            n_current=now.n_cases,
            test=None,  # the paired sign-flip test and MDE describe the judge mean, not this estimate
        )

    def applied(self, deltas: Sequence[MetricDelta]) -> tuple[MetricDelta, ...]:
        return tuple(self.apply(delta) for delta in deltas)
