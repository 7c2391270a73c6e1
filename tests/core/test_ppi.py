"""PPI mean estimates: a hand-computed example, the edge cases, and simulation with known truth.

Estimator and interval: Angelopoulos et al., "Prediction-powered inference", Science 2023 (the mean
example), with the labelled cases among the N judged ones (see the module docstring).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from qaeval_tui.core.statistics.ppi import MIN_LABELLED_FOR_CI, REASON_NO_LABELS, ppi_mean

Z95 = 1.959963984540054


def test_a_hand_computed_example() -> None:
    # Six judged cases, the first four labelled by humans.
    judge = [1.0, 1.0, 0.0, 1.0, 0.0, 1.0]
    human = [1.0, 0.0, 1.0, 1.0, None, None]
    estimate = ppi_mean(judge, human, min_labelled=2)
    # judge mean 4/6 plus the mean of human - judge on the labelled four (0, -1, 1, 0) = 0
    assert estimate.judge_mean == pytest.approx(4 / 6)
    assert estimate.correction == pytest.approx(0.0)
    assert estimate.value == pytest.approx(4 / 6)
    assert (estimate.n_cases, estimate.n_labelled) == (6, 4)
    # lam = U/N = 1/3; y - f/3 has sum of squares 1 about its mean; with 0.35 pseudo-disagreements each
    # way its variance is (1 + 0.7) / (3 + 0.7), over n = 4; lam^2 var_N(f)/U = (1/9)(4/15)/2 = 4/270
    assert estimate.lam == pytest.approx(1 / 3)
    half = Z95 * math.sqrt(1.7 / 3.7 / 4 + 4 / 270)
    assert half > 4 / 6 and estimate.ci == (0.0, 1.0)  # both ends clipped to the rate's range
    # The humans alone: mean 3/4, sd 1/2 over 4 cases
    assert estimate.labelled_mean == pytest.approx(0.75)
    assert estimate.labelled_ci == pytest.approx((0.75 - Z95 * 0.25, 1.0))


def test_a_hand_computed_example_with_the_pseudo_disagreements_inside_the_range() -> None:
    # 40 judged cases (20 at 1, 20 at 0); 10 of each labelled, the humans agreeing except once (a 0 the
    # humans call 1). lam = 20/40; y - f/2 is 0.5 (10 cases), 0 (9) and 1 (1): mean 0.3, sum of squares
    # 10(0.2^2) + 9(0.3^2) + 0.7^2 = 1.7; with 0.35 pseudo-disagreements each way (1.7 + 0.7) / (19 + 0.7)
    # over n = 20; lam^2 var_N(f) / U = 0.25 (0.25 x 40/39) / 20.
    judge = [1.0] * 20 + [0.0] * 20
    human: list[float | None] = [1.0] * 10 + [None] * 10 + [1.0] + [0.0] * 9 + [None] * 10
    estimate = ppi_mean(judge, human, min_labelled=2)
    assert estimate.value == pytest.approx(0.55)
    half = Z95 * math.sqrt(2.4 / 19.7 / 20 + 0.25 * (0.25 * 40 / 39) / 20)
    assert estimate.ci == pytest.approx((0.55 - half, 0.55 + half))


def test_no_labelled_case_gives_no_estimate_and_says_why() -> None:
    estimate = ppi_mean([1.0, 0.0, 1.0], [None, None, None])
    assert estimate.value is None and estimate.ci is None
    assert estimate.n_labelled == 0 and estimate.n_cases == 3
    assert estimate.judge_mean == pytest.approx(2 / 3)
    assert estimate.reason == REASON_NO_LABELS


def test_one_labelled_case_gives_an_estimate_but_no_interval() -> None:
    estimate = ppi_mean([1.0, 0.5, 0.5, 1.0], [0.5, None, None, None])
    assert estimate.value == pytest.approx(0.75 + (0.5 - 1.0))  # judge mean 3/4, human - judge = -1/2
    assert estimate.ci is None
    assert estimate.reason is not None and "one labelled case" in estimate.reason


def test_fewer_labels_than_the_minimum_print_no_interval() -> None:
    n = MIN_LABELLED_FOR_CI - 1
    rng = np.random.default_rng(3)
    judge = list(rng.integers(0, 2, 200).astype(float))
    human: list[float | None] = [judge[i] if i < n else None for i in range(200)]
    estimate = ppi_mean(judge, human)
    assert estimate.value is not None and estimate.ci is None
    assert estimate.reason is not None and f"at least {MIN_LABELLED_FOR_CI}" in estimate.reason


def test_a_human_value_where_the_judge_has_none_is_counted_not_used() -> None:
    estimate = ppi_mean([1.0, None, 0.0], [1.0, 0.0, None], min_labelled=2)
    assert estimate.n_labelled == 1 and estimate.n_cases == 2
    assert estimate.excluded == {"human_without_judge": 1}
    assert estimate.to_json()["excluded"] == {"human_without_judge": 1}


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_a_non_finite_value_is_refused_not_dropped(bad: float) -> None:
    with pytest.raises(ValueError, match=r"human\[1\]"):
        ppi_mean([1.0, 0.0], [1.0, bad])


def test_every_case_labelled_is_the_human_mean() -> None:
    judge = [1.0, 0.0] * 25
    human = [1.0, 1.0, 0.0, 1.0] * 12 + [1.0, 1.0]
    estimate = ppi_mean(judge, human)
    assert estimate.lam == 0.0
    assert estimate.value == pytest.approx(np.mean(human))
    assert estimate.ci == pytest.approx(estimate.labelled_ci)


# -- simulation with known truth -------------------------------------------------------------


def _binary_world(
    rng: np.random.Generator, big_n: int, rate: float, sensitivity: float, specificity: float
) -> tuple[np.ndarray, np.ndarray]:
    truth = (rng.random(big_n) < rate).astype(float)
    says_yes = np.where(truth == 1, rng.random(big_n) < sensitivity, rng.random(big_n) >= specificity)
    return truth, says_yes.astype(float)


def _ordinal_world(rng: np.random.Generator, big_n: int) -> tuple[np.ndarray, np.ndarray]:
    """0/0.5/1 scores (a 0..2 axis scaled) with a judge one step lenient 30% of the time."""
    truth = rng.choice([0.0, 0.5, 1.0], size=big_n, p=[0.2, 0.3, 0.5])
    lenient = rng.random(big_n) < 0.3
    return truth, np.where(lenient, np.minimum(1.0, truth + 0.5), truth)


SETTINGS = {
    "good judge, balanced": (0.5, 0.9, 0.9),
    "lenient judge on a 0.8 rate": (0.8, 0.95, 0.6),
    "poor judge": (0.7, 0.7, 0.7),
}


def _coverage_and_widths(
    world: str, n: int, big_n: int = 400, reps: int = 2000, seed: int = 11
) -> tuple[float, float, float]:
    rng = np.random.default_rng(seed)
    covered = 0
    widths, labelled_widths = [], []
    for _ in range(reps):
        if world == "ordinal":
            truth, judge = _ordinal_world(rng, big_n)
            true_mean = 0.2 * 0.0 + 0.3 * 0.5 + 0.5 * 1.0
        else:
            rate, sensitivity, specificity = SETTINGS[world]
            truth, judge = _binary_world(rng, big_n, rate, sensitivity, specificity)
            true_mean = rate
        labelled = rng.choice(big_n, size=n, replace=False)
        human: list[float | None] = [None] * big_n
        for i in labelled:
            human[i] = float(truth[i])
        estimate = ppi_mean(list(judge), human)
        assert estimate.ci is not None and estimate.labelled_ci is not None
        covered += estimate.ci[0] <= true_mean <= estimate.ci[1]
        widths.append(estimate.ci[1] - estimate.ci[0])
        labelled_widths.append(estimate.labelled_ci[1] - estimate.labelled_ci[0])
    return covered / reps, float(np.mean(widths)), float(np.mean(labelled_widths))


@pytest.mark.parametrize("world", [*SETTINGS, "ordinal"])
@pytest.mark.parametrize("n", [MIN_LABELLED_FOR_CI, 100])
def test_the_95_percent_interval_covers_the_true_mean_in_simulation(world: str, n: int) -> None:
    coverage, _, _ = _coverage_and_widths(world, n)
    assert coverage >= 0.93, f"{world}, n = {n}: coverage {coverage:.3f}"


def test_a_lenient_judge_alone_misses_the_truth_that_ppi_covers() -> None:
    rng = np.random.default_rng(5)
    truth, judge = _binary_world(rng, 2000, 0.8, 0.95, 0.6)
    human: list[float | None] = [float(t) if i < 100 else None for i, t in enumerate(truth)]
    estimate = ppi_mean(list(judge), human)
    assert estimate.judge_mean is not None and estimate.judge_mean > 0.83  # 0.8*0.95 + 0.2*0.4 = 0.84
    assert estimate.ci is not None and estimate.ci[0] <= 0.8 <= estimate.ci[1]


@pytest.mark.parametrize("world", ["good judge, balanced", "ordinal"])
def test_with_a_good_judge_ppi_is_narrower_than_the_labelled_cases_alone(world: str) -> None:
    _, width, labelled_width = _coverage_and_widths(world, 60, reps=300)
    assert width < 0.8 * labelled_width, f"PPI {width:.3f} vs labelled only {labelled_width:.3f}"


@pytest.mark.parametrize("level", [1.0, 0.0, 0.5])
def test_no_variation_gets_the_exact_interval_of_no_case_differing(level: float) -> None:
    # All 40 labelled human values equal and the judge constant: the normal interval would have zero
    # width. The share of cases differing from the level, 0 seen in 40, has the Clopper-Pearson 95%
    # upper bound 1 - 0.025^(1/40) = 0.0881 (Clopper and Pearson, Biometrika 26:404-413, 1934; the
    # tabulated 0/40 interval is [0, 0.0881]); the mean lies within that share of the way to 0 and 1.
    judge = [level] * 100
    human: list[float | None] = [level] * 40 + [None] * 60
    estimate = ppi_mean(judge, human)
    assert estimate.value == pytest.approx(level)
    assert estimate.ci == pytest.approx((level - 0.0881 * level, level + 0.0881 * (1 - level)), abs=1e-4)
    assert estimate.labelled_ci == estimate.ci and estimate.reason is None


def _rare_disagreement_coverage(rate: float, agreement: float, reps: int = 1500, seed: int = 7) -> float:
    """Coverage of ppi_mean's interval at 40 labels of 400 cases: binary truth at `rate`, a judge that
    agrees with it on a share `agreement` of cases (errors either way). Drawn with numpy in one go,
    each replicate's interval from ppi_mean itself."""
    rng = np.random.default_rng(seed)
    big_n, n = 400, MIN_LABELLED_FOR_CI
    truth = (rng.random((reps, big_n)) < rate).astype(float)
    judge = np.where(rng.random((reps, big_n)) < agreement, truth, 1.0 - truth)
    labelled = np.argsort(rng.random((reps, big_n)), axis=1)[:, :n]
    covered = 0
    for row in range(reps):
        human: list[float | None] = [None] * big_n
        for i in labelled[row]:
            human[int(i)] = float(truth[row, i])
        estimate = ppi_mean(judge[row].tolist(), human)
        assert estimate.ci is not None
        covered += estimate.ci[0] <= rate <= estimate.ci[1]
    return covered / reps


@pytest.mark.parametrize("agreement", [0.90, 0.95, 0.98])
@pytest.mark.parametrize("rate", [0.90, 0.95, 0.98])
def test_the_interval_covers_when_labelled_cases_rarely_disagree_with_the_judge(rate: float, agreement: float) -> None:
    # Before the pseudo-disagreements: 0.81 at a 0.98 rate and 0.98 agreement, 0.86-0.90 at 0.95. Monte
    # Carlo error of a coverage of 0.95 over 1500 replicates: sd 0.006, so 0.93 is 3 sd below nominal.
    coverage = _rare_disagreement_coverage(rate, agreement)
    assert coverage >= 0.93, f"rate {rate}, agreement {agreement}: coverage {coverage:.3f}"
