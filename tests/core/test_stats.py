"""Statistics layer: published worked examples first, then properties (hypothesis)."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qaeval_tui.core.statistics import intervals, stats

NAN = np.nan

# Krippendorff (2011) "Computing Krippendorff's Alpha-Reliability", section C: 4 observers x 12
# units, values 1..5, with missing data. Published: nominal 0.743, ordinal 0.815, interval 0.849;
# n = 40 pairable values (unit 12 has a single value, so 11 pairable units).
KRIPPENDORFF_2011 = np.array(
    [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
        [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
    ]
)
KRIPPENDORFF_2011_DOMAIN = [1, 2, 3, 4, 5]
KRIPPENDORFF_2011_ALPHA = {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849}
DOMAIN = [0, 1, 2]


def expand_table(table: list[list[int]], labels: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Turn a rater-A-by-rater-B count table into the two raters' rating vectors."""
    first: list[int] = []
    second: list[int] = []
    for i, row in enumerate(table):
        for j, count in enumerate(row):
            first += [labels[i]] * count
            second += [labels[j]] * count
    return np.array(first), np.array(second)


@st.composite
def reliability_matrices(draw: st.DrawFn, max_coders: int = 5, max_units: int = 12) -> np.ndarray:
    coders = draw(st.integers(2, max_coders))
    units = draw(st.integers(1, max_units))
    size = coders * units
    cells = draw(st.lists(st.one_of(st.none(), st.sampled_from(DOMAIN)), min_size=size, max_size=size))
    return np.array([NAN if c is None else c for c in cells], dtype=float).reshape(coders, units)


