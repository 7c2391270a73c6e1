"""Trajectory scoring: every checkpoint and the right end state, or it is not a success."""

from __future__ import annotations

from qaeval_tui.core.models.run import Citation, SUTOutput
from qaeval_tui.core.running.trajectory import key_facts, score_trajectory, values_match
from tests.core.run_fixtures import FAN, PRICES, case, multi_hop_case, quoting_output, refusal

RIGHT = "E517 needs the TW-FAN-10 fan module, which costs $89."


def answer(retrieved: tuple[str, ...], text: str = RIGHT, **extra: object) -> SUTOutput:
    return SUTOutput(
        answer=text,
        citations=(Citation(source_id="s1", quote=FAN), Citation(source_id="s2", quote=PRICES)),
        retrieved_ids=retrieved,
        model_was_called=True,
        prompt="...",
        **extra,
    )


def test_every_checkpoint_and_the_right_end_state_is_a_success() -> None:
    result = score_trajectory(multi_hop_case(), answer(("s1", "s2")))
    assert result is not None and result.success
    assert [(c.target, c.passed) for c in result.checkpoints] == [("s1", True), ("s2", True)]


def test_a_lucky_right_answer_without_a_checkpoint_is_a_failure() -> None:
    result = score_trajectory(multi_hop_case(), answer(("s1",)))
    assert result is not None and result.end_state_ok and not result.success
    assert [c.got for c in result.checkpoints] == ["retrieved", "not retrieved"]


def test_the_right_path_to_a_wrong_end_state_is_a_failure() -> None:
    result = score_trajectory(multi_hop_case(), answer(("s1", "s2"), text="E517 needs the TW-FAN-10 fan module."))
    assert result is not None and not result.success and result.end_state_detail == "the answer lacks 89"
    refused = score_trajectory(multi_hop_case(), refusal())
    assert refused is not None and refused.end_state_detail == "abstained"


def test_aggregation_values_must_be_computed() -> None:
    golden = multi_hop_case(
        difficulty="aggregation",
        gold_answer="$218 in total ($89 + $129).",
        checkpoints=[{"kind": "retrieve", "source_id": "s2"}, {"kind": "value", "name": "total_cost", "value": 218}],
    )
    good = answer(("s2",), text="The fan and the stand cost $218 in total.", computed={"total_cost": "$218"})
    result = score_trajectory(golden, good)
    assert result is not None and result.success
    off = score_trajectory(golden, answer(("s2",), text="They cost $218 in total.", computed={"total_cost": 217}))
    assert off is not None and not off.success and off.checkpoints[1].got == "217"
    wrong_total = score_trajectory(golden, answer(("s2",), text="They cost $89.", computed={"total_cost": 218}))
    assert wrong_total is not None and wrong_total.end_state_detail == "the answer lacks the final value 218"
    missing = score_trajectory(golden, answer(("s2",), text="They cost $218 in total."))
    assert missing is not None and not missing.success and missing.checkpoints[1].got is None


def test_single_hop_cases_have_no_trajectory() -> None:
    assert score_trajectory(case(), quoting_output(case())) is None


def test_values_and_key_facts() -> None:
    assert values_match(30.6, "30.6") and values_match(16528, "$16,528") and values_match("15%", 15)
    assert values_match("2026-09-10", " 2026-09-10 ") and not values_match(3, 4)
    assert key_facts("$747: one Gateway G2 at $349 plus two PK-3 kits at $199 each.") == [
        "747",
        "g2",
        "349",
        "pk-3",
        "199",
    ]
