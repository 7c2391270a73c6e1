"""`[gate] judge_metrics = "ppi"`: gate each judge-scored metric on its prediction-powered estimate.

What is compared: for every judge-scored metric with a tolerance, the PPI estimate of this run (the
judge mean over the run's cases plus the mean human - judge correction on its labelled cases, see
`statistics/run_ppi.py`) against the PPI estimate the baseline recorded (`ppi.metrics.<name>`,
written by `qaeval baseline` when the store held labels on the baseline run's cases). Like with
like: against the baseline's judge mean, the judge's own bias would read as a drop or a gain.
The two estimates are compared unpaired, each over its own run's cases, with the same tolerance
rule as the judge mean; a judge that went quiet on shared cases still fails (delta.py). The row
names both estimates' intervals and, when they are too wide for the tolerance to mean much, says so.

Refused with exit 2 (UsageError), never a pass and never a Tier 2 finding (which would read as a
drop): a baseline without a PPI value for a gated judge metric, or whose value has no interval
(`n_labelled` below `MIN_LABELLED_FOR_CI`, `ci` null, or either not recorded: an older file),
found before the run; a run with no labelled case for one, or too few for an interval, found after
it (labels belong to the run's own outputs). One labelled case can move an estimate anywhere: an
estimate of unknown precision is no number to gate, so there is no verdict. A judge metric newer
than the baseline (no trace of it in the file, so no PPI value either) is not refused: like without
PPI it is "n/a: not in the baseline", neither a pass nor a failure.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from qaeval_tui.core.errors import Problem, UsageError
from qaeval_tui.core.gate import power
from qaeval_tui.core.gate.baseline import Baseline
from qaeval_tui.core.gate.delta import MetricDelta
from qaeval_tui.core.gate.ppi_values import RecordedPPI
from qaeval_tui.core.running.metrics import METRIC_SPECS
from qaeval_tui.core.statistics.ppi import MIN_LABELLED_FOR_CI, PPIEstimate

_EPSILON = 1e-9
FIX = 'label some of its cases (`qaeval review`, `qaeval labels import`) or set `[gate] judge_metrics = "judge"`'
FIX_MORE = (
    f"label more of its cases (an interval needs at least {MIN_LABELLED_FOR_CI} with a human consensus: "
    '`qaeval review`, `qaeval labels import`) or set `[gate] judge_metrics = "judge"`'
)
REWRITE = "write the baseline again with `qaeval baseline` where the store holds labels on its cases"


def gated_judge_metrics(tolerances: Mapping[str, float], not_in_baseline: Collection[str] = ()) -> list[str]:
    """The judge-scored metrics the gate compares PPI estimates of: those with a tolerance, save the ones
    newer than the baseline (shown "n/a: not in the baseline", as without PPI)."""
    return [
        name
        for name, spec in METRIC_SPECS.items()
        if spec.judge_axis is not None and name in tolerances and name not in not_in_baseline
    ]


def recorded_problem(name: str, recorded: RecordedPPI) -> str | None:
    """Why the baseline's recorded estimate of `name` cannot be gated against, as `file:line: field: message`."""
    field, message = "", ""
    if recorded.value is None:
        field, message = "value", f"no PPI estimate in the baseline ({recorded.reason or 'null'}); {REWRITE}"
    elif recorded.n_labelled is None:
        field = "n_labelled"
        message = (
            "not recorded, so the precision of the baseline's PPI estimate is unknown and "
            f'`judge_metrics = "ppi"` will not gate on it; {REWRITE} (it records n_labelled and ci)'
        )
    elif recorded.n_labelled < MIN_LABELLED_FOR_CI:
        field = "n_labelled"
        message = (
            f"{recorded.n_labelled} labelled case(s): too few for an interval (at least {MIN_LABELLED_FOR_CI}), "
            f"so the baseline's PPI estimate is too imprecise to gate on; label more of the baseline run's cases "
            f"and {REWRITE}"
        )
    elif recorded.ci is None:
        field = "ci"
        message = (
            f"no interval recorded ({recorded.reason or 'null'}), so the precision of the baseline's PPI "
            f"estimate is unknown and it is not gated on; {REWRITE}"
        )
    if not field:
        return None
    return str(Problem(recorded.path, recorded.line, f"ppi.metrics.{name}.{field}", message))


def baseline_ppi(baseline: Baseline, gated: Sequence[str]) -> dict[str, RecordedPPI]:
    """The baseline's PPI estimate of each gated judge metric; UsageError naming the first one it lacks
    or whose precision is unknown (no interval recorded)."""
    values = baseline.ppi or {}
    for name in gated:
        recorded = values.get(name)
        if recorded is None:
            raise UsageError(
                f"{baseline.path}: ppi.metrics.{name}.value: no PPI estimate in the baseline, so "
                '`judge_metrics = "ppi"` has nothing to compare with; write the baseline with `qaeval baseline` '
                "where the store holds labels on its cases"
            )
        if (problem := recorded_problem(name, recorded)) is not None:
            raise UsageError(problem)
    return {name: values[name] for name in gated}


