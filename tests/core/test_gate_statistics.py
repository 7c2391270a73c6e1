"""The gate's statistics against published worked examples and simulations with known truth:
Holm's adjusted p-values, the MDE / sample-size formula, the sign-flip test's false-positive rate
under no change, and the statistical mode's decision rule."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from qaeval_tui.core.gate import power
from qaeval_tui.core.gate.delta import MetricDelta, MetricTest, SharedCase
from qaeval_tui.core.gate.statistical import apply_mode, attach_tests, decide_statistically
from qaeval_tui.core.running.metrics import METRIC_SPECS
from qaeval_tui.core.statistics.significance import (
    holm_adjusted,
    sign_flip_p_value,
    sign_flip_test,
    smallest_p_value,
)


def test_holm_matches_the_pingouin_documentation_example() -> None:
    # pingouin.holm documentation (Vallat 2018, Holm 1979): p = [.50, .003, .32, .054, .0003]
    # -> adjusted [0.64, 0.012, 0.64, 0.162, 0.0015], rejected at 0.05: the 2nd and the 5th.
    adjusted = holm_adjusted([0.50, 0.003, 0.32, 0.054, 0.0003])
    assert adjusted == pytest.approx([0.64, 0.012, 0.64, 0.162, 0.0015])
    assert [p <= 0.05 for p in adjusted] == [False, True, False, False, True]


def test_holm_caps_at_one_and_never_lets_a_larger_p_value_reject_before_a_smaller_one() -> None:
    assert holm_adjusted([0.9, 0.8]) == [1.0, 1.0]
    assert holm_adjusted([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])


def test_the_sample_size_formula_reproduces_lehrs_rule() -> None:
    # Lehr (1992), "Sixteen s-squared over d-squared", Stat Med 11:1099: a two-sample comparison at
    # alpha 0.05 two-sided and power 0.8 needs n = 16 s^2 / d^2 per group (exactly 2 (1.96 + 0.84)^2
    # = 15.7). With one metric, and the planning sd sqrt(2) s of two unpaired runs, the plan is his.
    s, d = 0.3, 0.05
    needed = power.cases_needed(2**0.5 * s, d, metrics_checked=1)
    assert needed == pytest.approx(15.7 * s**2 / d**2, rel=0.01)
    assert power.minimum_detectable_effect(2**0.5 * s, needed, metrics_checked=1) <= d


def test_a_drop_of_one_mde_is_found_about_80_percent_of_the_time_in_simulation() -> None:
    # Known truth, under the formula's assumptions: 200 binary cases drawn independently in the two
    # runs (no pairing credit, the planning assumption), with the same spread in both (rates 0.5 +- d/2),
    # and a drop d of exactly the MDE for m = 5 metrics. Tested at alpha / m (Holm's strictest step),
    # such a drop should be found with power ~0.8.
    rng = np.random.default_rng(11)
    n, m = 200, 5
    drop = 0.2
    for _ in range(5):  # the spread depends on the drop: a fixed point, reached in a few steps
        high = 0.5 + drop / 2
        drop = power.minimum_detectable_effect((2 * high * (1 - high)) ** 0.5, n, m)
    found = 0
    trials = 300
    for trial in range(trials):
        before = rng.random(n) < 0.5 + drop / 2
        after = rng.random(n) < 0.5 - drop / 2
        p = sign_flip_p_value(after.astype(float) - before.astype(float), replicates=999, seed=trial)
        found += p <= power.ALPHA / m
    assert 0.70 <= found / trials <= 0.90, found / trials


def test_the_sign_flip_p_value_is_calibrated_under_no_change() -> None:
    # Known truth: no change (differences symmetric around 0). A calibrated test rejects at 0.05
    # about 5% of the time (binomial sd over 1000 trials: 0.7 points).
    rng = np.random.default_rng(5)
    trials = 1000
    rejected = sum(
        sign_flip_p_value(rng.normal(0.0, 0.3, size=40), replicates=499, seed=trial) <= 0.05 for trial in range(trials)
    )
    assert 0.03 <= rejected / trials <= 0.07, rejected / trials


def test_the_sign_flip_p_value_of_paired_binary_changes_never_exceeds_alpha_under_no_change() -> None:
    rng = np.random.default_rng(9)
    trials = 600
    rejected = 0
    for trial in range(trials):
        flips = rng.choice([-1.0, 0.0, 0.0, 0.0, 1.0], size=60)  # most cases unchanged, the rest either way
        rejected += sign_flip_p_value(flips, replicates=499, seed=trial) <= 0.05
    assert rejected / trials <= 0.065, rejected / trials


def test_the_sign_flip_p_value_is_deterministic_for_a_seed_and_exact_in_the_extremes() -> None:
    differences = [-1.0] * 6 + [0.0] * 30
    assert sign_flip_p_value(differences, seed=3) == sign_flip_p_value(differences, seed=3)
    # Six cases all dropping: exactly 2 of the 2^6 sign patterns reach it, p = 1/32.
    assert sign_flip_p_value(differences, replicates=20000, seed=1) == pytest.approx(1 / 32, abs=0.005)
    # The same with six different magnitudes (each its own fair coin).
    distinct = [-0.1, -0.2, -0.3, -0.4, -0.5, -0.6]
    assert sign_flip_p_value(distinct, replicates=20000, seed=1) == pytest.approx(1 / 32, abs=0.005)
    assert sign_flip_p_value([0.0, 0.0]) == 1.0


def test_a_metric_the_baseline_scored_perfectly_still_has_an_mde() -> None:
    # Without the pseudo-cases every perfect baseline would claim to resolve any drop.
    assert power.planning_sd([1.0] * 31) > 0
    assert power.minimum_detectable_effect(power.planning_sd([1.0] * 31), 31, 12) > 0.1
    assert power.cases_needed(0.3, 0.0, 12) is None


def _delta(status: str, drop: float, tolerance: float, test: MetricTest | None) -> MetricDelta:
    return MetricDelta(
        name="faithfulness_rate",
        description="",
        higher_is_better=True,
        baseline=0.9,
        current=0.9 - drop,
        delta=-drop,
        basis="shared",
        tolerance=tolerance,
        status=status,  # type: ignore[arg-type]
        reason=f"dropped {-drop:+.3f}",
        ci=None,
        ci_reason=None,
        n_paired=400,
        judge_axis=None,
        trusted=None,
        trust_note=None,
        test=test,
    )


TEST = MetricTest(
    n=400, p_value=0.2, p_holm=0.4, significant=False, sd_paired=0.2, mde=0.05, cases_needed=300, warning=None
)


def test_statistical_mode_blocks_only_a_significant_drop_beyond_the_tolerance() -> None:
    significant = dataclasses.replace(TEST, p_value=0.001, p_holm=0.004, significant=True)
    assert decide_statistically(_delta("fail", 0.1, 0.06, significant)).status == "fail"
    passed = decide_statistically(_delta("fail", 0.1, 0.06, TEST))
    assert passed.status == "pass" and "not significant after Holm" in (passed.reason or "")
    assert decide_statistically(_delta("pass", 0.01, 0.06, significant)).status == "pass"


def test_statistical_mode_refuses_a_tolerance_below_the_mde_unless_the_drop_is_a_significant_block() -> None:
    below = dataclasses.replace(TEST, warning="this suite cannot resolve a 0.02 drop")
    refused = decide_statistically(_delta("fail", 0.4, 0.02, below))
    assert refused.status == "refused" and "refusing is not passing" in (refused.reason or "")
    assert decide_statistically(_delta("pass", 0.0, 0.02, below)).status == "refused"
    assert decide_statistically(_delta("pass", 0.0, 0.06, None)).status == "refused"  # nothing to test
    # A drop beyond the tolerance that is significant after Holm is a verdict reached: BLOCK, never REFUSED.
    significant = dataclasses.replace(below, p_value=0.0001, p_holm=0.0012, significant=True)
    assert decide_statistically(_delta("fail", 0.4, 0.02, significant)).status == "fail"


NAMES = [name for name in METRIC_SPECS if name != "deterministic_pass_rate"][:12]


def _family(drops: dict[str, list[float]], tolerance: float) -> tuple[list[MetricDelta], list[SharedCase]]:
    """12 gated metrics on the same cases, every baseline value 1.0; `drops` gives a metric's per-case
    drops (the others do not move)."""
    n = len(next(iter(drops.values())))
    cases = [
        SharedCase(f"c{i}", {m: 1.0 - drops.get(m, [0.0] * n)[i] for m in NAMES}, dict.fromkeys(NAMES, 1.0), True)
        for i in range(n)
    ]
    deltas = []
    for name in NAMES:
        drop = sum(drops.get(name, [0.0])) / n
        deltas.append(
            dataclasses.replace(
                _delta("fail" if drop > tolerance else "pass", drop, tolerance, None), name=name, baseline=1.0
            )
        )
    return deltas, cases


def _decided(drops: dict[str, list[float]], tolerance: float, replicates: int) -> MetricDelta:
    deltas, cases = _family(drops, tolerance)
    name = next(iter(drops))
    return next(d for d in apply_mode(attach_tests(deltas, cases, replicates, 0), "statistical") if d.name == name)


def test_a_suite_too_small_to_reach_significance_refuses_a_total_collapse_never_passes_it() -> None:
    # 8 cases (the demo's must-abstain cases) all 1 -> 0, 12 metrics: the exact sign-flip p is 2^(1-8) = 1/128,
    # Holm x 12 = 0.094 > 0.05 whatever happens. Before, this passed as "not significant after Holm".
    collapsed = _decided({"mrr": [1.0] * 8}, tolerance=0.7, replicates=20000)
    assert collapsed.status == "refused" and collapsed.test is not None
    assert collapsed.test.mde is None and collapsed.test.p_value == pytest.approx(1 / 128)
    assert "no drop can be significant (the smallest Holm p-value the test can reach is 0.0938 > 0.05)" in (
        collapsed.reason or ""
    )
    assert power.planned([1.0] * 8, 12).mde is None and power.floor_cases(12) == 9
    assert power.planned([1.0] * 9, 12).mde is not None
    assert power.cases_needed(0.3, 0.9, 12) == 9  # never plans a suite the test cannot reach significance on


def test_too_few_random_flips_never_pass_a_drop_beyond_the_tolerance() -> None:
    # 40 cases each dropping a different amount (0.30 .. 0.69: Monte Carlo, not exact), 12 metrics, and
    # bootstrap_replicates = 100: the Monte Carlo floor 1/101 x 12 = 0.119 made it "not significant". The
    # gate draws at least 20 m / alpha = 4800 flips.
    drops = [0.30 + 0.01 * i for i in range(40)]
    blocked = _decided({"mrr": drops}, tolerance=0.3, replicates=100)
    assert blocked.test is not None and blocked.test.method == "monte carlo"
    assert blocked.status == "fail" and blocked.test.significant
    assert blocked.test.p_value == pytest.approx(1 / 4801)
    assert power.flips(12, 100) == 4800 and power.flips(12, 10000) == 10000


def test_a_drop_beyond_the_tolerance_on_too_few_changed_cases_to_test_is_refused() -> None:
    # 40 cases, tolerance 0.13 (the suite resolves 0.128), but the 0.15 drop is 6 cases 1 -> 0: the smallest
    # p-value with 6 changed cases is 2^-5, x 12 = 0.375. "Not significant" says nothing here: refused.
    refused = _decided({"mrr": [1.0] * 6 + [0.0] * 34}, tolerance=0.13, replicates=2000)
    assert refused.test is not None and refused.test.resolvable and refused.test.n_changed == 6
    assert refused.status == "refused"
    assert "it could not be: with 6 cases changed the smallest Holm p-value the test can reach is 0.375" in (
        refused.reason or ""
    )


def test_a_significant_drop_beyond_a_tolerance_the_baseline_resolves_blocks_whatever_its_spread() -> None:
    # 31 cases scored 1.0 in the baseline, tolerance 0.2: the suite resolves 0.164 (what `qaeval plan`
    # prints). A drop of 10 of 31 cases widens the spread of the differences; before, that raised the MDE
    # to 0.316 and the significant drop was REFUSED.
    blocked = _decided({"faithfulness_rate": [1.0] * 10 + [0.0] * 21}, tolerance=0.2, replicates=2000)
    assert blocked.test is not None and round(blocked.test.mde or 0.0, 3) == 0.164
    assert blocked.status == "fail" and blocked.test.significant
    small = _decided({"faithfulness_rate": [1.0] * 3 + [0.0] * 28}, tolerance=0.2, replicates=2000)
    assert small.status == "pass" and small.test is not None and round(small.test.mde or 0.0, 3) == 0.164


def test_the_exact_sign_flip_p_value_is_the_exact_sign_test_and_the_full_enumeration() -> None:
    # Equal magnitudes: the exact two-sided sign test (Dixon & Mood 1946, "The statistical sign test",
    # JASA 41:557). 20 of 25 cases down: P(X <= 5 | n = 25, p = 1/2) = 68406 / 2^25 = 0.0020, two-sided 0.0041.
    down = sign_flip_test([-1.0] * 20 + [1.0] * 5 + [0.0] * 10)
    tail = sum(math.comb(25, k) for k in range(6)) / 2**25
    assert down.method == "exact" and down.n_nonzero == 25
    assert down.p_value == pytest.approx(2 * tail) and round(tail, 4) == 0.0020
    # Distinct magnitudes: against every one of the 2^12 sign patterns, counted one by one.
    rng = np.random.default_rng(4)
    values = np.round(rng.normal(-0.1, 0.3, size=12), 3)
    observed = abs(values.sum())
    reached = sum(
        abs(sum(v if (pattern >> i) & 1 else -v for i, v in enumerate(values))) >= observed - 1e-9
        for pattern in range(2**12)
    )
    assert sign_flip_test(values, seed=1).p_value == pytest.approx(reached / 2**12)
    assert sign_flip_test(values, seed=1).method == "exact"
    assert smallest_p_value(6) == 1 / 32 and smallest_p_value(40, replicates=99) == 0.01
