"""The faithfulness outcome as a classifier against the human consensus (unfaithful is positive):
coverage, accuracy, precision, recall, F1 on a hand-computed confusion matrix; undefined is null / n/a."""

from __future__ import annotations

import json

import pytest

from qaeval_tui.core.config import CalibrationConfig
from qaeval_tui.core.review.models import Label
from qaeval_tui.core.rubric import Axis, Rubric
from qaeval_tui.core.running.models import JudgeVerdict
from qaeval_tui.core.statistics.calibration import calibrate
from qaeval_tui.core.statistics.calibration_outcomes import outcome_lines
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
    assert outcome["coverage"] == pytest.approx(15 / 20)
    assert outcome["accuracy"] == pytest.approx(10 / 15)
    assert outcome["precision"] == pytest.approx(4 / 6)
    assert outcome["recall"] == pytest.approx(4 / 7)
    assert outcome["f1"] == pytest.approx(8 / 13)  # 2TP / (2TP + FP + FN) = 2PR / (P + R)
    assert outcome["positive"] == "unfaithful"


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
    assert "accuracy n/a · precision n/a · recall n/a · F1 n/a" in line and "coverage 0.000 (0/3" in line


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
