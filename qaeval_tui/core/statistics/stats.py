"""Agreement statistics: numpy arrays in, frozen dataclasses out (intervals and sample sizes: `intervals`).

Pure functions with no knowledge of the store, label files or axes; per-axis reports are built
on top of them. A reliability matrix is coders x units, float, `np.nan` where a coder gave no
value. Undefined statistics are returned as a state with a reason, never as a number.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import krippendorff
import numpy as np
import numpy.typing as npt

from qaeval_tui.core.statistics.intervals import MAX_BLOCK_ELEMENTS, check_confidence

# Same names as the rubric's level of measurement (`core.rubric.Level`).
Level = Literal["nominal", "ordinal", "interval"]
LEVELS: tuple[Level, ...] = ("nominal", "ordinal", "interval")
KappaWeights = Literal["linear", "quadratic"] | None
AlphaState = Literal["ok", "undefined"]
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

REASON_TOO_FEW_VALUES = "fewer than two pairable values"
REASON_ONE_ITEM = "one item only: chance agreement cannot be estimated from a single item"
REASON_NO_VARIATION = "no variation (all pairable values identical)"
REASON_TOO_FEW_UNITS = "fewer than two pairable units to resample"
REASON_ALL_REPLICATES_UNDEFINED = "every bootstrap replicate had no variation"
REASON_NO_COMMON_UNITS = "no units coded by both"
REASON_KAPPA_NO_VARIATION = "expected disagreement is zero (both coders used only the same single category)"


@dataclass(frozen=True)
class AlphaEstimate:
    """Krippendorff's alpha point estimate; `value` is None exactly when `state` is undefined."""

    level: Level
    state: AlphaState
    value: float | None
    reason: str | None
    n_units: int
    n_units_pairable: int
    n_pairable_values: int


@dataclass(frozen=True)
class AlphaResult:
    """Point estimate plus a seeded percentile bootstrap CI that resamples pairable units."""

    estimate: AlphaEstimate
    ci: tuple[float, float] | None
    ci_reason: str | None
    confidence: float
    replicates: int
    seed: int
    n_replicates_dropped: int

    @property
    def value(self) -> float | None:
        return self.estimate.value

    @property
    def state(self) -> AlphaState:
        return self.estimate.state

    @property
    def reason(self) -> str | None:
        return self.estimate.reason


@dataclass(frozen=True)
class PairAgreement:
    """Agreement between two coders on the units both coded."""

    coder_a: str
    coder_b: str
    n_common: int
    raw_agreement: float | None
    kappa: float | None
    kappa_reason: str | None


def _as_reliability(reliability: npt.ArrayLike) -> FloatArray:
    data = np.asarray(reliability, dtype=np.float64)
    if data.ndim != 2:
        raise ValueError(f"reliability matrix must be 2-D (coders x units), got {data.ndim}-D")
    return data


def _distinct_ints(values: Sequence[int], minimum: int, what: str) -> IntArray:
    array = np.asarray(list(values), dtype=np.int64)
    if array.ndim != 1 or array.size < minimum:
        raise ValueError(f"{what} needs at least {minimum} value(s), got {array.tolist()}")
    if np.unique(array).size != array.size:
        raise ValueError(f"{what} has duplicate values: {array.tolist()}")
    return array


def _as_domain(value_domain: Sequence[int]) -> IntArray:
    return _distinct_ints(value_domain, 2, "value domain")


def _check_level(level: str) -> Level:
    for known in LEVELS:
        if level == known:
            return known
    raise ValueError(f"unknown level of measurement {level!r}; use one of {LEVELS}")


def _value_counts(data: FloatArray, domain: IntArray) -> IntArray:
    counts = np.stack([(data == v).sum(axis=0) for v in domain], axis=1).astype(np.int64)
    present = ~np.isnan(data)
    if counts.sum() != present.sum():
        in_domain = np.isin(data, domain) | ~present
        stray = data[~in_domain][0]
        raise ValueError(f"value {stray!r} is outside the value domain {domain.tolist()}")
    return counts


def value_counts(reliability: npt.ArrayLike, value_domain: Sequence[int]) -> IntArray:
    """Units x values matrix: how many coders gave each domain value to each unit."""
    return _value_counts(_as_reliability(reliability), _as_domain(value_domain))