def noisy_coders(seed: int, coders: int, units: int, accuracy: float = 0.75) -> np.ndarray:
    """Ordinary labelling data: coders copy a true 0..2 label with some noise and gaps."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, units)
    data = np.where(rng.random((coders, units)) < accuracy, truth, rng.integers(0, 3, (coders, units)))
    data = data.astype(float)
    data[rng.random(data.shape) < 0.1] = NAN
    return data


# --- Krippendorff's alpha: published example ------------------------------------------------


@pytest.mark.parametrize("level", stats.LEVELS)
def test_alpha_reproduces_krippendorff_2011(level: stats.Level) -> None:
    estimate = stats.alpha(KRIPPENDORFF_2011, level, KRIPPENDORFF_2011_DOMAIN)
    assert estimate.state == "ok"
    assert estimate.reason is None
    assert estimate.value is not None
    assert round(estimate.value, 3) == KRIPPENDORFF_2011_ALPHA[level]
    assert (estimate.n_units, estimate.n_units_pairable, estimate.n_pairable_values) == (12, 11, 40)


@pytest.mark.parametrize("level", stats.LEVELS)
def test_vectorized_all_ones_weights_reproduce_krippendorff_2011(level: stats.Level) -> None:
    counts = stats.value_counts(KRIPPENDORFF_2011, KRIPPENDORFF_2011_DOMAIN)
    vectorized = stats.weighted_alpha(counts, np.ones((1, 12)), level, KRIPPENDORFF_2011_DOMAIN)[0]
    package = krippendorff.alpha(
        reliability_data=KRIPPENDORFF_2011, value_domain=KRIPPENDORFF_2011_DOMAIN, level_of_measurement=level
    )
    assert vectorized == pytest.approx(package, abs=1e-9)
    assert round(vectorized, 3) == KRIPPENDORFF_2011_ALPHA[level]


@pytest.mark.parametrize("level", stats.LEVELS)
def test_bootstrap_reports_package_estimate_and_its_settings(level: stats.Level) -> None:
    result = stats.alpha_bootstrap(KRIPPENDORFF_2011, level, KRIPPENDORFF_2011_DOMAIN, 500, 7, 0.9)
    assert result.value is not None
    assert round(result.value, 3) == KRIPPENDORFF_2011_ALPHA[level]
    assert (result.replicates, result.seed, result.confidence) == (500, 7, 0.9)
    assert result.ci is not None
    assert result.ci[0] <= result.value <= result.ci[1] <= 1.0


# --- the vectorized path equals the package -------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(reliability_matrices(), st.sampled_from(stats.LEVELS))
def test_all_ones_weights_equal_package(data: np.ndarray, level: stats.Level) -> None:
    estimate = stats.alpha(data, level, DOMAIN)
    counts = stats.value_counts(data, DOMAIN)
    vectorized = stats.weighted_alpha(counts, np.ones((1, data.shape[1])), level, DOMAIN)[0]
    if estimate.value is None:
        assert np.isnan(vectorized)
    else:
        assert vectorized == pytest.approx(estimate.value, abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(reliability_matrices(max_units=15), st.sampled_from(stats.LEVELS), st.integers(0, 2**32 - 1))
def test_resample_weights_equal_package_on_resampled_matrix(data: np.ndarray, level: stats.Level, seed: int) -> None:
    """Each replicate's weights (how often each unit was drawn) give the alpha of its resampled data.

    Several replicates go through one call, as in the bootstrap, so a metric that leaked
    marginals across replicates (ordinal depends on them) would be caught.
    """
    units = data.shape[1]
    draws = np.random.default_rng(seed).integers(0, units, (6, units))
    weights = np.stack([np.bincount(drawn, minlength=units) for drawn in draws])
    vectorized = stats.weighted_alpha(stats.value_counts(data, DOMAIN), weights, level, DOMAIN)
    for drawn, replicate in zip(draws, vectorized, strict=True):
        expected = stats.alpha(data[:, drawn], level, DOMAIN)
        if expected.value is None:
            assert np.isnan(replicate)
        else:
            assert replicate == pytest.approx(expected.value, abs=1e-9)


def test_identical_units_can_be_merged_into_one_weighted_pattern() -> None:
    data = noisy_coders(seed=3, coders=4, units=300)
    counts = stats.value_counts(data, DOMAIN)
    patterns, frequency = np.unique(counts, axis=0, return_counts=True)
    per_unit = stats.weighted_alpha(counts, np.ones((1, 300)), "ordinal", DOMAIN)[0]
    per_pattern = stats.weighted_alpha(patterns, frequency[None, :], "ordinal", DOMAIN)[0]
    assert len(patterns) < 300
    assert per_pattern == pytest.approx(per_unit, abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 60).flatmap(
        lambda units: st.lists(st.lists(st.integers(0, 7), min_size=units, max_size=units), min_size=1, max_size=4).map(
            lambda columns: np.array(columns, dtype=np.int64).T
        )
    ),
    st.sampled_from([1, 40, 10**6, 10**15]),
)
def test_count_patterns_is_numpys_unique_rows(counts: np.ndarray, scale: int) -> None:
    # Scaled counts take the other ways: a tally too large to index (sorted integers), integers that
    # would overflow int64 (numpy's own unique rows).
    counts = counts * scale
    patterns, frequency = stats.count_patterns(counts)
    expected_patterns, expected_frequency = np.unique(counts, axis=0, return_counts=True)
    assert patterns.dtype == np.int64 and frequency.dtype == np.int64
    assert np.array_equal(patterns, expected_patterns) and np.array_equal(frequency, expected_frequency)


# --- alpha properties -----------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.sampled_from(DOMAIN), min_size=2, max_size=20).filter(lambda v: len(set(v)) > 1),
    st.integers(2, 5),
    st.sampled_from(stats.LEVELS),
)
def test_alpha_is_one_for_perfect_agreement_with_variation(truth: list[int], coders: int, level: stats.Level) -> None:
    data = np.tile(np.array(truth, dtype=float), (coders, 1))
    assert stats.alpha(data, level, DOMAIN).value == pytest.approx(1.0)
    assert stats.raw_agreement(data) == 1.0


@settings(max_examples=100, deadline=None)
@given(reliability_matrices(), st.sampled_from(stats.LEVELS), st.integers(0, 2**32 - 1))
def test_alpha_ignores_coder_and_unit_order(data: np.ndarray, level: stats.Level, seed: int) -> None:
    rng = np.random.default_rng(seed)
    shuffled = data[rng.permutation(data.shape[0])][:, rng.permutation(data.shape[1])]
    original = stats.alpha(data, level, DOMAIN)
    permuted = stats.alpha(shuffled, level, DOMAIN)
    assert (permuted.state, permuted.reason) == (original.state, original.reason)
    if original.value is not None:
        assert permuted.value == pytest.approx(original.value, abs=1e-12)


@settings(max_examples=50, deadline=None)
@given(st.sampled_from(DOMAIN), st.integers(2, 5), st.integers(2, 20), st.sampled_from(stats.LEVELS))
def test_no_variation_is_undefined_not_a_number(value: int, coders: int, units: int, level: stats.Level) -> None:
    data = np.full((coders, units), float(value))
    estimate = stats.alpha(data, level, DOMAIN)
    assert (estimate.state, estimate.value, estimate.reason) == ("undefined", None, stats.REASON_NO_VARIATION)
    result = stats.alpha_bootstrap(data, level, DOMAIN, replicates=50)
    assert (result.ci, result.ci_reason) == (None, stats.REASON_NO_VARIATION)


def test_variation_only_in_unpairable_values_is_still_no_variation() -> None:
    # The lone 2 in unit 3 has no partner, so it cannot create disagreement.
    data = np.array([[1, 1, 2], [1, 1, NAN]], dtype=float)
    assert stats.alpha(data, "nominal", DOMAIN).reason == stats.REASON_NO_VARIATION


@pytest.mark.parametrize(
    "data",
    [
        np.array([[0, 1, 2]], dtype=float),  # one coder
        np.array([[0, NAN, 2], [NAN, 1, NAN]]),  # every unit has a single value
        np.empty((3, 0)),  # no units
    ],
)
def test_fewer_than_two_pairable_values_is_undefined(data: np.ndarray) -> None:
    estimate = stats.alpha(data, "ordinal", DOMAIN)
    assert (estimate.state, estimate.value, estimate.reason) == ("undefined", None, stats.REASON_TOO_FEW_VALUES)
    assert estimate.n_units_pairable == 0
    result = stats.alpha_bootstrap(data, "ordinal", DOMAIN)
    assert (result.ci, result.ci_reason, result.n_replicates_dropped) == (None, stats.REASON_TOO_FEW_VALUES, 0)


def test_bad_input_is_an_error_not_a_statistic() -> None:
    with pytest.raises(ValueError, match="outside the value domain"):
        stats.alpha(np.array([[0, 1], [1, 7]], dtype=float), "nominal", DOMAIN)
    with pytest.raises(ValueError, match="unknown level"):
        stats.alpha(np.array([[0, 1], [1, 0]], dtype=float), "ratio", DOMAIN)
    with pytest.raises(ValueError, match="at least 2"):
        stats.alpha(np.array([[0, 0], [0, 0]], dtype=float), "nominal", [0])
    with pytest.raises(ValueError, match="2-D"):
        stats.alpha(np.array([0, 1, 2], dtype=float), "nominal", DOMAIN)


# --- bootstrap ------------------------------------------------------------------------------


def test_bootstrap_is_deterministic_for_a_seed() -> None:
    data = noisy_coders(seed=11, coders=3, units=80)
    first = stats.alpha_bootstrap(data, "ordinal", DOMAIN, replicates=300, seed=5)
    again = stats.alpha_bootstrap(data, "ordinal", DOMAIN, replicates=300, seed=5)
    other = stats.alpha_bootstrap(data, "ordinal", DOMAIN, replicates=300, seed=6)
    assert first == again
    assert first.ci != other.ci


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 5), st.integers(60, 200), st.sampled_from(stats.LEVELS))
def test_bootstrap_ci_contains_estimate_on_ordinary_data(seed: int, coders: int, units: int, level: str) -> None:
    result = stats.alpha_bootstrap(noisy_coders(seed, coders, units), level, DOMAIN, replicates=400, seed=seed)
    assert result.value is not None
    assert result.ci is not None
    assert result.ci[0] < result.value < result.ci[1]


def test_bootstrap_ci_narrows_with_more_units() -> None:
    small = stats.alpha_bootstrap(noisy_coders(1, 3, 100), "nominal", DOMAIN, replicates=500)
    large = stats.alpha_bootstrap(noisy_coders(1, 3, 2500), "nominal", DOMAIN, replicates=500)
    assert small.ci is not None and large.ci is not None
    assert (large.ci[1] - large.ci[0]) < (small.ci[1] - small.ci[0]) / 3


def test_bootstrap_drops_and_counts_replicates_without_variation() -> None:
    # Two units in perfect agreement, one per value: a replicate drawing the same unit twice
    # has no variation (about half of them), which must be dropped, not scored.
    data = np.array([[0, 2], [0, 2], [0, 2]], dtype=float)
    result = stats.alpha_bootstrap(data, "interval", DOMAIN, replicates=400, seed=3)
    assert result.value == pytest.approx(1.0)
    assert 100 < result.n_replicates_dropped < 300
    assert result.ci == (1.0, 1.0)


def test_bootstrap_without_any_usable_replicate_has_no_ci() -> None:
    # Seed 3 draws one of the two units twice in all three replicates.
    data = np.array([[0, 2], [0, 2]], dtype=float)
    result = stats.alpha_bootstrap(data, "nominal", DOMAIN, replicates=3, seed=3)
    assert result.value == pytest.approx(1.0)
    assert (result.ci, result.ci_reason, result.n_replicates_dropped) == (
        None,
        stats.REASON_ALL_REPLICATES_UNDEFINED,
        3,
    )


def test_bootstrap_needs_two_pairable_units() -> None:
    # One pairable unit: the package says 0.0, but chance cannot be estimated from one item.
    data = np.array([[0, 1, NAN], [1, NAN, 2]], dtype=float)
    result = stats.alpha_bootstrap(data, "nominal", DOMAIN)
    assert (result.state, result.value, result.reason) == ("undefined", None, stats.REASON_ONE_ITEM)
    assert (result.ci, result.ci_reason) == (None, stats.REASON_ONE_ITEM)


# --- raw agreement and distribution ---------------------------------------------------------


def test_raw_agreement_counts_pairs_within_units() -> None:
    # Unit 1: 3 values, pairs (0,0) (0,1) (0,1) -> 1 of 3 agree; unit 2: (2,2) agrees;
    # unit 3: a lone value has no pair. Share = 2 / 4.
    data = np.array([[0, 2, 1], [0, 2, NAN], [1, NAN, NAN]], dtype=float)
    assert stats.raw_agreement(data) == 0.5
    assert stats.raw_agreement(np.array([[0, NAN], [NAN, 1]], dtype=float)) is None


def test_distribution_keeps_unused_scale_points() -> None:
    assert stats.distribution(KRIPPENDORFF_2011, [1, 2, 3, 4, 5, 6]) == {1: 9, 2: 13, 3: 11, 4: 5, 5: 3, 6: 0}


# --- Cohen's kappa --------------------------------------------------------------------------


def test_cohen_kappa_wikipedia_example() -> None:
    """Wikipedia "Cohen's kappa", worked example: 20/5/10/15 yes-no table, p_o 0.7, p_e 0.5, kappa 0.4."""
    a, b = expand_table([[20, 5], [10, 15]], [1, 0])
    assert stats.cohen_kappa(a, b, [1, 0]) == pytest.approx(0.4)


def test_weighted_kappa_sas_example_with_a_category_one_rater_never_used() -> None:
    """SAS PROC FREQ /AGREE output reproduced in J. Uebersax, "Calculating Kappa with SAS"
    (john-uebersax.com/stat/saskappa.htm), also used in statsmodels' inter-rater tests:
    simple kappa 0.3333, weighted kappa 0.2895 (SAS default Cicchetti-Allison = linear weights).

    By hand (n = 72, rows 0/24/48, columns 13/28/31): simple 1 - (28/72)/(3024/5184) = 1/3;
    linear 1 - (18/72)/(1824/5184) = 11/38 = 0.28947; quadratic 1 - (13/72)/(1224/5184) = 4/17.
    """
    labels = [1, 2, 3]
    a, b = expand_table([[0, 0, 0], [5, 16, 3], [8, 12, 28]], labels)
    assert round(stats.cohen_kappa(a, b, labels) or 0.0, 4) == 0.3333
    assert round(stats.cohen_kappa(a, b, labels, "linear") or 0.0, 4) == 0.2895
    assert stats.cohen_kappa(a, b, labels, "linear") == pytest.approx(11 / 38)
    assert stats.cohen_kappa(a, b, labels, "quadratic") == pytest.approx(4 / 17)


def test_unused_label_counts_for_weighted_kappa_only() -> None:
    a, b = expand_table([[0, 0, 0], [5, 16, 3], [8, 12, 28]], [1, 2, 3])
    # An unused fourth scale point has no marginal mass: plain kappa is unchanged, but it
    # stretches the scale, so every weighted disagreement shrinks relative to the maximum.
    assert stats.cohen_kappa(a, b, [1, 2, 3, 4]) == pytest.approx(1 / 3)
    assert stats.cohen_kappa(a, b, [1, 2, 3, 4], "linear") == pytest.approx(11 / 38)
    assert stats.cohen_kappa(a, b, [1, 2, 3, 4], "quadratic") == pytest.approx(4 / 17)
    assert stats.confusion_matrix(a, b, [1, 2, 3, 4])[3].tolist() == [0, 0, 0, 0]


def test_cohen_kappa_undefined_cases_are_none() -> None:
    same = np.array([2, 2, 2])
    assert stats.cohen_kappa(same, same, DOMAIN) is None  # expected disagreement is zero
    assert stats.cohen_kappa(same, same, DOMAIN, "quadratic") is None
    assert stats.cohen_kappa(np.array([]), np.array([]), DOMAIN) is None
    # Opposite constant raters still disagree more than chance would: defined, and zero.
    assert stats.cohen_kappa(np.array([0, 0]), np.array([2, 2]), DOMAIN) == 0.0


def test_confusion_matrix_rows_follow_first_rater() -> None:
    matrix = stats.confusion_matrix([0, 0, 1, 2], [0, 1, 1, 1], DOMAIN)
    assert matrix.tolist() == [[1, 1, 0], [0, 1, 0], [0, 1, 0]]
    with pytest.raises(ValueError, match="not one of the labels"):
        stats.confusion_matrix([0, 5], [0, 1], DOMAIN)
    with pytest.raises(ValueError, match="differ in length"):
        stats.confusion_matrix([0, 1], [0], DOMAIN)


def test_pairwise_agreement_uses_common_units_only() -> None:
    data = np.array(
        [
            [0, 1, 2, 2, NAN],
            [0, 1, 2, 1, 2],
            [NAN, NAN, NAN, NAN, 1],
        ]
    )
    ab, ac, bc = stats.pairwise_agreement(data, ["ann", "bob", "cy"])
    assert (ab.coder_a, ab.coder_b, ab.n_common, ab.raw_agreement) == ("ann", "bob", 4, 0.75)
    # ann 0,1,2,2 vs bob 0,1,2,1: p_o = 3/4, p_e = (1*1 + 1*2 + 2*1)/16 = 5/16 -> kappa = 7/11.
    assert ab.kappa == pytest.approx(7 / 11)
    assert (ac.n_common, ac.raw_agreement, ac.kappa, ac.kappa_reason) == (0, None, None, stats.REASON_NO_COMMON_UNITS)
    assert (bc.n_common, bc.raw_agreement, bc.kappa) == (1, 0.0, 0.0)


def test_pairwise_agreement_reports_why_kappa_is_missing() -> None:
    (pair,) = stats.pairwise_agreement(np.array([[1, 1], [1, 1]], dtype=float), ["a", "b"], labels=DOMAIN)
    assert (pair.raw_agreement, pair.kappa, pair.kappa_reason) == (1.0, None, stats.REASON_KAPPA_NO_VARIATION)


# --- Wilson interval and sample size --------------------------------------------------------


@pytest.mark.parametrize(
    ("successes", "n", "low", "high"),
    [
        # Newcombe (1998) "Two-sided confidence intervals for the single proportion: comparison of
        # seven methods", Stat Med 17:857-872, Table II, method 3 (Wilson score, no correction).
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0000, 0.1611),
        (1, 29, 0.0061, 0.1718),
        (29, 29, 0.8830, 1.0000),
    ],
)
def test_wilson_interval_newcombe_1998(successes: int, n: int, low: float, high: float) -> None:
    interval = intervals.wilson_interval(successes, n)
    assert interval is not None
    assert (round(interval[0], 4), round(interval[1], 4)) == (low, high)


def test_wilson_interval_edges() -> None:
    assert intervals.wilson_interval(0, 0) is None
    empty_five = intervals.wilson_interval(0, 5)
    assert empty_five is not None
    assert empty_five[0] == 0.0
    assert empty_five[1] == pytest.approx(0.4345, abs=1e-4)  # z^2 / (n + z^2)
    with pytest.raises(ValueError):
        intervals.wilson_interval(6, 5)
    narrow = intervals.wilson_interval(50, 100, confidence=0.8)
    wide = intervals.wilson_interval(50, 100, confidence=0.99)
    assert narrow is not None and wide is not None
    assert wide[0] < narrow[0] < 0.5 < narrow[1] < wide[1]


def test_half_width_n_hand_derived() -> None:
    # p = 0.5: half-width = z / (2 sqrt(n + z^2)) < 0.1  <=>  n > 96.04 - 3.84, so n = 93.
    assert intervals.half_width_n(0.5) == 93
    # p = 0: half-width = z^2 / (2 (n + z^2)) < 0.1  <=>  n > 19.21 - 3.84, so n = 16.
    assert intervals.half_width_n(0.0) == 16
    assert intervals.half_width_n(1.0) == 16


def test_half_width_n_is_where_the_wilson_interval_gets_narrow_enough() -> None:
    def half(successes: int, n: int) -> float:
        interval = intervals.wilson_interval(successes, n)
        assert interval is not None
        return (interval[1] - interval[0]) / 2

    assert half(47, 94) < 0.10 <= half(46, 92)  # p = 0.5 around n = 93
    assert half(0, 16) < 0.10 <= half(0, 15)  # p = 0 at n = 16
    assert intervals.half_width_n(0.7, 0.05) > intervals.half_width_n(0.7, 0.10) > intervals.half_width_n(0.95, 0.10)


# --- paired bootstrap -----------------------------------------------------------------------


def test_paired_bootstrap_ci_matches_normal_theory_on_a_large_sample() -> None:
    differences = np.random.default_rng(2).choice([-1.0, 0.0, 1.0], size=4000, p=[0.2, 0.5, 0.3])
    low, high = intervals.paired_bootstrap_ci(differences, replicates=4000, seed=1)
    mean = differences.mean()
    margin = 1.959964 * differences.std(ddof=1) / np.sqrt(differences.size)
    assert low == pytest.approx(mean - margin, abs=0.004)
    assert high == pytest.approx(mean + margin, abs=0.004)


def test_paired_bootstrap_ci_is_deterministic_and_degenerate_when_constant() -> None:
    differences = np.array([0.0, 1.0, 1.0, -1.0, 0.5, 0.0, 1.0])
    assert intervals.paired_bootstrap_ci(differences, seed=4) == intervals.paired_bootstrap_ci(differences, seed=4)
    assert intervals.paired_bootstrap_ci(np.full(30, 0.25)) == (0.25, 0.25)
    with pytest.raises(ValueError, match="no paired differences"):
        intervals.paired_bootstrap_ci(np.array([]))
