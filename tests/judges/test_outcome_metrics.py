"""The faithfulness outcome as a classifier against the human consensus (unfaithful is positive):
coverage, accuracy, precision, recall, F1 on a hand-computed confusion matrix; undefined is null / n/a."""

from __future__ import annotations

import json

import numpy as np
import pytest

from qaeval_tui.core.config import CalibrationConfig
from qaeval_tui.core.models.label import Label
from qaeval_tui.core.models.run import JudgeVerdict
from qaeval_tui.core.rubric import Axis, Rubric
from qaeval_tui.core.statistics.calibration import calibrate
from qaeval_tui.core.statistics.calibration_outcomes import OutcomeMetrics, outcome_lines
from qaeval_tui.core.statistics.intervals import wilson_cc_interval
from qaeval_tui.core.statistics.label_table import LabelTable
from qaeval_tui.core.statistics.verdict_table import VerdictTable

RUBRIC = Rubric(version="1", axes=(Axis(name="faithfulness", anchors=("no", "partly", "yes")),))
BAR = CalibrationConfig(min_exact=0.7, min_n=5)


def labels_for(item: str, human: int | None) -> list[Label]:
    """Two blind reviewers who agree (a consensus needs two); None: they split, the item is unresolved."""
    scores = [(0, 1)] if human is None else [(human, human)]  # median 0.5 is no scale point
    return [
        Label(
            item_id=item, case_id=item, reviewer=who, scores={"faithfulness": value}, rubric_version="1", revision=1,
            created_at="t",
        )
        for first, second in scores
        for who, value in (("ana", first), ("ben", second))
    ]  # fmt: skip


def verdict_for(item: str, judge: int | None, status: str = "ok") -> JudgeVerdict:
    return JudgeVerdict(
        item_id=item,
        case_id=item,
        judge={"name": "j", "model": "m", "config_hash": "J1", "rubric_version": "1"},
        status=status,  # type: ignore[arg-type]
        scores={"faithfulness": None if status != "ok" else judge},
        evidence={},
        created_at="t",
    )


def report(rows: list[tuple[int | None, int | None, str | None]]) -> dict[str, object]:
    """rows: (human consensus, judge score, verdict status; None: no verdict at all)."""
    labels = [label for k, (human, _, _) in enumerate(rows) for label in labels_for(f"i{k:03d}", human)]
    verdicts = [verdict_for(f"i{k:03d}", judge, status) for k, (_, judge, status) in enumerate(rows) if status]
    verdicts.append(verdict_for("unlabelled", 0))  # a verdict on an item no human labelled: not counted
    table = LabelTable.from_labels(labels, RUBRIC)
    result = calibrate(table, VerdictTable.from_verdicts(verdicts, RUBRIC), RUBRIC, BAR).to_json()
    outcome = result["faithfulness_outcome"]
    assert isinstance(outcome, dict)
    return outcome


def test_the_figures_of_a_hand_computed_confusion_matrix() -> None:
    rows: list[tuple[int | None, int | None, str | None]] = [
        *[(0, 0, "ok")] * 2, (1, 0, "ok"), (1, 1, "ok"),  # TP 4: humans and judge both below the top
        (2, 0, "ok"), (2, 1, "ok"),  # FP 2
        (0, 2, "ok"), (1, 2, "ok"), (1, 2, "ok"),  # FN 3
        *[(2, 2, "ok")] * 6,  # TN 6
        (1, None, "ok"),  # the judge abstained (no faithfulness score)
        (0, None, "error"), (2, None, "error"),  # judge errors
        (2, None, "skipped"),  # a checks-only verdict
        (0, None, None),  # no verdict at all
        (None, 0, "ok"),  # reviewers split: no human truth, not counted at all
    ]  # fmt: skip
    outcome = report(rows)
    assert outcome["confusion"] == {"tp": 4, "fp": 2, "fn": 3, "tn": 6}
    assert outcome["unclassified"] == {"abstained": 1, "error": 2, "skipped": 1, "no_verdict": 1}
    assert (outcome["n"], outcome["classified"]) == (20, 15)
    # Coverage counts the items the judge was asked about: the skipped one and the one without a verdict
    # were never asked, so 15 of 18, not 15 of 20.
    assert outcome["asked"] == 18 and outcome["coverage"] == pytest.approx(15 / 18)
    assert outcome["accuracy"] == pytest.approx(10 / 15)
    assert outcome["precision"] == pytest.approx(4 / 6)
    assert outcome["recall"] == pytest.approx(4 / 7)
    assert outcome["f1"] == pytest.approx(8 / 13)  # 2TP / (2TP + FP + FN) = 2PR / (P + R)
    assert outcome["positive"] == "unfaithful"
    # Intervals (Wilson with continuity correction, Newcombe 1998 method 4): accuracy 10/15 gives
    # [0.387, 0.870] (by hand from Newcombe's formula); precision (6 items), recall (7) and F1 (TP + FP + FN
    # = 9) are below 10 items: no interval, a reason.
    ci = outcome["ci"]
    assert isinstance(ci, dict)
    assert ci["accuracy"] == pytest.approx([0.387, 0.870], abs=1e-3)
    assert ci["f1"] is None  # TP + FP + FN = 9 < 10
    assert ci["precision"] is None and ci["recall"] is None
    assert outcome["ci_reason"]["precision"] == "too few items for an interval (n = 6; need ≥ 10)"  # type: ignore[index]


