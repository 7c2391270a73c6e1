"""The CI gate (DESIGN §6): Tier 1 deterministic checks, Tier 2 deltas against a committed baseline.

Tier 1: every deterministic check green on every case (an adapter crash is a failed case),
and a verdict from the judge on every case (a judge error is never a silently missing score).
Tier 2: no gated metric drops beyond its tolerance (over-refusal may not rise beyond its),
no case that passed in the baseline fails now, and every new or changed case passes. A
metric's delta compares the two runs on the cases they share (the plain difference of the two
scoreboards when they share none), with a paired bootstrap CI of the per-case differences.

A missing, unreadable or mismatched baseline raises UsageError (exit 2): it is never a pass.
Nor is a gated metric that had a value in the baseline and has none now: it fails. Nor is a
judge that goes quiet: a shared case whose judge-scored metric had a value in the baseline and
has none now would leave the comparison, and if those are the cases it would score low the mean
only rises. Unless the output changed in a way other checks gate (an adapter or judge failure:
Tier 1; the system refusing now where it answered, or the reverse: over-refusal and abstention
recall), such a lost value is the judge's "can't judge" and fails that metric, naming the cases.
A deterministic metric that stops applying to a case does so because the output changed (no
citations once the system abstains), which those same checks gate: it is counted, not failed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from qaeval_tui.core.batch import collector_paused
from qaeval_tui.core.config import GateConfig
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.gate.baseline import Baseline, check_comparable
from qaeval_tui.core.running.metrics import METRIC_NAMES, METRIC_SPECS
from qaeval_tui.core.running.result import RunResult
from qaeval_tui.core.statistics.intervals import paired_bootstrap_ci

CONFIDENCE = 0.95
JUDGE_ERROR = "judge_error"
TRUST_VERDICTS = ("TRUSTED", "RETUNE", "INSUFFICIENT")
# Tolerances for metrics the configuration does not name (it names the headline ones).
EXTRA_TOLERANCES = {"citation_correctness": 0.02, "retrieval_precision_at_k": 0.02}
_EPSILON = 1e-9
LOST_SHOWN = 5  # cases named in a lost-values reason before "and N more"


@dataclass(frozen=True)
class Finding:
    """One reason the gate blocks: a fired check, a metric drop, a regressed or failing new case."""

    tier: int
    kind: Literal["check", "judge_error", "metric", "regression", "new_case"]
    name: str
    case_id: str | None
    message: str

    def to_json(self) -> dict[str, Any]:
        return {
            "tier": self.tier,
            "kind": self.kind,
            "name": self.name,
            "case_id": self.case_id,
            "message": self.message,
        }


@dataclass(frozen=True)
class MetricDelta:
    name: str
    description: str
    higher_is_better: bool
    baseline: float | None
    current: float | None
    delta: float | None
    basis: Literal["shared", "unpaired"]
    tolerance: float | None
    status: Literal["pass", "fail", "n/a", "info"]
    reason: str | None
    ci: tuple[float, float] | None
    ci_reason: str | None
    n_paired: int
    judge_axis: str | None
    trusted: bool | None
    trust_note: str | None
    # Values on the compared cases (the shared ones, or each whole run when unpaired), and the
    # shared cases that had a value in the baseline and lost it although the judge could score them.
    n_baseline: int = 0
    n_current: int = 0
    lost_cases: tuple[str, ...] = ()

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


@dataclass(frozen=True)
class CaseOutcome:
    """One case as the gate sees it (one JUnit testcase)."""

    case_id: str
    split: str
    status: Literal["common", "new", "changed"]
    passed_before: bool | None
    findings: tuple[Finding, ...]


@dataclass(frozen=True)
class GateReport:
    verdict: Literal["PASS", "BLOCK"]
    tier1: tuple[Finding, ...]
    tier2: tuple[Finding, ...]
    metrics: tuple[MetricDelta, ...]
    cases: tuple[CaseOutcome, ...]
    removed_cases: tuple[str, ...]
    run: dict[str, Any]
    baseline: dict[str, Any]
    axis_trust: dict[str, str] = field(default_factory=dict)
    confidence: float = CONFIDENCE
    replicates: int = 2000
    seed: int = 0

    @property
    def passed(self) -> bool:
        return self.verdict == "PASS"

    @property
    def exit_code(self) -> int:
        return 0 if self.passed else 1

    @property
    def findings(self) -> tuple[Finding, ...]:
        return self.tier1 + self.tier2

    @property
    def untrusted_axes(self) -> list[str]:
        return sorted(axis for axis, verdict in self.axis_trust.items() if verdict != "TRUSTED")


def resolve_tolerances(configured: Mapping[str, float]) -> dict[str, float]:
    """Configured tolerances over the defaults; an unknown metric name is a usage error."""
    unknown = sorted(set(configured) - set(METRIC_NAMES))
    if unknown:
        raise UsageError(f"gate.tolerances: unknown metric {unknown[0]!r}; known: {', '.join(METRIC_NAMES)}")
    for name, value in sorted(configured.items()):
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
            raise UsageError(f"gate.tolerances.{name}: must be a number from 0 to 1, got {value!r}")
    return {**EXTRA_TOLERANCES, **GateConfig().tolerances, **configured}


def _check_trust(axis_trust: Mapping[str, str] | None) -> dict[str, str]:
    trust = dict(axis_trust or {})
    for axis, verdict in trust.items():
        if verdict not in TRUST_VERDICTS:
            raise UsageError(
                f"calibration verdict for {axis!r} is {verdict!r}; expected one of {', '.join(TRUST_VERDICTS)}"
            )
    return trust


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def shared_case_ci(
    pairs: Sequence[tuple[float | None, float | None]], replicates: int, seed: int, confidence: float
) -> tuple[float, float] | None:
    """Percentile CI of (current mean - baseline mean) when the cases a metric applies to differ by run.

    Cases are resampled jointly (a paired bootstrap); each side is the mean over its applicable
    cases in the replicate. Replicates where a side has no applicable case are dropped.
    """
    now = np.array([np.nan if a is None else a for a, _ in pairs], dtype=np.float64)
    old = np.array([np.nan if b is None else b for _, b in pairs], dtype=np.float64)
    # Columns: current sum, current count, baseline sum, baseline count; a replicate is weights @ columns.
    columns = np.stack([np.nan_to_num(now), ~np.isnan(now), np.nan_to_num(old), ~np.isnan(old)], axis=1)
    size = len(pairs)
    rng = np.random.default_rng(seed)
    sums = np.empty((replicates, 4), dtype=np.float64)
    block = max(1, 2_000_000 // size)  # bounded memory however many cases
    for start in range(0, replicates, block):
        stop = min(replicates, start + block)
        weights = rng.multinomial(size, np.full(size, 1.0 / size), size=stop - start)
        sums[start:stop] = weights @ columns
    with np.errstate(invalid="ignore", divide="ignore"):
        deltas = sums[:, 0] / sums[:, 1] - sums[:, 2] / sums[:, 3]
    deltas = deltas[np.isfinite(deltas)]
    if deltas.size == 0:
        return None
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(deltas, [tail, 1.0 - tail])
    return (float(low), float(high))


def _metric_delta(
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
    elif len(differences) == len(now_values) == len(old_values):
        ci = paired_bootstrap_ci(differences, replicates=replicates, seed=seed, confidence=CONFIDENCE)
    else:
        ci = shared_case_ci(pairs, replicates=replicates, seed=seed, confidence=CONFIDENCE)
    status: Literal["pass", "fail", "n/a", "info"]
    reason: str | None = None
    shown = f"baseline {_fmt(before)} -> {_fmt(current)}"
    if basis == "shared" and shared != len(result.cases):
        shown += f" on {shared} shared case(s)"
    elif basis == "unpaired":
        shown += ", unpaired: no shared case"
    if tolerance is None:
        status = "info"
        reason = "not gated in Tier 2" + (" (Tier 1 requires 100%)" if name == "deterministic_pass_rate" else "")
    elif before is None:
        status = "n/a"
        reason = "not comparable: no baseline value"
    elif current is None or delta is None:  # a metric that stops being measured has not held steady
        status = "fail"
        reason = f"has no value now ({shown}): no case it applies to was scored this time"
    elif spec.higher_is_better and delta < -tolerance - _EPSILON:
        status, reason = "fail", f"dropped {delta:+.3f} ({shown}, tolerance {tolerance:.3f})"
    elif not spec.higher_is_better and delta > tolerance + _EPSILON:
        status, reason = "fail", f"rose {delta:+.3f} ({shown}, tolerance {tolerance:.3f})"
    else:
        status = "pass"
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
        n_baseline=n_before,
        n_current=n_now,
        lost_cases=lost,
    )


def _refused(values: Mapping[str, float | None]) -> bool:
    """Whether the system refused a case, read from its values (over-refusal or abstention recall applies)."""
    return values.get("over_refusal_rate") == 1.0 or values.get("abstention_recall") == 1.0


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def run_gate(
    result: RunResult,
    baseline: Baseline,
    *,
    tolerances: Mapping[str, float] | None = None,
    replicates: int = 2000,
    seed: int = 0,
    axis_trust: Mapping[str, str] | None = None,
) -> GateReport:
    """Gate a run against a baseline. `axis_trust` maps judge axis -> calibration verdict for this judge config;
    metrics scored on a non-TRUSTED axis are marked untrusted (they still gate)."""
    # Like the run it gates: many live objects and no cycles, which the cyclic collector would
    # rescan over and over (about a second of a 10,000-case gate).
    with collector_paused():
        return _gate(result, baseline, tolerances, replicates, seed, axis_trust)


def _gate(
    result: RunResult,
    baseline: Baseline,
    tolerances: Mapping[str, float] | None,
    replicates: int,
    seed: int,
    axis_trust: Mapping[str, str] | None,
) -> GateReport:
    check_comparable(result, baseline)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise UsageError(f"gate.seed: must be a whole number, 0 or more, got {seed!r}")
    if isinstance(replicates, bool) or not isinstance(replicates, int) or replicates < 1:
        raise UsageError(f"gate.bootstrap_replicates: must be a whole number, 1 or more, got {replicates!r}")
    resolved = resolve_tolerances(tolerances or {})
    trust = _check_trust(axis_trust)
    tier1: list[Finding] = []
    tier2: list[Finding] = []
    outcomes: list[CaseOutcome] = []
    for case in result.cases:
        own: list[Finding] = []
        for check in case.checks:
            if check.failed:
                own.append(Finding(1, "check", check.name, case.case_id, check.detail))
        if case.judge_error is not None:  # its judge metrics are missing, so it cannot count as measured
            own.append(Finding(1, "judge_error", JUDGE_ERROR, case.case_id, f"the judge failed: {case.judge_error}"))
        tier1.extend(own)
        old = baseline.cases.get(case.case_id)
        status: Literal["common", "new", "changed"]
        status = "new" if old is None else "common" if old.case_hash == case.loaded.content_hash else "changed"
        if status == "common" and old is not None and old.passed and not case.passed:
            finding = Finding(
                2,
                "regression",
                "regression",
                case.case_id,
                f"passed in the baseline, fails now: {', '.join(case.failures)}",
            )
            own.append(finding)
            tier2.append(finding)
        elif status != "common" and not case.passed:
            what = "new case" if status == "new" else "case changed since the baseline"
            finding = Finding(
                2, "new_case", "new_case", case.case_id, f"{what} must pass, fails: {', '.join(case.failures)}"
            )
            own.append(finding)
            tier2.append(finding)
        outcomes.append(
            CaseOutcome(case.case_id, case.loaded.split, status, None if old is None else old.passed, tuple(own))
        )
    shared_values = [
        SharedCase(
            case.case_id,
            case.values,
            old.values,
            judged_alike=case.output.error is None
            and case.judge_error is None
            and _refused(case.values) == _refused(old.values),
        )
        for case in result.cases
        if (old := baseline.cases.get(case.case_id)) is not None and old.case_hash == case.loaded.content_hash
    ]
    deltas = tuple(
        _metric_delta(name, result, baseline, shared_values, resolved, trust, replicates, seed) for name in METRIC_NAMES
    )
    metric_findings = []
    for delta in deltas:
        if delta.status == "fail":
            suffix = f" [untrusted: {delta.trust_note}]" if delta.trusted is False else ""
            metric_findings.append(Finding(2, "metric", delta.name, None, f"{delta.name} {delta.reason}{suffix}"))
    current_ids = {case.case_id for case in result.cases}
    removed = tuple(sorted(case_id for case_id in baseline.cases if case_id not in current_ids))
    tier2 = metric_findings + tier2
    header = result.header()
    return GateReport(
        verdict="PASS" if not tier1 and not tier2 else "BLOCK",
        tier1=tuple(tier1),
        tier2=tuple(tier2),
        metrics=deltas,
        cases=tuple(outcomes),
        removed_cases=removed,
        run={
            "run_id": result.run_id,
            "suite_hash": result.suite_hash,
            "adapter": result.adapter,
            "judge": header["judge"],
            "n_cases": len(result.cases),
        },
        baseline={
            "path": baseline.path,
            "run_id": baseline.run_id,
            "suite_hash": baseline.suite_hash,
            "adapter": baseline.adapter,
            "created_at": baseline.created_at,
            "n_cases": len(baseline.cases),
        },
        axis_trust=trust,
        confidence=CONFIDENCE,
        replicates=replicates,
        seed=seed,
    )
