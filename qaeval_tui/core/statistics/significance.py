"""Significance of a paired mean difference, and Holm's correction over a family of tests.

The test is the paired sign-flip permutation test (Fisher's randomization test for paired data):
under "no change", each case's difference is as likely to have the opposite sign, so the observed
sum of differences is compared with the sums over random sign flips. Two-sided, seeded, and
Monte Carlo: p = (1 + #{|flipped sum| >= |observed sum|}) / (replicates + 1), which never
understates p (Phipson & Smyth 2010, "Permutation p-values should never be zero").
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from qaeval_tui.core.statistics.intervals import MAX_BLOCK_ELEMENTS

# Flipped sums this close to the observed one count as reaching it (float sums of equal terms).
_TIE = 1e-9


def sign_flip_p_value(differences: npt.ArrayLike, replicates: int = 2000, seed: int = 0) -> float:
    """Two-sided p-value of a paired mean difference of zero, by random sign flips (seeded)."""
    values = np.asarray(differences, dtype=np.float64).ravel()
    if values.size == 0:
        raise ValueError("no paired differences to test")
    if not np.isfinite(values).all():
        raise ValueError("paired differences must be finite numbers")
    if replicates < 1:
        raise ValueError(f"replicates must be at least 1, got {replicates}")
    observed = abs(float(values.sum()))
    magnitudes, counts = np.unique(np.abs(values[values != 0.0]), return_counts=True)
    if magnitudes.size == 0:
        return 1.0
    # Cases of equal magnitude are exchangeable: their flipped sum is magnitude x (2 B - count),
    # B ~ Binomial(count, 1/2), so a replicate costs one draw per distinct magnitude, not per case.
    # A magnitude only one case has is a fair coin: random bits, several times faster than binomials.
    single = counts == 1
    lone, shared, shared_counts = magnitudes[single], magnitudes[~single], counts[~single]
    rng = np.random.default_rng(seed)
    reached = 0
    block = max(1, MAX_BLOCK_ELEMENTS // magnitudes.size)
    for start in range(0, replicates, block):
        size = min(replicates, start + block) - start
        sums = (2 * rng.binomial(shared_counts, 0.5, size=(size, shared.size)) - shared_counts) @ shared
        if lone.size:
            sums += 2.0 * (rng.integers(0, 2, size=(size, lone.size), dtype=np.int8) @ lone) - lone.sum()
        reached += int(np.count_nonzero(np.abs(sums) >= observed - _TIE * max(1.0, observed)))
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
