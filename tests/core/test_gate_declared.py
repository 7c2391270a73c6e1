"""The gate tests what the user declares: `[gate] gated` narrows the family (the rest is shown as
information), a zero tolerance is a rule per case ("no case may go from pass to fail"), and
fireassay's three peer scenarios hold in statistical mode: a benign change passes with one retrieval
metric gated, a total collapse blocks, a subtle drop never passes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from qaeval_tui.core.config import GateConfig
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.gate import power
from qaeval_tui.core.gate.decision import resolve_tolerances
from qaeval_tui.core.gate.delta import MetricDelta, SharedCase
from qaeval_tui.core.gate.statistical import apply_mode, attach_tests
from qaeval_tui.core.models.run import SUTOutput
from tests.core.test_gate import baseline_of, gate, hub_unless, run, suite

RECALL = "retrieval_recall_at_k"


def test_a_declared_list_narrows_the_gated_family_and_shows_the_rest_as_information(tmp_path: Path) -> None:
    assert resolve_tolerances({}, (RECALL, "abstention_recall")) == {RECALL: 0.02, "abstention_recall": 0.0}
    assert resolve_tolerances({RECALL: 0.3}, (RECALL,)) == {RECALL: 0.3}
    with pytest.raises(UsageError, match="deterministic_pass_rate"):
        resolve_tolerances({}, ("deterministic_pass_rate",))
    with pytest.raises(ValueError, match="listed twice"):
        GateConfig(gated=(RECALL, RECALL))
    report = gate(run(suite()), baseline_of(run(suite()), tmp_path), gated=(RECALL,), mode="statistical")
    statuses = {delta.name: delta.status for delta in report.metrics}
    assert len(statuses) == 13  # every metric is still in the report, none silently dropped
    assert [name for name, status in statuses.items() if status != "info"] == [RECALL]
    faithfulness = next(delta for delta in report.metrics if delta.name == "faithfulness_rate")
    assert faithfulness.tolerance is None and faithfulness.reason == "not gated in Tier 2"


def test_a_zero_tolerance_fails_one_case_going_from_pass_to_fail_even_when_the_mean_holds(tmp_path: Path) -> None:
    # The baseline refused one answerable case, this run refuses another: over-refusal 1/3 both times.
    # Tested as a mean with a tolerance of 0 this passed; per case it is a case that got worse.
    def refuse(view: object) -> SUTOutput:
        return SUTOutput(answer="No.", abstained=True)

    before = run(suite(), hub_unless("How long", refuse))
    now = run(suite(), hub_unless("What warranty term", refuse))
    for mode in ("tolerance", "statistical"):
        report = gate(now, baseline_of(before, tmp_path), mode=mode)
        refusal = next(delta for delta in report.metrics if delta.name == "over_refusal_rate")
        assert refusal.delta == pytest.approx(0.0)
        assert refusal.status == "fail" and "1 case(s) got worse on it (warranty-02)" in (refusal.reason or "")
        assert report.verdict == "BLOCK"
        if mode == "statistical":  # decided per case: never in the tested family, never refused
            assert refusal.test is None


def _deltas(old: np.ndarray, new: np.ndarray, tolerance: float) -> tuple[list[MetricDelta], list[SharedCase]]:
    """One gated retrieval metric (the fireassay setup: `--metric retrieval.recall@5=THRESHOLD`)."""
    cases = [
        SharedCase(f"c{i}", {RECALL: float(b)}, {RECALL: float(a)}, True)
        for i, (a, b) in enumerate(zip(old, new, strict=True))
    ]
    drop = float(old.mean() - new.mean())
    delta = MetricDelta(
        name=RECALL,
        description="",
        higher_is_better=True,
        baseline=float(old.mean()),
        current=float(new.mean()),
        delta=-drop,
        basis="shared",
        tolerance=tolerance,
        status="fail" if drop > tolerance else "pass",
        reason=f"dropped {-drop:+.3f}",
        ci=None,
        ci_reason=None,
        n_paired=len(cases),
        judge_axis=None,
        trusted=None,
        trust_note=None,
    )
    return [delta], cases


def _verdict(old: np.ndarray, new: np.ndarray, tolerance: float, seed: int = 0) -> str:
    deltas, cases = _deltas(old, new, tolerance)
    return apply_mode(attach_tests(deltas, cases, 2000, seed, "statistical"), "statistical")[0].status


def test_fireassays_peer_scenarios_hold_in_statistical_mode() -> None:
    # fireassay's gate demo (its README, "The gate"): 20 fixture questions there; here 120 cases of a
    # recall@k in [0, 1] with one retrieval metric gated at a threshold the suite resolves.
    rng = np.random.default_rng(3)
    n = 120
    old = rng.choice([0.0, 0.5, 1.0], size=n, p=[0.15, 0.25, 0.6])
    mde = power.planned(list(old), 1).mde
    assert mde is not None and mde < 0.15
    tolerance = 0.15
    # Benign: a change that moves a few cases either way, no drop in the mean beyond noise: PASS.
    benign = old.copy()
    moved = rng.choice(n, size=12, replace=False)
    benign[moved] = rng.choice([0.0, 0.5, 1.0], size=12)
    assert _verdict(old, benign, tolerance) == "pass"
    # Total collapse (fireassay's drop_results: nothing retrieved): BLOCK.
    assert _verdict(old, np.zeros(n), tolerance) == "fail"
    # The subtle drop: real and beyond the threshold, on a suite too small to resolve it (fireassay's
    # "0.39 drop asked at 0.3, 14 items resolve only 0.35"): never a pass, whatever the seed.
    small = old[:14]
    subtle = small.copy()
    subtle[np.flatnonzero(small > 0)[:5]] = 0.0
    assert small.mean() - subtle.mean() > 0.3
    for seed in range(5):
        assert _verdict(small, subtle, 0.3, seed) in ("refused", "fail")
    assert _verdict(small, subtle, 0.3) == "refused"


def test_a_subtle_drop_beyond_the_tolerance_is_never_passed_in_simulation() -> None:
    # 200 seeded suites of 40 cases, a true drop of 0.2 on a metric gated at 0.1: a statistical gate may
    # refuse (too few cases changed) or block, but a pass would be a drop beyond the tolerance waved
    # through. Seen: 0 passes in 200 (Monte Carlo: a true pass rate of 1.5% would show 0 in 200 with
    # probability 0.05).
    rng = np.random.default_rng(17)
    passed = 0
    for trial in range(200):
        old = (rng.random(40) < 0.8).astype(float)
        new = old * (rng.random(40) >= 0.25)  # 25% of the passing cases fail now: a drop of 0.2
        if old.mean() - new.mean() <= 0.1:
            continue
        passed += _verdict(old, new, 0.1, trial) == "pass"
    assert passed == 0


def test_every_declared_metric_keeps_its_configured_tolerance() -> None:
    gate_config = GateConfig(gated=(RECALL,), tolerances={RECALL: 0.2})
    assert resolve_tolerances(gate_config.tolerances, gate_config.gated) == {RECALL: 0.2}
