"""One gated metric compared with the baseline: its delta, interval, status and the values it lost.

Compared on the cases both runs share, so adding cases moves nothing by itself; a metric that
had a value in the baseline and has none now fails. A judge that goes quiet fails too: a shared
case whose judge-scored metric had a value in the baseline and has none now would leave the
comparison, and if those are the cases it would score low the mean only rises. Unless the output
changed in a way other checks gate (an adapter or judge failure: Tier 1; the system refusing now
where it answered, or the reverse: over-refusal and abstention recall), such a lost value is the
judge's "can't judge" and fails that metric, naming the cases. A deterministic metric that stops
applying to a case does so because the output changed, which those same checks gate: it is
counted, not failed. A metric newer than the baseline (no trace of it in the file) is n/a, "not
in the baseline": neither a pass nor a failure, whatever its tolerance.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from qaeval_tui.core.gate import power
from qaeval_tui.core.gate.baseline import Baseline
from qaeval_tui.core.running.metrics import METRIC_SPECS
from qaeval_tui.core.running.result import RunResult
from qaeval_tui.core.statistics.intervals import paired_bootstrap_ci, shared_case_ci

CONFIDENCE = 0.95
LOST_SHOWN = 5  # cases named in a lost-values reason before "and N more"
_EPSILON = 1e-9
NOT_IN_BASELINE = "not in the baseline"
NOT_IN_BASELINE_REASON = (
    f"{NOT_IN_BASELINE}: the baseline was written before this metric existed; "
    "remake it with `qaeval baseline --out PATH` to gate it"
)


@dataclass(frozen=True)
class MetricTest:
    """A gated metric's paired test (core/gate/statistical.py): p-value, Holm decision, what the suite resolves."""

    n: int  # paired cases tested
    p_value: float
    p_holm: float
    significant: bool  # after Holm, at ALPHA
    sd_paired: float  # the sd the MDE assumes (core/gate/power.py)
    mde: float | None  # None: no finite MDE (the test cannot reach significance with n cases)
    cases_needed: int | None  # for an MDE of the tolerance; None: no suite size (a tolerance of 0)
    warning: str | None  # set when the tolerance is below the MDE
    method: str = "exact"  # "exact" or "monte carlo" (core/statistics/significance.py)
    n_changed: int = 0  # paired cases whose value changed: the only ones a sign flip moves
    smallest_p_holm: float = 0.0  # m x the smallest p-value this test could give on these differences

    @property
    def resolvable(self) -> bool:
        return self.warning is None

    def to_json(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "p_value": self.p_value,
            "p_holm": self.p_holm,
            "significant": self.significant,
            "sd_paired": self.sd_paired,
            "mde": self.mde,
            "tolerance_resolvable": self.resolvable,
            "cases_needed_for_tolerance": self.cases_needed,
            "warning": self.warning,
            "method": self.method,
            "n_changed": self.n_changed,
            "smallest_p_holm": self.smallest_p_holm,
        }


@dataclass(frozen=True)
class MetricDelta:
    name: str
    description: str
    higher_is_better: bool
    baseline: float | None
    current: float | None
    delta: float | None
    basis: Literal["shared", "unpaired", "ppi"]
    tolerance: float | None
    status: Literal["pass", "fail", "n/a", "info", "refused"]
    reason: str | None
    ci: tuple[float, float] | None
    ci_reason: str | None
    n_paired: int
    judge_axis: str | None
    trusted: bool | None
    trust_note: str | None
    trust_verdict: str | None = None  # the axis's verdict (UNCALIBRATED: no calibration for this judge)
    # Values on the compared cases (the shared ones, or each whole run when unpaired), and the
    # shared cases that had a value in the baseline and lost it although the judge could score them.
    n_baseline: int = 0
    n_current: int = 0
    lost_cases: tuple[str, ...] = ()
    # Its p-value, Holm decision and minimum detectable effect (gated metrics with paired cases).
    test: MetricTest | None = None
    in_baseline: bool = True  # False: the baseline predates the metric (status n/a, never pass)

    @property
    def status_text(self) -> str:
        """The status as the tables show it: "n/a: not in the baseline" for a metric newer than the baseline."""
        return self.status if self.in_baseline else f"{self.status}: {NOT_IN_BASELINE}"

    def to_json(self) -> dict[str, Any]:
        lost = (
            {"lost_cases": list(self.lost_cases)} if self.lost_cases else {}
        )  # reports without loss stay as they were
        return {
            "name": self.name,
            "baseline": self.baseline,
            "current": self.current,
            "delta": self.delta,
            "basis": self.basis,
            "tolerance": self.tolerance,
            "direction": "higher_is_better" if self.higher_is_better else "lower_is_better",
            "status": self.status,
            "reason": self.reason,
            "ci": None if self.ci is None else list(self.ci),
            "ci_reason": self.ci_reason,
            "n_paired": self.n_paired,
            "judge_axis": self.judge_axis,
            "trusted": self.trusted,
            "trust_note": self.trust_note,
            **lost,
            "statistics": None if self.test is None else self.test.to_json(),
        }


