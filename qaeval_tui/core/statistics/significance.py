"""Significance of a paired mean difference, and Holm's correction over a family of tests.

The test is the paired sign-flip permutation test (Fisher's randomization test for paired data):
under "no change", each case's difference is as likely to have the opposite sign, so the observed
sum of differences is compared with the sums over sign flips. Two-sided. Cases of equal magnitude
are exchangeable, so the flipped sum is a sum over the distinct magnitudes of magnitude x (2 B - count),
B ~ Binomial(count, 1/2):
- exact when those binomials have at most EXACT_MAX_PATTERNS joint outcomes (the product of
  count + 1 over the distinct magnitudes): p = P(|flipped sum| >= |observed sum|), enumerated. This
  covers every test with at most 16 cases that changed, and any number of cases changing by the
  same amount (a pass/fail metric);
- otherwise Monte Carlo, seeded: p = (1 + #{|flipped sum| >= |observed sum|}) / (replicates + 1),
  which never understates p (Phipson & Smyth 2010, "Permutation p-values should never be zero"),
  stopped early once STOP_AFTER flips reached the observed sum (p = STOP_AFTER / flips drawn, Besag
  & Clifford 1991): a p-value that large is far from any level the gate tests at.

Neither can give every p-value: with n cases that changed no sign pattern is rarer than the two
where all of them move together, so p >= 2^(1 - n) (exact), and Monte Carlo never goes below
1 / (replicates + 1). `smallest_p_value` is that floor; a test whose floor is above the level it is
judged at cannot find anything significant, whatever the data (core/gate/statistical.py refuses then).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from qaeval_tui.core.statistics.intervals import MAX_BLOCK_ELEMENTS

# Flipped sums this close to the observed one count as reaching it (float sums of equal terms).
_TIE = 1e-9
# Joint outcomes of the per-magnitude binomials enumerated exactly (2^16: every test on <= 16 changed cases).
EXACT_MAX_PATTERNS = 2**16

Method = Literal["exact", "monte carlo"]
# Monte Carlo stops at this many flips reaching the observed sum (Besag & Clifford), first block of flips.
STOP_AFTER = 20
FIRST_BLOCK = 256
COINS_UP_TO = 32  # a magnitude at most this many cases share is flipped case by case


@dataclass(frozen=True)
class SignFlipTest:
    p_value: float
    method: Method
    n_nonzero: int  # cases whose difference is not 0: the only ones a flip moves
    replicates: int  # random flips drawn (0 when exact)

    @property
    def smallest_p_value(self) -> float:
        """The smallest p-value this test could have given on cases that changed as many as these."""
        return smallest_p_value(self.n_nonzero, None if self.method == "exact" else self.replicates)


def smallest_p_value(n_nonzero: int, replicates: int | None = None) -> float:
    """The floor of the sign-flip p-value: 2^(1 - n) with n cases that changed (1 when none did), and
    no lower than 1 / (replicates + 1) by Monte Carlo (`replicates` None: exact)."""
    exact = 1.0 if n_nonzero < 1 else min(1.0, 2.0 ** (1 - n_nonzero))
    return exact if replicates is None else max(exact, 1.0 / (replicates + 1))


def sign_flip_test(differences: npt.ArrayLike, replicates: int = 2000, seed: int = 0) -> SignFlipTest:
    """Two-sided test of a paired mean difference of zero: exact when small enough, else seeded random flips."""
    values = np.asarray(differences, dtype=np.float64).ravel()
    if values.size == 0:
        raise ValueError("no paired differences to test")
    if not np.isfinite(values).all():
        raise ValueError("paired differences must be finite numbers")
    if replicates < 1:
        raise ValueError(f"replicates must be at least 1, got {replicates}")
    observed = abs(float(values.sum()))
    magnitudes, counts = np.unique(np.abs(values[values != 0.0]), return_counts=True)
    n_nonzero = int(counts.sum())
    if magnitudes.size == 0:
        return SignFlipTest(1.0, "exact", 0, 0)
    reach = observed - _TIE * max(1.0, observed)
    if math.prod(int(count) + 1 for count in counts) <= EXACT_MAX_PATTERNS:
        return SignFlipTest(_exact_p_value(magnitudes, counts, reach), "exact", n_nonzero, 0)
    return SignFlipTest(
        _monte_carlo_p_value(magnitudes, counts, reach, replicates, seed), "monte carlo", n_nonzero, replicates
    )


def sign_flip_p_value(differences: npt.ArrayLike, replicates: int = 2000, seed: int = 0) -> float:
    """Two-sided p-value of a paired mean difference of zero (see `sign_flip_test`)."""
    return sign_flip_test(differences, replicates, seed).p_value


def _binomial_half(count: int) -> npt.NDArray[np.float64]:
    """P(B = k), k = 0..count, B ~ Binomial(count, 1/2), through logs (count may be in the thousands)."""
    k = np.arange(1, count + 1, dtype=np.float64)
    log_choose = np.concatenate(([0.0], np.cumsum(np.log(count - k + 1) - np.log(k))))
    return np.exp(log_choose - count * math.log(2.0))


def _exact_p_value(magnitudes: npt.NDArray[np.float64], counts: npt.NDArray[np.int64], reach: float) -> float:
    sums = np.zeros(1)
    weights = np.ones(1)
    for magnitude, count in zip(magnitudes, counts, strict=True):
        steps = float(magnitude) * (2.0 * np.arange(int(count) + 1) - int(count))
        sums = (sums[:, None] + steps[None, :]).ravel()
        weights = (weights[:, None] * _binomial_half(int(count))[None, :]).ravel()
    return min(1.0, float(weights[np.abs(sums) >= reach].sum()))


def _monte_carlo_p_value(
    magnitudes: npt.NDArray[np.float64], counts: npt.NDArray[np.int64], reach: float, replicates: int, seed: int
) -> float:
    # A magnitude many cases share is one binomial draw per replicate; the others are one fair coin per
    # case, drawn as random bits (far cheaper than small binomials) and summed by a matrix product.
    many = counts > COINS_UP_TO
    shared, shared_counts = magnitudes[many], counts[many]
    coins = np.repeat(magnitudes[~many], counts[~many])
    # Sequential (Besag & Clifford 1991, "Sequential Monte Carlo p-values", Biometrika 78:301): stop at the
    # STOP_AFTER-th flip reaching the observed sum, L flips in: p = STOP_AFTER / L, as valid as the full
    # run, which a p-value that large could not have changed into a significant one. Blocks start small
    # and double, so a change far from significance costs a few hundred flips, not all of them.
    rng = np.random.default_rng(seed)
    reached = drawn = 0
    largest = max(1, MAX_BLOCK_ELEMENTS // (shared.size + coins.size))
    size = min(FIRST_BLOCK, largest)
    while drawn < replicates:
        size = min(size, replicates - drawn)
        sums = (2 * rng.binomial(shared_counts, 0.5, size=(size, shared.size)) - shared_counts) @ shared
        if coins.size:
            random_bytes = rng.integers(0, 256, size=(size, (coins.size + 7) // 8), dtype=np.uint8)
            bits = np.unpackbits(random_bytes, axis=1, count=coins.size).astype(np.float64)
            sums += 2.0 * (bits @ coins) - coins.sum()
        running = reached + np.cumsum(np.abs(sums) >= reach)
        if running[-1] >= STOP_AFTER:
            return STOP_AFTER / (drawn + int(np.argmax(running >= STOP_AFTER)) + 1)
        reached, drawn = int(running[-1]), drawn + size
        size = min(2 * size, largest)
    return (1 + reached) / (replicates + 1)


def holm_adjusted(p_values: Sequence[float]) -> list[float]:
    """Holm (1979) step-down adjusted p-values, in the input's order: the running maximum over the
    sorted p-values of (m - rank + 1) x p, capped at 1. A hypothesis is rejected at level alpha
    exactly when its adjusted p-value is at most alpha."""
    m = len(p_values)
    order = sorted(range(m), key=lambda index: p_values[index])
    adjusted = [0.0] * m
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted
