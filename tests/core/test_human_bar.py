"""The human bar (core/statistics/human_bar.py): TRUSTED only when the judge agrees with the reviewers at
least about as often as they agree with each other. A worked example, and seeded simulations through
the real `calibrate`: a weak judge on a skewed axis (alpha 0.1-0.2, which the chance floor alone let
through 28-91% of the time) is almost never TRUSTED, and a judge as good as a reviewer is, at a
realistic number of items."""

from __future__ import annotations

import numpy as np
import pytest

from qaeval_tui.core.config import CalibrationConfig
from qaeval_tui.core.gate.calibration_file import self_contradictions
from qaeval_tui.core.gate.trust import weaker_bar
from qaeval_tui.core.statistics.calibration import calibrate
from qaeval_tui.core.statistics.human_bar import human_bar, item_gaps
from qaeval_tui.core.statistics.label_table import LabelTable
from qaeval_tui.core.statistics.verdict_table import VerdictTable
from tests.core.test_calibration import label, rubric, verdict

NAN = np.nan
SKEWED = [0.05, 0.10, 0.85]  # a skewed 0..2 axis: most answers are fully faithful


def test_a_worked_example_of_the_leave_one_out_comparison() -> None:
    # Item 1: reviewers 2, 2, 1 and the judge 2. Leaving each reviewer out: the judge matches 1 of the other
    # two, 1 of 2, 2 of 2 -> mean 2/3 (= c_j / k); the reviewers match the others 1/2, 1/2, 0 -> 1/3.
    # Item 2: reviewers 0, 1, the judge 0: judge 1/2, reviewers 0. Item 3 has one reviewer: not usable.
    reviewers = np.array([[2.0, 0.0, 1.0], [2.0, 1.0, NAN], [1.0, NAN, NAN]])
    judge = np.array([2.0, 0.0, 1.0])
    judged, human, gaps = item_gaps(reviewers, judge)
    assert judged == pytest.approx([2 / 3, 1 / 2]) and human == pytest.approx([1 / 3, 0.0])
    assert gaps == pytest.approx([1 / 3, 1 / 2])
    few = human_bar(reviewers, judge)
    assert few.n_items == 2 and few.gap == pytest.approx(5 / 12) and few.gap_ci is None
    assert few.reason == "too few items with two or more reviewers for an interval (n = 2; need >= 30)"


def _calibrated(rng: np.random.Generator, n: int, reviewer: float, judge: float) -> tuple[str, float | None]:
    """Three reviewers and a judge on n items of a skewed axis: each gives the item's true score with its
    probability, else a draw from the axis's marginal (population alpha between two such coders: r r')."""
    truth = rng.choice(3, size=n, p=SKEWED)

    def coder(right: float) -> np.ndarray:
        return np.where(rng.random(n) < right, truth, rng.choice(3, size=n, p=SKEWED))

    scores = [coder(reviewer) for _ in range(3)]
    machine = coder(judge)
    labels = [label(f"i{k}", who, {"f": int(s[k])}) for who, s in zip("abc", scores, strict=True) for k in range(n)]
    verdicts = [verdict(f"i{k}", {"f": int(machine[k])}) for k in range(n)]
    rub = rubric()
    bar = CalibrationConfig(bootstrap_replicates=200, seed=int(rng.integers(1 << 30)))
    report = calibrate(LabelTable.from_labels(labels, rub), VerdictTable.from_verdicts(verdicts, rub), rub, bar)
    axis = report.axes["f"]
    return axis.verdict, None if axis.alpha is None else axis.alpha.value


@pytest.mark.parametrize(("n", "judge"), [(200, 0.12), (400, 0.2)])
def test_a_weak_judge_on_a_skewed_axis_is_almost_never_trusted(n: int, judge: float) -> None:
    # Reviewers right 90% of the time; the judge 12-20%: alpha with the consensus about 0.1-0.2, and exact
    # agreement high (0.77-0.8) only because most items are a 2. With the chance floor alone it was TRUSTED
    # 28% of the time at n = 200 and 91% at n = 400 (measured with this simulation). Seen: 0 of 300 each;
    # a true rate of 1% would show at most 3 in 300 with probability 0.65, and the test allows 3.
    rng = np.random.default_rng(n)
    outcomes = [_calibrated(rng, n, 0.9, judge) for _ in range(300)]
    alphas = [alpha for _, alpha in outcomes if alpha is not None]
    assert 0.08 <= float(np.mean(alphas)) <= 0.22
    trusted = sum(verdict == "TRUSTED" for verdict, _ in outcomes)
    assert trusted / len(outcomes) <= 0.01, trusted