def count_patterns(counts: IntArray) -> tuple[IntArray, IntArray]:
    """The distinct rows of a units x values count matrix in ascending (lexicographic) order, and how
    often each occurs: what `np.unique(counts, axis=0, return_counts=True)` returns.

    Each row is read as one integer (its counts as digits, the first column most significant, so the
    integers order as the rows do) and the integers are counted in a table indexed by them: linear in
    units, where the sort `np.unique` makes grew faster than the labels did. Many coders on a long
    scale make that table too large, and the integers are sorted instead.
    """
    unsigned = counts.ndim == 2 and counts.size > 0 and counts.min() >= 0
    base = int(counts.max()) + 1 if unsigned else 0
    if not unsigned or counts.shape[1] * math.log2(base) >= 62:  # the integers would overflow int64
        rows, tally = np.unique(counts, axis=0, return_counts=True)
        return rows.astype(np.int64), tally.astype(np.int64)
    width = counts.shape[1]
    digits = base ** np.arange(width - 1, -1, -1, dtype=np.int64)
    codes = counts.astype(np.int64) @ digits
    size = base**width
    if size <= max(4 * codes.size, 1 << 16):
        tally = np.bincount(codes, minlength=size)
        distinct = np.flatnonzero(tally)
        frequency = tally[distinct]
    else:
        distinct, frequency = np.unique(codes, return_counts=True)
    patterns: IntArray = (distinct[:, None] // digits[None, :]) % base
    return patterns.astype(np.int64), frequency.astype(np.int64)


def distribution(reliability: npt.ArrayLike, value_domain: Sequence[int]) -> dict[int, int]:
    """How often each domain value was given (zeros kept: an unused scale point is news)."""
    domain = _as_domain(value_domain)
    totals = _value_counts(_as_reliability(reliability), domain).sum(axis=0)
    return {int(v): int(c) for v, c in zip(domain, totals, strict=True)}


def _distances(level: Level, domain: IntArray, marginals: FloatArray) -> FloatArray:
    """Squared distance metric per replicate (R x V x V); ordinal depends on the marginals."""
    size = domain.size
    if level == "nominal":
        return np.broadcast_to(1.0 - np.eye(size), (marginals.shape[0], size, size))
    if level == "interval":
        values = domain.astype(np.float64)
        diff = (values[:, None] - values[None, :]) ** 2
        return np.broadcast_to(diff, (marginals.shape[0], size, size))
    # Krippendorff's ordinal metric: (sum of n_g from c to k - (n_c + n_k) / 2) ** 2.
    idx = np.arange(size)
    lo = np.minimum(idx[:, None], idx[None, :])
    hi = np.maximum(idx[:, None], idx[None, :])
    cumulative = np.cumsum(marginals, axis=1)
    between = cumulative[:, hi] - cumulative[:, lo] + marginals[:, lo]
    halves = (marginals[:, :, None] + marginals[:, None, :]) / 2.0
    result: FloatArray = (between - halves) ** 2
    return result


def weighted_alpha(
    counts: npt.ArrayLike, weights: npt.ArrayLike, level: str, value_domain: Sequence[int]
) -> FloatArray:
    """Alpha for each row of unit weights (replicates x units), NaN where undefined.

    A unit with weight w counts as w copies of itself, so all-ones weights give the plain
    alpha and multinomial counts give a bootstrap replicate. Each unit's coincidence
    contribution is computed once; replicates are one matrix product over them.
    """
    domain = _as_domain(value_domain)
    unit_counts = np.asarray(counts, dtype=np.float64)
    unit_weights = np.atleast_2d(np.asarray(weights, dtype=np.float64))
    if unit_counts.ndim != 2 or unit_counts.shape[1] != domain.size:
        raise ValueError("counts must be units x values, one column per domain value")
    if unit_weights.ndim != 2 or unit_weights.shape[1] != unit_counts.shape[0]:
        raise ValueError("weights must be replicates x units, one column per unit")
    return _weighted_alpha(unit_counts, unit_weights, _check_level(level), domain)


def _weighted_alpha(unit_counts: FloatArray, unit_weights: FloatArray, lvl: Level, domain: IntArray) -> FloatArray:
    size = domain.size
    per_unit = unit_counts.sum(axis=1)
    pairable = per_unit >= 2
    unit_counts, unit_weights = unit_counts[pairable], unit_weights[:, pairable]
    contributions = (unit_counts[:, :, None] * unit_counts[:, None, :] - unit_counts[:, :, None] * np.eye(size)) / (
        per_unit[pairable] - 1
    )[:, None, None]
    coincidences = (unit_weights @ contributions.reshape(-1, size * size)).reshape(-1, size, size)
    marginals = coincidences.sum(axis=2)
    total = marginals.sum(axis=1)
    delta = _distances(lvl, domain, marginals)
    observed = (coincidences * delta).sum(axis=(1, 2))
    expected = np.einsum("rc,rk,rck->r", marginals, marginals, delta)
    # alpha = 1 - D_o / D_e with D_o = sum(o * d) / n and D_e = sum(n_c n_k d) / (n (n - 1)).
    defined = (expected > 0) & (total > 1) & (unit_weights.sum(axis=1) >= 2)  # one item: undefined
    ratio = np.divide(observed * (total - 1), expected, out=np.zeros_like(observed), where=defined)
    alphas: FloatArray = np.where(defined, 1.0 - ratio, np.nan)
    return alphas


def _estimate(data: FloatArray, counts: IntArray, level: Level, domain: IntArray) -> AlphaEstimate:
    per_unit = counts.sum(axis=1)
    pairable = per_unit >= 2
    n_units_pairable = int(pairable.sum())
    n_pairable_values = int(per_unit[pairable].sum())

    def undefined(reason: str) -> AlphaEstimate:
        return AlphaEstimate(level, "undefined", None, reason, data.shape[1], n_units_pairable, n_pairable_values)

    if n_pairable_values < 2:
        return undefined(REASON_TOO_FEW_VALUES)
    if np.count_nonzero(counts[pairable].sum(axis=0)) < 2:
        return undefined(REASON_NO_VARIATION)
    if n_units_pairable < 2:  # the package would say 0.000 (or less), as if measured
        return undefined(REASON_ONE_ITEM)
    value = krippendorff.alpha(reliability_data=data, value_domain=domain, level_of_measurement=level)
    return AlphaEstimate(level, "ok", float(value), None, data.shape[1], n_units_pairable, n_pairable_values)


def alpha(reliability: npt.ArrayLike, level: str, value_domain: Sequence[int]) -> AlphaEstimate:
    """Krippendorff's alpha from the `krippendorff` package, or an undefined state with a reason."""
    lvl = _check_level(level)
    data = _as_reliability(reliability)
    domain = _as_domain(value_domain)
    return _estimate(data, _value_counts(data, domain), lvl, domain)


def alpha_bootstrap(
    reliability: npt.ArrayLike,
    level: str,
    value_domain: Sequence[int],
    replicates: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> AlphaResult:
    """Alpha with a percentile CI from a vectorized bootstrap over pairable units.

    Units with fewer than two values add nothing to alpha, so only pairable units are
    resampled. Units sharing a value-count pattern share a coincidence contribution, and
    resampling N units uniformly puts multinomial(N, pattern share) draws on each pattern;
    drawing those counts directly keeps a replicate's cost at the number of patterns.
    """
    if replicates < 1:
        raise ValueError(f"replicates must be at least 1, got {replicates}")
    check_confidence(confidence)
    lvl = _check_level(level)
    data = _as_reliability(reliability)
    domain = _as_domain(value_domain)
    counts = _value_counts(data, domain)
    estimate = _estimate(data, counts, lvl, domain)

    def result(ci: tuple[float, float] | None, reason: str | None, dropped: int) -> AlphaResult:
        return AlphaResult(estimate, ci, reason, confidence, replicates, seed, dropped)

    if estimate.state != "ok":
        return result(None, estimate.reason, 0)
    if estimate.n_units_pairable < 2:
        return result(None, REASON_TOO_FEW_UNITS, 0)
    pairable = counts[counts.sum(axis=1) >= 2]
    patterns, frequency = count_patterns(pairable)
    n_units = int(frequency.sum())
    shares = frequency / n_units
    rng = np.random.default_rng(seed)
    alphas = np.empty(replicates, dtype=np.float64)
    block = max(1, MAX_BLOCK_ELEMENTS // len(patterns))
    for start in range(0, replicates, block):
        stop = min(replicates, start + block)
        draws = rng.multinomial(n_units, shares, size=stop - start)
        alphas[start:stop] = _weighted_alpha(patterns.astype(np.float64), draws.astype(np.float64), lvl, domain)
    usable = alphas[np.isfinite(alphas)]
    dropped = replicates - usable.size
    if usable.size == 0:
        return result(None, REASON_ALL_REPLICATES_UNDEFINED, dropped)
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(usable, [tail, 1.0 - tail])
    return result((float(low), float(high)), None, dropped)


def raw_agreement(reliability: npt.ArrayLike) -> float | None:
    """Share of agreeing pairs among all unordered within-unit pairs of values; None if no pairs."""
    data = _as_reliability(reliability)
    present = ~np.isnan(data)
    agreeing = 0
    pairs = 0
    for i in range(data.shape[0]):
        for j in range(i + 1, data.shape[0]):
            both = present[i] & present[j]
            pairs += int(both.sum())
            agreeing += int((both & (data[i] == data[j])).sum())
    return agreeing / pairs if pairs else None


def _label_positions(values: npt.NDArray[np.generic], labels: FloatArray) -> IntArray:
    order = np.argsort(labels)
    sorted_labels = labels[order]
    found = np.searchsorted(sorted_labels, values).clip(0, labels.size - 1)
    unknown = sorted_labels[found] != values
    if unknown.any():
        raise ValueError(f"value {values[unknown][0]!r} is not one of the labels {labels.tolist()}")
    positions: IntArray = order[found].astype(np.int64)
    return positions


def confusion_matrix(a: npt.ArrayLike, b: npt.ArrayLike, labels: Sequence[int]) -> IntArray:
    """Counts of (a, b) label pairs: rows follow a, columns follow b, both in `labels` order."""
    first = np.asarray(a).ravel()
    second = np.asarray(b).ravel()
    if first.shape != second.shape:
        raise ValueError(f"a and b differ in length: {first.size} vs {second.size}")
    label_values = _distinct_ints(labels, 1, "labels").astype(np.float64)
    size = label_values.size
    cells = _label_positions(first, label_values) * size + _label_positions(second, label_values)
    matrix: IntArray = np.bincount(cells, minlength=size * size).reshape(size, size)
    return matrix.astype(np.int64)


def cohen_kappa(
    a: npt.ArrayLike, b: npt.ArrayLike, labels: Sequence[int], weights: KappaWeights = None
) -> float | None:
    """Cohen's kappa over the full label set, optionally linear/quadratic weighted.

    Weights use label positions in `labels` order (Cicchetti-Allison / Fleiss-Cohen), so a
    scale point nobody used still widens the scale. None when expected disagreement is zero.
    """
    if weights not in (None, "linear", "quadratic"):
        raise ValueError(f"unknown kappa weights {weights!r}; use None, 'linear' or 'quadratic'")
    table = confusion_matrix(a, b, labels).astype(np.float64)
    n = table.sum()
    size = table.shape[0]
    if n == 0 or size < 2:
        return None
    idx = np.arange(size)
    steps = np.abs(idx[:, None] - idx[None, :]) / (size - 1)
    if weights is None:
        disagreement = (steps > 0).astype(np.float64)
    elif weights == "linear":
        disagreement = steps
    else:
        disagreement = steps**2
    observed = float((disagreement * table).sum() / n)
    expected = float((disagreement * np.outer(table.sum(axis=1), table.sum(axis=0))).sum() / n**2)
    if expected <= 0.0:
        return None
    return 1.0 - observed / expected


def pairwise_agreement(
    reliability: npt.ArrayLike,
    coder_names: Sequence[str],
    *,
    labels: Sequence[int] | None = None,
    weights: KappaWeights = None,
) -> list[PairAgreement]:
    """Raw agreement and Cohen's kappa for every coder pair on the units both coded.

    Without `labels`, every value seen anywhere in the matrix is a label, so all pairs are
    scored on the same scale.
    """
    data = _as_reliability(reliability)
    if len(coder_names) != data.shape[0]:
        raise ValueError(f"{len(coder_names)} coder names for {data.shape[0]} coders")
    present = ~np.isnan(data)
    if labels is None:
        labels = [int(v) for v in np.unique(data[present])]
    pairs: list[PairAgreement] = []
    for i in range(data.shape[0]):
        for j in range(i + 1, data.shape[0]):
            both = present[i] & present[j]
            n_common = int(both.sum())
            if n_common == 0:
                pairs.append(PairAgreement(coder_names[i], coder_names[j], 0, None, None, REASON_NO_COMMON_UNITS))
                continue
            first, second = data[i, both], data[j, both]
            kappa = cohen_kappa(first, second, labels, weights)
            pairs.append(
                PairAgreement(
                    coder_names[i],
                    coder_names[j],
                    n_common,
                    float(np.mean(first == second)),
                    kappa,
                    None if kappa is not None else REASON_KAPPA_NO_VARIATION,
                )
            )
    return pairs