@dataclass(frozen=True)
class SharedCase:
    """A case in both runs with the same content: its values now and in the baseline."""

    case_id: str
    now: Mapping[str, float | None]
    old: Mapping[str, float | None]
    # No adapter or judge failure now (Tier 1 blocks those), and the system refuses now exactly
    # when it refused then (over-refusal and abstention recall gate a change): a judge score
    # missing now where the baseline had one is then the judge's own "can't judge".
    judged_alike: bool


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def metric_delta(
    name: str,
    result: RunResult,
    baseline: Baseline,
    shared_values: Sequence[SharedCase],
    tolerances: Mapping[str, float],
    trust: Mapping[str, str],
    replicates: int,
    seed: int,
) -> MetricDelta:
    spec = METRIC_SPECS[name]
    tolerance = tolerances.get(name)
    trusted: bool | None = None
    note: str | None = None
    if spec.judge_axis is not None and spec.judge_axis in trust:
        trusted = trust[spec.judge_axis] == "TRUSTED"
        note = f"judge axis {spec.judge_axis} calibration: {trust[spec.judge_axis]}"
    pairs = [(case.now.get(name), case.old.get(name)) for case in shared_values]
    shared = len(pairs)
    lost = tuple(
        case.case_id
        for case in shared_values
        if spec.judge_axis is not None
        and case.judged_alike
        and case.now.get(name) is None
        and case.old.get(name) is not None
    )
    now_values = [now for now, _ in pairs if now is not None]
    old_values = [old for _, old in pairs if old is not None]
    differences = [now - old for now, old in pairs if now is not None and old is not None]
    # Compared on the cases both runs share, so adding cases moves nothing by itself (new cases
    # answer to "must pass"); each side is the metric's own mean there, so a case that starts or
    # stops counting (an answer where there was a refusal) still moves it. No shared case at all:
    # the two scoreboards are all there is.
    basis: Literal["shared", "unpaired"] = "shared" if shared else "unpaired"
    if shared:
        before, current = _mean(old_values), _mean(now_values)
        n_before, n_now = len(old_values), len(now_values)
    else:
        before_metric = baseline.metrics.get(name)
        before = before_metric.value if before_metric is not None else None
        n_before = before_metric.n if before_metric is not None else 0
        current = result.board.overall[name].value
        n_now = result.board.overall[name].n
    delta = None if current is None or before is None else current - before
    ci: tuple[float, float] | None = None
    ci_reason: str | None = None
    if not shared:
        ci_reason = "no case shared with the baseline"
    elif not now_values or not old_values:
        ci_reason = "the metric applies to no shared case in one of the runs"
    elif len(differences) == len(now_values) == len(old_values) and not any(differences):
        # The bootstrap of n zeros is [0, 0]: no evidence of anything beyond these cases. The exact bound on
        # the share of cases that could change, none of n having done so, bounds the mean change instead.
        ci = no_change_interval(len(differences), CONFIDENCE)
        ci_reason = NO_CASE_CHANGED
    elif len(differences) == len(now_values) == len(old_values):
        ci = paired_bootstrap_ci(differences, replicates=replicates, seed=seed, confidence=CONFIDENCE)
    else:
        ci = shared_case_ci(pairs, replicates=replicates, seed=seed, confidence=CONFIDENCE)
    status: Literal["pass", "fail", "n/a", "info", "refused"]
    reason: str | None = None
    shown = f"baseline {_fmt(before)} -> {_fmt(current)}"
    if basis == "shared" and shared != len(result.cases):
        shown += f" on {shared} shared case(s)"
    elif basis == "unpaired":
        shown += ", unpaired: no shared case"
    in_baseline = name not in baseline.not_in_baseline
    if not in_baseline:
        status, reason = "n/a", NOT_IN_BASELINE_REASON
    elif tolerance is None:
        status = "info"
        reason = "not gated in Tier 2" + (" (Tier 1 requires 100%)" if name == "deterministic_pass_rate" else "")
    elif before is None:
        status = "n/a"
        reason = "not comparable: no baseline value"
    elif current is None or delta is None:  # a metric that stops being measured has not held steady
        status = "fail"
        reason = f"has no value now ({shown}): no case it applies to was scored this time"
    elif spec.higher_is_better and delta < -tolerance - _EPSILON:
        status, reason = "fail", f"dropped {delta:+.3f} ({shown}, tolerance {power.tolerance_text(tolerance)})"
    elif not spec.higher_is_better and delta > tolerance + _EPSILON:
        status, reason = "fail", f"rose {delta:+.3f} ({shown}, tolerance {power.tolerance_text(tolerance)})"
    else:
        status = "pass"
    if tolerance == 0.0 and status in ("pass", "fail"):  # zero tolerance is a rule per case, not a mean
        worse = worsened_cases(name, shared_values)
        if worse:
            named = ", ".join(worse[:LOST_SHOWN]) + (
                f" and {len(worse) - LOST_SHOWN} more" if len(worse) > LOST_SHOWN else ""
            )
            why = f"{len(worse)} case(s) got worse on it ({named}); zero tolerance: no case may go from pass to fail"
            reason = why if status == "pass" else f"{reason}; {why}"
            status = "fail"
    if lost and tolerance is not None:  # the cases left out may be exactly the ones it would score low
        named = ", ".join(lost[:LOST_SHOWN]) + (f" and {len(lost) - LOST_SHOWN} more" if len(lost) > LOST_SHOWN else "")
        why = (
            f"lost {len(lost)} of its {n_before} baseline value(s): the judge said can't judge on "
            f"case(s) it scored in the baseline ({named})"
        )
        if status == "fail":
            reason = f"{reason}; and {why}"
        else:  # a mean over fewer cases: its delta says nothing
            reason = f"{why}; {shown} compares {n_before} value(s) with {n_now}"
        status = "fail"
    return MetricDelta(
        name=name,
        description=spec.description,
        higher_is_better=spec.higher_is_better,
        baseline=before,
        current=current,
        delta=delta,
        basis=basis,
        tolerance=tolerance,
        status=status,
        reason=reason,
        ci=ci,
        ci_reason=ci_reason,
        n_paired=len(differences),
        judge_axis=spec.judge_axis,
        trusted=trusted,
        trust_note=note,
        trust_verdict=trust.get(spec.judge_axis) if spec.judge_axis is not None else None,
        n_baseline=n_before,
        n_current=n_now,
        lost_cases=lost,
        in_baseline=in_baseline,
    )


NO_CASE_CHANGED = (
    "no paired case changed: the interval bounds the mean change by the exact (Clopper-Pearson) bound on the "
    "share of cases that could change, 0 of n seen; a bootstrap of the differences would give [0, 0]"
)


def no_change_interval(n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The mean change, each case's in [-1, 1], when none of n paired cases changed: +-(1 - (alpha/2)^(1/n))."""
    share = 1.0 - ((1.0 - confidence) / 2.0) ** (1.0 / n)
    return (-share, share)


def worsened_cases(name: str, shared_values: Sequence[SharedCase]) -> tuple[str, ...]:
    """The shared cases whose value of `name` is worse now than in the baseline (both scored)."""
    higher = METRIC_SPECS[name].higher_is_better
    worse = []
    for case in shared_values:
        now, old = case.now.get(name), case.old.get(name)
        if now is not None and old is not None and (now < old - _EPSILON if higher else now > old + _EPSILON):
            worse.append(case.case_id)
    return tuple(worse)


def refused(values: Mapping[str, float | None]) -> bool:
    """Whether the system refused a case, read from its values (over-refusal or abstention recall applies)."""
    return values.get("over_refusal_rate") == 1.0 or values.get("abstention_recall") == 1.0


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"