def test_a_judge_as_good_as_a_reviewer_is_trusted_at_a_realistic_number_of_items() -> None:
    # The judge is one more reviewer (right 90% of the time): TRUSTED in 0.76 of 100-item calibrations,
    # 0.98 of 200-item ones and all 400-item ones (measured, with the anytime-valid bound); asserted >= 0.85
    # at 200 over 80 runs (Monte Carlo sd 0.03).
    rng = np.random.default_rng(7)
    trusted = sum(_calibrated(rng, 200, 0.9, 0.9)[0] == "TRUSTED" for _ in range(80))
    assert trusted / 80 >= 0.85, trusted


def test_an_artifact_made_before_the_human_bar_still_loads_and_is_called_weaker() -> None:
    # An older artifact's bar has no human_bar key and its figures no human_bar block: it is decided again
    # without the bar (no contradiction), and the gate says its bar is weaker than this repo's.
    old_bar = {"min_exact": 0.7, "min_n": 20, "target_half_width": 0.1, "rule": "interval", "min_reviewers": 2}
    old_bar["chance_floor"] = 0.0
    assert weaker_bar(old_bar, CalibrationConfig()) == [
        "its bar is weaker than this repo's [calibration] (no anytime-valid bound, no human bar): recalibrate "
        "under this config"
    ]
    assert weaker_bar({**old_bar, "anytime": True, "human_bar": True, "human_margin": 0.05}, CalibrationConfig()) == []
    from qaeval_tui.core.gate.calibration_file import CalibrationArtifact

    figures = {
        "n": 60,
        "exact": 1.0,
        "exact_ci": [0.92, 1.0],
        "alpha": 1.0,
        "alpha_ci": [0.9, 1.0],
        "reasons": {"alpha_ci": None},
        "confusion": {"labels": [0, 1, 2], "counts": [[20, 0, 0], [0, 20, 0], [0, 0, 20]]},
    }
    artifact = CalibrationArtifact.model_validate(
        {
            "format": "qaeval-calibration",
            "version": 1,
            "judge_config_hash": "J1",
            "judge_name": "mech",
            "rubric_version": "1",
            "labels_hash": "sha256:" + "0" * 64,
            "verdicts_hash": "sha256:" + "0" * 64,
            "verdict": "TRUSTED",
            "bar": old_bar,
            "labels": {},
            "axes": {"f": {"verdict": "TRUSTED", "reason": "r", "n": 60, "figures": figures}},
        }
    )
    assert self_contradictions(artifact) == []


def _gap_data(rng: np.random.Generator, n: int, judge: float) -> tuple[np.ndarray, np.ndarray]:
    truth = rng.choice(3, size=n, p=SKEWED)

    def coder(right: float, size: tuple[int, ...]) -> np.ndarray:
        return np.where(rng.random(size) < right, truth, rng.choice(3, size=size, p=SKEWED)).astype(np.float64)

    return coder(0.9, (3, n)), coder(judge, (n,))


@pytest.mark.parametrize("n", [30, 100])
@pytest.mark.parametrize("judge", [0.9, 0.5])
def test_the_gap_interval_covers_the_true_gap_from_its_minimum_size(n: int, judge: float) -> None:
    # The true gap from one draw of 400,000 items; coverage of the printed 95% interval over 1,000 seeded
    # samples (Monte Carlo sd 0.007): at least 0.93 from the floor of 30 items on. Without the pseudo-gaps it
    # was 0.86 at 30 and 0.91 at 100 for the judge right 90% of the time.
    rng = np.random.default_rng([n, int(judge * 10)])
    truth = human_bar(*_gap_data(rng, 400_000, judge)).gap
    assert truth is not None
    covered = 0
    for _ in range(1000):
        bar = human_bar(*_gap_data(rng, n, judge))
        assert bar.gap_ci is not None
        covered += bar.gap_ci[0] <= truth <= bar.gap_ci[1]
    assert covered / 1000 >= 0.93, covered
