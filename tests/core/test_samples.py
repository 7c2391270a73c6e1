"""Sampled systems (`[run] samples` = k): each case is answered and judged k times, its values are the
means (the case stays the unit of every interval and test), a check that fires in any sample fails the
case, and the gate reports the run-to-run spread and warns where a tolerance is inside it. Seeded
simulations: with no change, statistical mode blocks at most 5% of runs; a drop of one MDE is found
significant at least 80% of the time at the planned size."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

from qaeval_tui.bundled.hub import ReferenceHub
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.gate import power
from qaeval_tui.core.gate.delta import MetricDelta, SharedCase
from qaeval_tui.core.gate.statistical import apply_mode, attach_tests
from qaeval_tui.core.models.run import CaseView, SUTOutput
from qaeval_tui.core.running.result import RunResult
from tests.core.test_gate import baseline_of, gate, run, suite

METRIC = "faithfulness_rate"


class Flaky:
    """The reference hub, refusing every `every`-th question it is asked about the HB-10's warranty term."""

    def __init__(self, every: int) -> None:
        self.hub, self.every, self.asked = ReferenceHub(), every, 0
        self.lock = threading.Lock()

    def answer(self, view: CaseView) -> SUTOutput:
        if "What warranty term" in view.question:
            with self.lock:
                self.asked += 1
                refuse = self.asked % self.every == 0
            if refuse:
                return SUTOutput(answer="I cannot say.", abstained=True)
        return self.hub.answer(view)


def sampled(adapter: object, samples: int) -> RunResult:
    from qaeval_tui.bundled.mechanical_judge import MechanicalJudge
    from qaeval_tui.core.running.runner import run_suite
    from tests.core.run_fixtures import FIXED_TIME, RUBRIC

    return run_suite(
        suite(),
        adapter,  # type: ignore[arg-type]
        MechanicalJudge(),
        rubric=RUBRIC,
        adapter_spec="t:a",
        judge_spec="t:j",
        clock=lambda: FIXED_TIME,
        samples=samples,
    )


def test_a_sampled_case_has_the_mean_of_its_samples_and_fails_when_any_sample_fails() -> None:
    result = sampled(Flaky(every=3), samples=3)
    case = next(c for c in result.cases if c.case_id == "warranty-02")
    assert [s.sample for s in case.samples] == [0, 1, 2]
    assert [s.values["over_refusal_rate"] for s in case.samples] == [0.0, 0.0, 1.0]
    assert case.values["over_refusal_rate"] == pytest.approx(1 / 3)  # the mean over the samples
    assert case.failures == ("over_refusal",) and not case.passed  # one sample in three refused: it fails
    assert result.samples == 3 and result.header()["samples"] == 3
    # Over the answerable cases: warranty-01 0, warranty-02 1/3, and fan-price-01, which the hub refuses, 1.
    assert result.board.overall["over_refusal_rate"].value == pytest.approx((0 + 1 / 3 + 1) / 3)
    stored = case.result_json()["samples"]
    assert [row["sample"] for row in stored] == [0, 1, 2] and stored[2]["failures"] == ["over_refusal"]
    steady = sampled(ReferenceHub(), samples=1)
    assert steady.cases[0].samples == () and "samples" not in steady.header()
    with pytest.raises(UsageError, match="--samples"):
        sampled(ReferenceHub(), samples=0)


class CrashesOnce:
    """The reference hub, crashing on the second question about the HB-10's warranty term it is asked."""

    def __init__(self) -> None:
        self.hub, self.asked = ReferenceHub(), 0

    def answer(self, view: CaseView) -> SUTOutput:
        if "What warranty term" in view.question:
            self.asked += 1
            if self.asked == 2:
                raise RuntimeError("the model timed out")
        return self.hub.answer(view)


def test_an_adapter_crash_in_one_sample_is_a_fired_check_on_the_case(tmp_path: Path) -> None:
    result = sampled(CrashesOnce(), samples=3)
    case = next(c for c in result.cases if c.case_id == "warranty-02")
    assert "check:adapter_ok" in case.failures and case.output.error is not None  # the failing sample is shown
    report = gate(result, baseline_of(run(suite()), tmp_path))
    assert [(f.name, f.case_id) for f in report.tier1] == [("adapter_ok", "warranty-02")]
    assert report.verdict == "BLOCK"


def test_the_gate_reports_the_spread_and_warns_where_a_tolerance_is_inside_it(tmp_path: Path) -> None:
    before = sampled(Flaky(every=2), samples=4)
    now = sampled(Flaky(every=2), samples=4)
    report = gate(now, baseline_of(before, tmp_path))
    spread = {row.name: row for row in report.spread}
    refusal = spread["over_refusal_rate"]
    # warranty-02 refuses in 2 of 4 samples (sample variance 1/3); the other two answerable cases always
    # or never do: pooled within-case variance 1/9 over 3 cases, band 1.96 sqrt(2 (1/9) / (3 x 4)) = 0.267.
    assert refusal.n_cases == 3 and refusal.band == pytest.approx(1.959964 * (2 * (1 / 9) / 12) ** 0.5)
    assert refusal.warning is not None and "the 0.00 tolerance of over_refusal_rate is inside" in refusal.warning
    assert refusal.warning in _warnings(report)  # with the MDE warnings, in every output
    assert report.samples == 4
    unsampled = gate(run(suite()), baseline_of(run(suite()), tmp_path))
    assert unsampled.spread == () and unsampled.samples == 1


