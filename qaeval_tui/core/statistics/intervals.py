"""Confidence intervals and sample sizes: Wilson intervals for a proportion (plain, and with
continuity correction for calibration verdicts), the n a target width needs, the n that would
decide a bar, and a paired bootstrap for a mean difference (the gate's deltas).

Where an interval is not shown to hold, none is printed: `too_few_items` is the state that says so.
The minimum sizes below were measured (tests/core/test_interval_coverage.py): the Wilson interval
with continuity correction (Newcombe 1998, method 4) covers a proportion at >= 0.95 for every n
from 10 to 300 and every rate from 0.05 to 0.95 on a 0.05 grid (exact binomial sums, the range
tested); plain Wilson covers less than 0.93 at some (n, p) even at n = 40 (0.928 at p = 0.8), and
less than 0.90 at small n and extreme rates, which is why verdicts use the corrected one. We
print an exact-agreement interval only from MIN_ITEMS_EXACT_INTERVAL items: a floor we chose (below
it an axis has no verdict anyway, and no coverage is claimed there).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

import numpy as np
import numpy.typing as npt

MIN_ITEMS_EXACT_INTERVAL = 10
"""Fewest judged items for which an exact-agreement interval is printed (a chosen floor; see above)."""

# Bound on replicates x resampled groups held at once, so memory stays modest on big sets.
MAX_BLOCK_ELEMENTS = 4_000_000


def check_confidence(confidence: float) -> None:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")


def _z(confidence: float) -> float:
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float] | None:
    """Wilson score interval without continuity correction; None when n == 0."""
    if n < 0 or not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n, got successes={successes}, n={n}")
    check_confidence(confidence)
    if n == 0:
        return None
    z = _z(confidence)
    p = successes / n
    denominator = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1.0 - p) / n + z * z / (4 * n * n)) / denominator
    # Exact ends at 0 and n: rounding would otherwise leave 1e-17 off the bound.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return (low, high)


def wilson_cc_interval(successes: float, n: int, confidence: float = 0.95) -> tuple[float, float] | None:
    """Wilson score interval with continuity correction (Newcombe 1998, method 4); None when n == 0.

    `successes` may be fractional (a rate times an n not yet reached: see `items_to_decide`).
    """
    if n < 0 or not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n, got successes={successes}, n={n}")
    check_confidence(confidence)
    if n == 0:
        return None
    z = _z(confidence)
    p = successes / n
    q = 1.0 - p
    denominator = 2.0 * (n + z * z)
    low = (2 * n * p + z * z - 1 - z * math.sqrt(max(0.0, z * z - 2 - 1 / n + 4 * p * (n * q + 1)))) / denominator
    high = (2 * n * p + z * z + 1 + z * math.sqrt(max(0.0, z * z + 2 - 1 / n + 4 * p * (n * q - 1)))) / denominator
    return (0.0 if successes == 0 else max(0.0, low), 1.0 if successes == n else min(1.0, high))


def too_few_items(n: int, need: int) -> str:
    """The state shown instead of an interval that would not hold."""
    return f"too few items for an interval (n = {n}; need ≥ {need})"


def items_to_decide(rate: float, bar: float, confidence: float = 0.95, limit: int = 1_000_000) -> int | None:
    """Smallest n at which the continuity-corrected Wilson interval around `rate` excludes `bar`.

    The observed rate is held fixed as n grows (the expected outcome of labelling more items like
    these); None when the rate equals the bar (no n decides it) or more than `limit` items would.
    """
    if rate == bar:
        return None

    def decided(n: int) -> bool:
        bounds = wilson_cc_interval(rate * n, n, confidence)
        assert bounds is not None
        return bounds[0] >= bar if rate > bar else bounds[1] < bar

    high = 1
    while not decided(high):
        high *= 2
        if high > limit:
            return None
    low = high // 2
    while high - low > 1:  # the interval narrows as n grows, so bisect
        middle = (low + high) // 2
        if decided(middle):
            high = middle
        else:
            low = middle
    return high


def _wilson_half_width(p: float, n: int, z: float) -> float:
    return z * math.sqrt(p * (1.0 - p) * n + z * z / 4.0) / (n + z * z)


def half_width_n(p: float, target_half_width: float = 0.10, confidence: float = 0.95) -> int:
    """Smallest n at which the Wilson interval around proportion p is narrower than +-target."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p must be a proportion, got {p}")
    if target_half_width <= 0.0:
        raise ValueError(f"target half-width must be positive, got {target_half_width}")
    check_confidence(confidence)
    z = _z(confidence)
    # The half-width strictly decreases in n (its derivative's sign is p(1-p)(z^2 - n) - z^2/2),
    # so bracket by doubling, then bisect.
    if _wilson_half_width(p, 1, z) < target_half_width:
        return 1
    high = 2
    while _wilson_half_width(p, high, z) >= target_half_width:
        high *= 2
    low = high // 2
    while high - low > 1:
        middle = (low + high) // 2
        if _wilson_half_width(p, middle, z) < target_half_width:
            high = middle
        else:
            low = middle
    return high


def paired_bootstrap_ci(
    differences: npt.ArrayLike, replicates: int = 2000, seed: int = 0, confidence: float = 0.95
) -> tuple[float, float]:
    """Percentile CI for the mean of per-case paired differences (cases resampled)."""
    values = np.asarray(differences, dtype=np.float64).ravel()
    if values.size == 0:
        raise ValueError("no paired differences to resample")
    if not np.isfinite(values).all():
        raise ValueError("paired differences must be finite numbers")
    if replicates < 1:
        raise ValueError(f"replicates must be at least 1, got {replicates}")
    check_confidence(confidence)
    distinct, frequency = np.unique(values, return_counts=True)
    n = values.size
    shares = frequency / n
    rng = np.random.default_rng(seed)
    means = np.empty(replicates, dtype=np.float64)
    # Scores take few distinct values, so resampled counts per distinct value are cheap.
    block = max(1, MAX_BLOCK_ELEMENTS // distinct.size)
    for start in range(0, replicates, block):
        stop = min(replicates, start + block)
        means[start:stop] = rng.multinomial(n, shares, size=stop - start) @ distinct / n
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(means, [tail, 1.0 - tail])
    return (float(low), float(high))


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
