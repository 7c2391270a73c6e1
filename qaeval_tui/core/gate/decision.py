"""The CI gate (DESIGN §6): Tier 1 deterministic checks, Tier 2 deltas against a committed baseline.

Tier 1: every deterministic check green on every case (an adapter crash is a failed case),
and a verdict from the judge on every case (a judge error is never a silently missing score).
Tier 2: no gated metric drops beyond its tolerance (over-refusal may not rise beyond its),
no case that passed in the baseline fails now, and every new or changed case passes. A
metric's delta compares the two runs on the cases they share (the plain difference of the two
scoreboards when they share none), with a paired bootstrap CI of the per-case differences.

A missing, unreadable or mismatched baseline raises UsageError (exit 2): it is never a pass.
How one metric is compared, and why a value lost since the baseline fails it, is `delta.py`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from qaeval_tui.core.batch import collector_paused
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.gate.baseline import Baseline, check_comparable
from qaeval_tui.core.gate.delta import CONFIDENCE, MetricDelta, SharedCase, metric_delta, refused
from qaeval_tui.core.gate.ppi_gate import PPIGate
from qaeval_tui.core.gate.spread import MetricSpread, sample_spread
from qaeval_tui.core.gate.statistical import GATE_MODES, GateMode, apply_mode, attach_tests
from qaeval_tui.core.gate.trust import UNCALIBRATED, GateTrust, trust_marker, untrusted_gated_metrics
from qaeval_tui.core.running.metrics import METRIC_NAMES, default_tolerances
from qaeval_tui.core.running.result import RunResult

JUDGE_ERROR = "judge_error"
TRUST_VERDICTS = ("TRUSTED", "RETUNE", "INSUFFICIENT", UNCALIBRATED)
# Tolerances for metrics the configuration does not name (it names the headline ones).


@dataclass(frozen=True)
class Finding:
    """One reason the gate blocks: a fired check, a metric drop, a regressed or failing new case."""

    tier: int
    kind: Literal["check", "judge_error", "metric", "regression", "new_case", "trust"]
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
class CaseOutcome:
    """One case as the gate sees it (one JUnit testcase)."""

    case_id: str
    split: str
    status: Literal["common", "new", "changed"]
    passed_before: bool | None
    findings: tuple[Finding, ...]


@dataclass(frozen=True)
class GateReport:
    verdict: Literal["PASS", "BLOCK", "REFUSED"]
    tier1: tuple[Finding, ...]
    tier2: tuple[Finding, ...]
    metrics: tuple[MetricDelta, ...]
    cases: tuple[CaseOutcome, ...]
    removed_cases: tuple[str, ...]
    run: dict[str, Any]
    baseline: dict[str, Any]
    axis_trust: dict[str, str] = field(default_factory=dict)
    trust: GateTrust | None = None  # where the trust came from (the gate command always says)
    require_trusted: bool = False
    confidence: float = CONFIDENCE
    replicates: int = 2000
    seed: int = 0
    mode: GateMode = "tolerance"
    samples: int = 1  # runs of each case; with more than one, `spread` is what the runs of a case showed
    spread: tuple[MetricSpread, ...] = ()

    @property
    def passed(self) -> bool:
        return self.verdict == "PASS"

    @property
    def exit_code(self) -> int:
        # REFUSED: no verdict was reached (a tolerance the suite cannot resolve); never a pass.
        return {"PASS": 0, "BLOCK": 1, "REFUSED": 3}[self.verdict]

    @property
    def refused_metrics(self) -> list[str]:
        return [delta.name for delta in self.metrics if delta.status == "refused"]

    @property
    def findings(self) -> tuple[Finding, ...]:
        return self.tier1 + self.tier2

    @property
    def untrusted_axes(self) -> list[str]:
        return sorted(axis for axis, verdict in self.axis_trust.items() if verdict != "TRUSTED")


def resolve_tolerances(configured: Mapping[str, float], gated: Sequence[str] | None = None) -> dict[str, float]:
    """Configured tolerances over the defaults, for the `gated` metrics only when that is given (the
    others are then information); an unknown metric name is a usage error."""
    unknown = sorted(set(configured) - set(METRIC_NAMES))
    if unknown:
        raise UsageError(f"gate.tolerances: unknown metric {unknown[0]!r}; known: {', '.join(METRIC_NAMES)}")
    for name, value in sorted(configured.items()):
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
            raise UsageError(f"gate.tolerances.{name}: must be a number from 0 to 1, got {value!r}")
    merged = {**default_tolerances(), **configured}
    if gated is None:
        return merged
    for name in gated:
        if name not in merged:
            raise UsageError(f"gate.gated: {name!r} has no tolerance (Tier 1 gates it, not Tier 2)")
    return {name: merged[name] for name in gated}


def _check_trust(axis_trust: Mapping[str, str] | None) -> dict[str, str]:
    trust = dict(axis_trust or {})
    for axis, verdict in trust.items():
        if verdict not in TRUST_VERDICTS:
            raise UsageError(
                f"calibration verdict for {axis!r} is {verdict!r}; expected one of {', '.join(TRUST_VERDICTS)}"
            )
    return trust


def run_gate(
    result: RunResult,
    baseline: Baseline,
    *,
    tolerances: Mapping[str, float] | None = None,
    replicates: int = 2000,
    seed: int = 0,
    axis_trust: Mapping[str, str] | None = None,
    trust: GateTrust | None = None,
    require_trusted: bool = False,
    mode: GateMode = "tolerance",
    ppi: PPIGate | None = None,
    gated: Sequence[str] | None = None,
) -> GateReport:
    """Gate a run against a baseline. `axis_trust` maps judge axis -> calibration verdict for this judge config
    (`trust`, when given, supplies it with its reasons and source); metrics scored on a non-TRUSTED axis are
    marked untrusted or uncalibrated (they still gate); with `require_trusted` those gated ones fail Tier 2.
    `mode`: core/gate/statistical.py. With `ppi`, the gated judge metrics compare PPI estimates
    (`ppi_gate.py`)."""
    # Like the run it gates: many live objects and no cycles, which the cyclic collector would
    # rescan over and over (about a second of a 10,000-case gate).
    with collector_paused():
        if trust is not None:
            axis_trust = trust.verdicts()
        report = _gate(result, baseline, tolerances, replicates, seed, axis_trust, mode, ppi, gated)
        return _with_trust(report, trust, require_trusted)


def _with_trust(report: GateReport, trust: GateTrust | None, require_trusted: bool) -> GateReport:
    """The report with its trust source, and with `require_trusted` a Tier 2 finding per untrusted judge metric."""
    findings: tuple[Finding, ...] = ()
    if require_trusted:
        reasons = trust.reasons() if trust is not None else {}
        findings = tuple(
            Finding(2, "trust", name, None, message)
            for name, message in untrusted_gated_metrics(report.metrics, report.axis_trust, reasons)
        )
    tier2 = report.tier2 + findings
    verdict: Literal["PASS", "BLOCK", "REFUSED"] = "BLOCK" if findings else report.verdict
    return replace(report, tier2=tier2, verdict=verdict, trust=trust, require_trusted=require_trusted)


def _gate(
    result: RunResult,
    baseline: Baseline,
    tolerances: Mapping[str, float] | None,
    replicates: int,
    seed: int,
    axis_trust: Mapping[str, str] | None,
    mode: GateMode = "tolerance",
    ppi: PPIGate | None = None,
    gated: Sequence[str] | None = None,
) -> GateReport:
    check_comparable(result, baseline)
    if mode not in GATE_MODES:
        raise UsageError(f"gate.mode: must be one of {', '.join(GATE_MODES)}, got {mode!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise UsageError(f"gate.seed: must be a whole number, 0 or more, got {seed!r}")
    if isinstance(replicates, bool) or not isinstance(replicates, int) or replicates < 1:
        raise UsageError(f"gate.bootstrap_replicates: must be a whole number, 1 or more, got {replicates!r}")
    resolved = resolve_tolerances(tolerances or {}, gated)
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
            and refused(case.values) == refused(old.values),
        )
        for case in result.cases
        if (old := baseline.cases.get(case.case_id)) is not None and old.case_hash == case.loaded.content_hash
    ]
    deltas = tuple(
        metric_delta(name, result, baseline, shared_values, resolved, trust, replicates, seed) for name in METRIC_NAMES
    )
    deltas = attach_tests(deltas, shared_values, replicates, seed, mode)
    if ppi is not None:  # PPI rows are unpaired estimates: the paired test does not apply to them
        deltas = ppi.applied(deltas)
    deltas = apply_mode(deltas, mode)
    metric_findings = []
    for delta in deltas:
        if delta.status == "fail":
            suffix = f" [{trust_marker(delta.trust_verdict)}: {delta.trust_note}]" if delta.trusted is False else ""
            metric_findings.append(Finding(2, "metric", delta.name, None, f"{delta.name} {delta.reason}{suffix}"))
    current_ids = {case.case_id for case in result.cases}
    removed = tuple(sorted(case_id for case_id in baseline.cases if case_id not in current_ids))
    tier2 = metric_findings + tier2
    header = result.header()
    return GateReport(
        # A block is a verdict reached; only without one does a refusal decide.
        verdict="BLOCK" if tier1 or tier2 else "REFUSED" if any(d.status == "refused" for d in deltas) else "PASS",
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
        mode=mode,
        samples=result.samples,
        spread=sample_spread(result.cases, result.samples, resolved, warn=mode == "tolerance"),
    )
