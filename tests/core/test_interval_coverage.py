"""The intervals we print hold: measured coverage of the nominal 95% at every size where one is printed.

Datasets with known truth: each item has a true value drawn from the scale's marginal; each coder
gives it with probability r, else an independent draw from the same marginal. Two such coders
disagree exactly when chance says so on the (1 - r^2) share of items where not both kept the truth,
so the population alpha is r^2 at every level of measurement, and the exact-agreement rate of two
coders is r^2 + (1 - r^2) * sum(marginal^2). The README and `alpha_interval`'s docstring quote the
figures measured here.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from qaeval_tui.core.statistics import intervals
from qaeval_tui.core.statistics.alpha_interval import MIN_ITEMS_ALPHA_INTERVAL, alpha_interval

SCALE = (0, 1, 2)
MARGINALS = ((1 / 3, 1 / 3, 1 / 3), (0.1, 0.2, 0.7))
LEVELS = ("nominal", "ordinal", "interval")
SAMPLES_PER_SCENARIO = 100  # 12 scenarios per (size, alpha): 1,200 intervals, +-0.006 around 0.95


def coders_data(rng: np.random.Generator, n: int, alpha: float, marginal: tuple[float, ...], coders: int) -> np.ndarray:
    truth = rng.choice(len(SCALE), size=n, p=marginal)
    keep = rng.random((coders, n)) < math.sqrt(alpha)
    return np.where(keep, truth, rng.choice(len(SCALE), size=(coders, n), p=marginal)).astype(np.float64)


def binomial_coverage(interval: object, n: int, p: float) -> float:
    ks = np.arange(n + 1)
    mass = np.array([math.comb(n, int(k)) for k in ks], dtype=np.float64) * p**ks * (1 - p) ** (n - ks)
    covered = [low <= p <= high for low, high in (interval(int(k), n) for k in ks)]  # type: ignore[operator]
    return float(mass[covered].sum())


def test_the_exact_agreement_interval_covers_at_every_size_it_is_printed() -> None:
    """Exact binomial sums, not simulation: every n from the printing floor to 300, rates 0.05 to 0.95."""
    rates = np.round(np.arange(0.05, 0.951, 0.05), 2)
    worst = min(
        (binomial_coverage(intervals.wilson_cc_interval, n, float(p)), n, float(p))
        for n in range(intervals.MIN_ITEMS_EXACT_INTERVAL, 301)
        for p in rates
    )
    assert worst[0] >= 0.95, f"coverage {worst[0]:.3f} at n = {worst[1]}, p = {worst[2]}"
    # Why not plain Wilson: at some (n, p) it covers less than 0.93 even at 40 items.
    assert binomial_coverage(intervals.wilson_interval, 40, 0.8) < 0.93


@pytest.mark.parametrize("n", [MIN_ITEMS_ALPHA_INTERVAL, 75, 100])
def test_the_alpha_interval_covers_the_population_alpha_from_its_minimum_size(n: int) -> None:
    for alpha in (0.0, 0.3, 0.6):
        hits = agreement_hits = pairs = total = 0
        for s, (level, marginal, coders) in enumerate(
            (level, marginal, coders) for level in LEVELS for marginal in MARGINALS for coders in (2, 3)
        ):
            rng = np.random.default_rng([n, int(alpha * 10), s])
            rate = alpha + (1 - alpha) * sum(m * m for m in marginal)  # two coders' exact agreement
            for _ in range(SAMPLES_PER_SCENARIO):
                data = coders_data(rng, n, alpha, marginal, coders)
                result = alpha_interval(data, level, SCALE, replicates=1000, seed=int(rng.integers(2**31)))
                assert result.ci is not None, result.ci_reason
                hits += result.ci[0] <= alpha <= result.ci[1]
                total += 1
                if coders == 2:
                    bounds = intervals.wilson_cc_interval(int((data[0] == data[1]).sum()), n)
                    assert bounds is not None
                    agreement_hits += bounds[0] <= rate <= bounds[1]
                    pairs += 1
        assert hits / total >= 0.93, f"alpha {alpha}, n = {n}: coverage {hits / total:.3f} of {total}"
        assert agreement_hits / pairs >= 0.93, f"agreement, alpha {alpha}, n = {n}: {agreement_hits / pairs:.3f}"


def test_below_the_minimum_no_alpha_interval_is_printed() -> None:
    rng = np.random.default_rng(1)
    for n in (3, 10, MIN_ITEMS_ALPHA_INTERVAL - 1):
        result = alpha_interval(coders_data(rng, n, 0.6, MARGINALS[0], 2), "ordinal", SCALE, replicates=200)
        assert result.value is not None and result.ci is None
        assert result.ci_reason == f"too few items for an interval (n = {n}; need ≥ {MIN_ITEMS_ALPHA_INTERVAL})"


def test_below_the_minimum_the_interval_would_under_cover() -> None:
    """The floor is not arbitrary: at 10 items the same interval covers less than 95% (0.91 measured with the
    smoothed lower bound; the plain BCa interval 0.84 to 0.90)."""
    hits = total = 0
    for s, (level, marginal, coders) in enumerate(
        (level, marginal, coders) for level in LEVELS for marginal in MARGINALS for coders in (2, 3)
    ):
        rng = np.random.default_rng([10, s])
        for _ in range(40):
            data = coders_data(rng, 10, 0.3, marginal, coders)
            result = alpha_interval(data, level, SCALE, replicates=500, seed=s, min_items=2)
            if result.ci is not None:
                total += 1
                hits += result.ci[0] <= 0.3 <= result.ci[1]
    assert hits / total < 0.93


@pytest.mark.parametrize("level", LEVELS)
def test_the_alpha_interval_covers_a_high_alpha_on_every_level(level: str) -> None:
    # Population alpha 0.9 at the printing floor of 50 items: the plain BCa interval covered 0.87-0.92 on
    # ordinal and interval axes (its lower bound too high). With the smoothed bootstrap's lower bound:
    # 0.98-0.99 measured. 400 intervals a level (two marginals, two and three coders): Monte Carlo sd 0.011
    # at 0.95, so 0.93 is about 2 sd below nominal.
    hits = total = 0
    for s, (marginal, coders) in enumerate((marginal, coders) for marginal in MARGINALS for coders in (2, 3)):
        rng = np.random.default_rng([MIN_ITEMS_ALPHA_INTERVAL, 90, s, LEVELS.index(level)])
        for _ in range(SAMPLES_PER_SCENARIO):
            data = coders_data(rng, MIN_ITEMS_ALPHA_INTERVAL, 0.9, marginal, coders)
            result = alpha_interval(data, level, SCALE, replicates=1000, seed=int(rng.integers(2**31)))
            if result.ci is None:  # no disagreement at all and no interval: not a miss, not a hit
                continue
            hits += result.ci[0] <= 0.9 <= result.ci[1]
            total += 1
    assert total >= 380 and hits / total >= 0.93, f"{level}: coverage {hits / total:.3f} of {total}"