def current_problem(name: str, estimate: PPIEstimate) -> str | None:
    """Why this run's estimate of `name` cannot be gated: none, or no interval (too few labels)."""
    where = f'[gate] judge_metrics = "ppi": {name}'
    if estimate.value is None:
        return f"{where} has no PPI estimate for this run ({estimate.reason}); {FIX}"
    if estimate.ci is None or estimate.n_labelled < MIN_LABELLED_FOR_CI:
        why = (
            estimate.reason or f"{estimate.n_labelled} labelled cases; an interval needs at least {MIN_LABELLED_FOR_CI}"
        )
        return (
            f"{where}: this run's PPI estimate {estimate.value:.3f} has no interval ({why}), so its precision is "
            f"unknown and it is not gated on; {FIX_MORE}"
        )
    return None


def current_ppi(estimates: Mapping[str, PPIEstimate], gated: Sequence[str]) -> dict[str, PPIEstimate]:
    """This run's estimates of the gated metrics; UsageError when one has no labelled case or no interval."""
    for name in gated:
        if (problem := current_problem(name, estimates[name])) is not None:
            raise UsageError(problem)
    return {name: estimates[name] for name in gated}


def _half_width(ci: tuple[float, float]) -> float:
    return (ci[1] - ci[0]) / 2.0


@dataclass(frozen=True)
class PPIGate:
    """The estimates a `judge_metrics = "ppi"` gate compares, per gated judge metric.

    Each must have an interval: one without is refused (UsageError) here too, never compared."""

    current: Mapping[str, PPIEstimate]
    baseline: Mapping[str, RecordedPPI]

    def __post_init__(self) -> None:
        for name, estimate in self.current.items():
            if (problem := current_problem(name, estimate)) is not None:
                raise UsageError(problem)
        for name, recorded in self.baseline.items():
            if (problem := recorded_problem(name, recorded)) is not None:
                raise UsageError(problem)

    def apply(self, delta: MetricDelta) -> MetricDelta:
        """`delta` with its values, delta, status and reason from the PPI estimates (other metrics unchanged)."""
        now, before = self.current.get(delta.name), self.baseline.get(delta.name)
        if now is None or before is None or delta.tolerance is None:
            return delta
        # __post_init__ refused an estimate without a value or an interval
        assert now.value is not None and now.ci is not None and before.value is not None and before.ci is not None
        change = now.value - before.value
        shown = f"PPI {before.value:.3f} -> {now.value:.3f}"
        intervals = (
            f"{now.confidence:.0%} CIs: baseline [{before.ci[0]:.3f}, {before.ci[1]:.3f}] on {before.n_labelled} "
            f"labelled case(s), this run [{now.ci[0]:.3f}, {now.ci[1]:.3f}] on {now.n_labelled} of {now.n_cases}"
        )
        status: Literal["pass", "fail"] = "pass"
        reason: str | None = None
        if change < -delta.tolerance - _EPSILON:  # every judge-scored metric is higher-is-better
            status, reason = (
                "fail",
                f"dropped {change:+.3f} ({shown}, tolerance {power.tolerance_text(delta.tolerance)}; {intervals})",
            )
        if delta.lost_cases:  # the judge mean's own failure stands: values lost on shared cases
            status, reason = "fail", f"{reason or shown}; judge mean: {delta.reason}"
        # Unpaired and independent: the difference is known to about the root sum of squares of the
        # two half-widths (each clipped to [0, 1], so this understates it near the ends).
        spread = math.hypot(_half_width(before.ci), _half_width(now.ci))
        noise = (
            f"; the difference is known to about +/-{spread:.3f}, more than the tolerance "
            f"{power.tolerance_text(delta.tolerance)}: "
            "a change within the tolerance may be a larger one unseen, and one beyond it may be noise"
            if spread > delta.tolerance
            else ""
        )
        return replace(
            delta,
            baseline=before.value,
            current=now.value,
            delta=change,
            basis="ppi",
            status=status,
            reason=reason,
            ci=None,
            ci_reason=f"PPI estimates compared unpaired against the tolerance; {intervals}{noise}",
            n_paired=0,
            n_current=now.n_cases,
            test=None,  # the paired sign-flip test and MDE describe the judge mean, not this estimate
        )

    def applied(self, deltas: Sequence[MetricDelta]) -> tuple[MetricDelta, ...]:
        return tuple(self.apply(delta) for delta in deltas)