def test_a_judge_that_never_says_unfaithful_has_no_precision_and_zero_recall_and_f1() -> None:
    outcome = report([(0, 2, "ok"), (2, 2, "ok"), (2, 2, "ok")])
    assert outcome["precision"] is None  # no positive prediction: undefined, never 0
    assert (outcome["recall"], outcome["f1"]) == (0.0, 0.0)  # a miss with no hit is 0, defined
    assert "precision n/a" in outcome_lines(outcome)[0] and "F1 0.000" in outcome_lines(outcome)[0]


def test_no_unfaithful_item_and_no_positive_prediction_leave_recall_and_f1_undefined() -> None:
    outcome = report([(2, 2, "ok"), (2, 2, "ok")])
    assert outcome["recall"] is None and outcome["precision"] is None and outcome["f1"] is None
    assert outcome["accuracy"] == 1.0 and outcome["coverage"] == 1.0


def test_a_run_the_judge_never_classified_has_zero_coverage_and_every_other_figure_undefined() -> None:
    outcome = report([(0, None, "error"), (2, None, "skipped"), (1, None, "ok")])
    assert outcome["coverage"] == 0.0 and outcome["classified"] == 0
    for key in ("accuracy", "precision", "recall", "f1"):
        assert outcome[key] is None
    json.dumps(outcome, allow_nan=False)
    line = outcome_lines(outcome)[0]
    assert "accuracy n/a · precision n/a · recall n/a · F1 n/a" in line and "coverage 0.000 (0/2" in line


def test_a_rubric_without_faithfulness_has_no_outcome_figures() -> None:
    other = Rubric(version="1", axes=(Axis(name="tone", anchors=("a", "b", "c")),))
    labels = [
        Label(item_id="a", case_id="a", reviewer=r, scores={"tone": 1}, rubric_version="1", revision=1, created_at="t")
        for r in ("ana", "ben")
    ]
    verdict = JudgeVerdict(
        item_id="a", case_id="a", judge={"name": "j", "model": "m", "config_hash": "J1", "rubric_version": "1"},
        status="ok", scores={"tone": 1}, evidence={}, created_at="t",
    )  # fmt: skip
    table = LabelTable.from_labels(labels, other)
    document = calibrate(table, VerdictTable.from_verdicts([verdict], other), other, BAR).to_json()
    assert document["faithfulness_outcome"] is None and outcome_lines(None) == []


def test_f1s_interval_is_the_true_positive_shares_mapped_and_covers_in_simulation() -> None:
    # TP 20, FP 5, FN 5: q = TP / (TP + FP + FN) = 2/3, F1 = 2q / (1 + q) = 0.8; the interval is q's Wilson
    # interval (continuity-corrected) mapped through the same increasing function.
    metrics = OutcomeMetrics(tp=20, fp=5, fn=5, tn=70)
    low, high = wilson_cc_interval(20, 30) or (0.0, 0.0)
    assert metrics.f1 == pytest.approx(0.8)
    assert metrics.intervals()["f1"] == pytest.approx((2 * low / (1 + low), 2 * high / (1 + high)))
    # Seeded simulation: a judge with precision 0.7 and recall 0.6 on a 30% unfaithful rate, 80 classified
    # items, 2000 replicates (Monte Carlo sd 0.005): each interval covers its true figure >= 0.93.
    rng = np.random.default_rng(12)
    rate, recall, precision = 0.3, 0.6, 0.7
    fp_rate = rate * recall * (1 - precision) / precision / (1 - rate)
    cells = np.array([rate * recall, (1 - rate) * fp_rate, rate * (1 - recall), (1 - rate) * (1 - fp_rate)])
    true_f1 = 2 * precision * recall / (precision + recall)
    truth = {"precision": precision, "recall": recall, "f1": true_f1, "accuracy": cells[0] + cells[3]}
    covered = dict.fromkeys(truth, 0)
    drawn = rng.multinomial(80, cells, size=2000)
    for tp, fp, fn, tn in drawn:
        spans = OutcomeMetrics(tp=int(tp), fp=int(fp), fn=int(fn), tn=int(tn)).intervals()
        for name, value in truth.items():
            span = spans[name]
            covered[name] += span is not None and span[0] <= value <= span[1]
    assert all(count / 2000 >= 0.93 for count in covered.values()), covered