def _warnings(report: object) -> list[str]:
    from qaeval_tui.core.gate.report_stats import mde_warnings

    return mde_warnings(report)  # type: ignore[arg-type]


def _one_metric(old: np.ndarray, new: np.ndarray, tolerance: float, seed: int) -> MetricDelta:
    """The gate's statistical decision on one gated metric with these per-case values (means over samples)."""
    cases = [
        SharedCase(f"c{i}", {METRIC: float(b)}, {METRIC: float(a)}, True)
        for i, (a, b) in enumerate(zip(old, new, strict=True))
    ]
    drop = float(old.mean() - new.mean())
    delta = MetricDelta(
        name=METRIC,
        description="",
        higher_is_better=True,
        baseline=float(old.mean()),
        current=float(new.mean()),
        delta=-drop,
        basis="shared",
        tolerance=tolerance,
        status="fail" if drop > tolerance else "pass",
        reason=None,
        ci=None,
        ci_reason=None,
        n_paired=len(cases),
        judge_axis="faithfulness",
        trusted=None,
        trust_note=None,
    )
    return apply_mode(attach_tests([delta], cases, 2000, seed, "statistical"), "statistical")[0]


def _sampled_means(rng: np.random.Generator, rates: np.ndarray, k: int) -> np.ndarray:
    return rng.binomial(k, rates) / k


def test_with_no_change_a_sampled_system_is_blocked_in_at_most_5_percent_of_runs() -> None:
    # 120 cases, each with its own pass rate (Beta(3, 1): mostly high, some low), 5 samples a case, the same
    # system in both runs. The tolerance is the suite's MDE (resolvable). Measured: 0 blocks in 300 runs; the
    # tolerance gate at 0.02 blocks 23% of them even with 5 samples (asserted > 15%: what this guards against).
    # Monte Carlo: a true block rate of 5% shows at most 15 of 300 with probability 0.55.
    rng = np.random.default_rng(31)
    n, k = 120, 5
    rates = rng.beta(3.0, 1.0, size=n)
    tolerance = power.planned(list(_sampled_means(rng, rates, k)), 1).mde or 1.0
    blocked = tolerant = significant = 0
    for trial in range(300):
        old, new = _sampled_means(rng, rates, k), _sampled_means(rng, rates, k)
        decided = _one_metric(old, new, tolerance, trial)
        blocked += decided.status == "fail"
        significant += decided.test is not None and decided.test.significant
        tolerant += old.mean() - new.mean() > 0.02
    assert blocked / 300 <= 0.05, blocked
    # The clustered test itself (case means as the unit) holds its level: two-sided, so about 5% either way.
    assert significant / 300 <= 0.08, significant
    assert tolerant / 300 > 0.15, tolerant


def test_a_drop_of_one_mde_is_found_at_least_80_percent_of_the_time_at_the_planned_size() -> None:
    # A baseline of 5-sample means on 150 cases plans the MDE (one metric); every case's rate then drops
    # by that much (clipped at 0). Found significant in 0.92 of 200 runs here (the planning sd takes no
    # credit for pairing, so power at the MDE is at least the nominal 0.8). Monte Carlo sd about 0.03.
    rng = np.random.default_rng(8)
    n, k = 150, 5
    rates = rng.beta(3.0, 1.0, size=n)
    mde = power.planned(list(_sampled_means(rng, rates, k)), 1).mde
    assert mde is not None
    found = 0
    for trial in range(200):
        old = _sampled_means(rng, rates, k)
        new = _sampled_means(rng, np.clip(rates - mde, 0.0, 1.0), k)
        decided = _one_metric(old, new, mde, trial)
        found += decided.test is not None and decided.test.significant
    assert found / 200 >= 0.8, found


def test_the_spread_band_holds_95_percent_of_the_changes_between_unchanged_runs() -> None:
    # Two unchanged runs of 5 samples on 120 cases, 2,000 times (Monte Carlo sd 0.005): the share of runs
    # whose change of the mean is within the band one of them reports is about 0.95.
    from qaeval_tui.core.gate.spread import Z95

    rng = np.random.default_rng(4)
    n, k = 120, 5
    rates = rng.beta(3.0, 1.0, size=n)
    within = 0
    for _ in range(2000):
        first = rng.binomial(1, rates[:, None], size=(n, k)).astype(float)
        second = rng.binomial(1, rates[:, None], size=(n, k)).astype(float)
        pooled = float(first.var(axis=1, ddof=1).mean())
        band = Z95 * (2.0 * pooled / (n * k)) ** 0.5
        within += abs(first.mean() - second.mean()) <= band
    assert 0.93 <= within / 2000 <= 0.97, within
