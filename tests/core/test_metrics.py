"""The scoreboard on a hand-computed four-case example, overall and per slice."""

from __future__ import annotations

import pytest

from qaeval_tui.core.models.golden import GoldenCase
from qaeval_tui.core.models.run import Citation, JudgeVerdict, SUTOutput
from qaeval_tui.core.running.checks import run_checks
from qaeval_tui.core.running.metrics import METRIC_NAMES, case_values, scoreboard
from qaeval_tui.core.running.trajectory import score_trajectory
from tests.core.run_fixtures import RUBRIC, SHIPPING, WARRANTY, abstain_case, case, multi_hop_case, refusal


def verdict(faithfulness: int | None, correctness: int | None, citations: int | None) -> JudgeVerdict:
    return JudgeVerdict(
        item_id="i",
        case_id="c",
        judge={"name": "j"},
        status="ok",
        scores={"faithfulness": faithfulness, "answer_correctness": correctness, "citation_correctness": citations},
        evidence={},
        created_at="T",
    )


def values(golden: GoldenCase, output: SUTOutput, judged: JudgeVerdict) -> dict[str, float | None]:
    checks = run_checks(golden, output)
    return case_values(golden, output, checks, judged, score_trajectory(golden, output), RUBRIC, top_k=2)


# A: answered from s1 and s3; cites s1 (resolves) and s2 (never retrieved); one of two sentences cited.
A_OUTPUT = SUTOutput(
    answer=f"{WARRANTY} Shipping is free on every order over 500 pounds.",
    citations=(
        Citation(source_id="s1", quote=WARRANTY, claim=WARRANTY),
        Citation(source_id="s2", claim="free shipping"),
    ),
    retrieved_ids=("s3", "s1"),
    model_was_called=True,
    prompt="Question: How long is the HB-10 warranty?\n" + WARRANTY + "\n" + SHIPPING,
)


def test_case_values_by_hand() -> None:
    a = values(case("a"), A_OUTPUT, verdict(2, 1, 0))
    assert a["citation_precision"] == 0.5
    assert a["citation_coverage"] == 0.5
    assert a["retrieval_recall_at_k"] == 1.0  # s1 within the top 2
    assert a["retrieval_precision_at_k"] == 0.5
    assert a["mrr"] == 0.5  # first gold source at rank 2
    assert a["ndcg"] == pytest.approx(0.6309, abs=1e-4)  # (1/log2(3)) / 1
    assert a["faithfulness_rate"] == 1.0 and a["answer_correctness"] == 0.5 and a["citation_correctness"] == 0.0
    assert a["deterministic_pass_rate"] == 0.0  # citation_resolvability and citation_coverage fired
    assert a["over_refusal_rate"] == 0.0 and a["abstention_recall"] is None
    assert a["multi_step_task_success"] is None

    b = values(case("b"), refusal(), verdict(2, 0, None))
    assert b["over_refusal_rate"] == 1.0 and b["faithfulness_rate"] is None  # a refusal makes no claim to rate
    assert b["retrieval_recall_at_k"] == 0.0 and b["mrr"] == 0.0
    assert b["citation_precision"] is None and b["citation_coverage"] is None


def test_scoreboard_overall_and_per_slice_by_hand() -> None:
    rows = [
        (
            {"split": "frozen", "difficulty": "single_hop", "adversarial": "none"},
            values(case("a"), A_OUTPUT, verdict(2, 1, 0)),
        ),
        (
            {"split": "frozen", "difficulty": "single_hop", "adversarial": "none"},
            values(case("b"), refusal(), verdict(2, 0, None)),
        ),
        (
            {"split": "living", "difficulty": "single_hop", "adversarial": "unanswerable_lookalike"},
            values(abstain_case("c"), refusal(), verdict(2, 2, None)),
        ),
        (
            {"split": "living", "difficulty": "multi_hop", "adversarial": "none"},
            values(multi_hop_case("d"), refusal(), verdict(2, 0, None)),
        ),
    ]
    board = scoreboard(rows)
    overall = {name: board.overall[name].value for name in METRIC_NAMES}
    assert overall["answer_correctness"] == pytest.approx((0.5 + 0 + 1 + 0) / 4)
    assert overall["over_refusal_rate"] == pytest.approx(2 / 3)  # b and d refused, of a, b, d
    assert overall["abstention_recall"] == 1.0 and board.overall["abstention_recall"].n == 1
    assert overall["faithfulness_rate"] == 1.0 and board.overall["faithfulness_rate"].n == 1
    assert overall["deterministic_pass_rate"] == pytest.approx(3 / 4)
    assert overall["multi_step_task_success"] == 0.0
    assert overall["retrieval_recall_at_k"] == pytest.approx(1 / 3)  # a 1, b 0, d 0
    assert board.slices["split"]["living"]["abstention_recall"].value == 1.0
    assert board.slices["split"]["frozen"]["abstention_recall"].value is None
    assert board.slices["split"]["frozen"]["abstention_recall"].reason == "no must-abstain case"
    assert board.slice_sizes == {
        "split": {"frozen": 2, "living": 2},
        "difficulty": {"multi_hop": 1, "single_hop": 3},
        "adversarial": {"none": 3, "unanswerable_lookalike": 1},
    }


def test_a_judge_error_leaves_judged_metrics_undefined_not_zero() -> None:
    judged = values(case(), A_OUTPUT, verdict(2, 2, 2).model_copy(update={"status": "error", "error": "boom"}))
    assert judged["faithfulness_rate"] is None and judged["answer_correctness"] is None
    board = scoreboard([({"split": "s", "difficulty": "single_hop", "adversarial": "none"}, judged)])
    assert board.overall["answer_correctness"].value is None
    assert board.overall["answer_correctness"].reason == "no case the judge scored on answer_correctness"
