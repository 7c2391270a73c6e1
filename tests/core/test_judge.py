"""The mechanical judge's scores and evidence, the verdict shape (§8.3), error verdicts, judge loading."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from qaeval_tui.bundled.mechanical_judge import MechanicalJudge, make_mechanical_judge
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.models.golden import GoldenCase
from qaeval_tui.core.models.run import Citation, JudgeConfig, SUTOutput
from qaeval_tui.core.rubric import Axis, Rubric
from qaeval_tui.core.running.judge import JudgeResult, effective_config, judge_verdict, load_judge
from tests.core.run_fixtures import (
    HB5_WARRANTY,
    RUBRIC,
    SHIPPING,
    WARRANTY,
    abstain_case,
    case,
    quoting_output,
    refusal,
)

JUDGE = MechanicalJudge()


def scores(golden: GoldenCase, output: SUTOutput) -> dict[str, int | None]:
    return JUDGE.score(golden, output, RUBRIC).scores


def test_a_verbatim_quote_of_the_right_passage_scores_top_everywhere() -> None:
    golden = case(gold_answer="10 years from the date of installation")
    assert scores(golden, quoting_output(golden)) == {
        "faithfulness": 2,
        "citation_correctness": 2,
        "answer_correctness": 2,
    }


def test_faithfulness_drops_when_a_claim_goes_beyond_the_cited_span() -> None:
    golden = case()
    invented = "The Tidewell HB-10 is covered by a lifetime guarantee including labour, travel and batteries."
    output = quoting_output(
        golden, answer=invented, citations=(Citation(source_id="s1", quote=WARRANTY, claim=invented),)
    )
    result = JUDGE.score(golden, output, RUBRIC)
    assert result.scores["faithfulness"] == 0
    assert result.evidence["faithfulness"] in WARRANTY  # it quotes the span it checked against
    uncited = quoting_output(golden, citations=())
    assert scores(golden, uncited)["faithfulness"] == 0


def test_answer_correctness_needs_the_gold_answers_key_facts() -> None:
    golden = case(gold_answer="10 years from installation")
    assert scores(golden, quoting_output(golden))["answer_correctness"] == 2
    wrong_number = quoting_output(golden, source_id="s3", answer=HB5_WARRANTY)
    assert scores(golden, wrong_number)["answer_correctness"] == 1  # on topic, but 7 years is not 10
    off_topic = quoting_output(golden, source_id="s2", answer=SHIPPING)
    assert scores(golden, off_topic)["answer_correctness"] == 0
    assert scores(golden, refusal())["answer_correctness"] == 0  # refusing an answerable case


def test_answer_correctness_on_a_must_abstain_case() -> None:
    golden = abstain_case()
    assert scores(golden, refusal())["answer_correctness"] == 2
    assert scores(golden, quoting_output(golden))["answer_correctness"] == 0


def test_citation_correctness_is_set_by_the_weakest_citation_against_the_hardest_decoy() -> None:
    golden = case()
    right = Citation(source_id="s1", quote=WARRANTY, claim=WARRANTY)
    assert scores(golden, quoting_output(golden, citations=(right,)))["citation_correctness"] == 2
    # A claim about the HB-10 cited to the HB-5 passage: supported in part, but s1 supports it better.
    weaker = Citation(source_id="s3", claim=WARRANTY)
    result = JUDGE.score(golden, quoting_output(golden, citations=(weaker,)), RUBRIC)
    assert result.scores["citation_correctness"] == 1
    assert result.evidence["citation_correctness"] == WARRANTY  # the decoy span that beats the citation
    wrong = Citation(source_id="s2", claim=WARRANTY)
    assert scores(golden, quoting_output(golden, citations=(right, wrong)))["citation_correctness"] == 0


def test_citation_correctness_cannot_be_judged_for_a_refusal_without_citations() -> None:
    result = JUDGE.score(abstain_case(), refusal(), RUBRIC)
    assert result.scores["citation_correctness"] is None and "citation_correctness" not in result.evidence
    assert result.scores["faithfulness"] == 2


def test_the_judge_follows_another_scale_and_ignores_unknown_axes() -> None:
    rubric = Rubric(
        version="2",
        axes=(
            Axis(name="faithfulness", scale=(1, 2, 3, 4, 5), anchors=("a", "b", "c", "d", "e")),
            Axis(name="tone", anchors=("x", "y", "z")),
        ),
    )
    result = JUDGE.score(case(), quoting_output(case()), rubric)
    assert result.scores == {"faithfulness": 5, "tone": None}


def test_a_verdict_has_the_export_shape_and_the_pinned_config_hash() -> None:
    judge = make_mechanical_judge()
    config = effective_config(judge, RUBRIC)
    golden = case()
    verdict = judge_verdict(judge, config, golden, quoting_output(golden), RUBRIC, item_id="abc.def", created_at="T")
    assert list(verdict.to_json()) == [
        *["item_id", "case_id", "judge", "status", "scores", "evidence", "created_at"],
        *["outcome", "reason", "requested_model", "returned_model", "usage", "attempts", "retries"],
    ]
    assert verdict.item_id == "abc.def" and verdict.case_id == golden.id and verdict.status == "ok"
    assert verdict.judge["config_hash"] == config.config_hash()
    assert {"name", "model", "temperature", "seed", "prompt_version", "rubric_version"} <= set(verdict.judge)
    assert set(verdict.scores) == set(RUBRIC.axis_names)


def test_the_config_hash_changes_with_the_rubric_version() -> None:
    judge = make_mechanical_judge()
    newer = Rubric(version="2", axes=RUBRIC.axes)
    assert effective_config(judge, newer).config_hash() != effective_config(judge, RUBRIC).config_hash()


class _Raising:
    config = JudgeConfig(name="flaky", model="m")

    def score(self, case: GoldenCase, output: SUTOutput, rubric: Rubric) -> JudgeResult:
        raise TimeoutError("judge API timed out")


class _OffScale:
    config = JudgeConfig(name="sloppy", model="m")

    def score(self, case: GoldenCase, output: SUTOutput, rubric: Rubric) -> JudgeResult:
        return JudgeResult({"faithfulness": 7})


@pytest.mark.parametrize(
    ("judge", "message"),
    [
        (_Raising(), "TimeoutError: judge API timed out"),
        (_OffScale(), "the judge gave 7 for faithfulness, outside its scale [0, 1, 2]"),
    ],
)
def test_a_judge_failure_is_an_error_verdict_not_a_crash(judge: object, message: str) -> None:
    golden = case()
    verdict = judge_verdict(judge, judge.config, golden, quoting_output(golden), RUBRIC, item_id="i", created_at="T")  # type: ignore[arg-type, attr-defined]
    assert verdict.status == "error" and verdict.error == message
    assert verdict.scores == dict.fromkeys(RUBRIC.axis_names)
    exported = verdict.to_json()
    assert list(exported) == [
        *["item_id", "case_id", "judge", "status", "scores", "evidence", "created_at", "error"],
        *["outcome", "reason", "requested_model", "returned_model", "usage", "attempts", "retries"],
    ]
    assert exported["outcome"] == "error" and exported["usage"] == {"input_tokens": None, "output_tokens": None}
    assert exported["error"] == message


class _Returns:
    config = JudgeConfig(name="scripted", model="m")

    def __init__(self, result: object) -> None:
        self.result = result

    def score(self, case: GoldenCase, output: SUTOutput, rubric: Rubric) -> JudgeResult:
        if isinstance(self.result, BaseException):
            raise self.result
        return self.result  # type: ignore[return-value]


class _NoIterating(dict[str, int]):
    def __iter__(self) -> Any:
        raise RuntimeError("cannot iterate me")


FULL = {"faithfulness": 2, "citation_correctness": 2, "answer_correctness": 2}


@pytest.mark.parametrize(
    ("returned", "message"),
    [
        (JudgeResult({}, {}), "the judge gave no score for faithfulness"),
        (JudgeResult({"faithfulness": 2}), "the judge gave no score for citation_correctness"),
        (JudgeResult(None), "the judge's scores are NoneType, not a dict of axis -> score"),  # type: ignore[arg-type]
        (JudgeResult([("faithfulness", 2)]), "the judge's scores are list, not a dict"),  # type: ignore[arg-type]
        (JudgeResult(FULL, None), "the judge's evidence is NoneType, not a dict"),  # type: ignore[arg-type]
        (JudgeResult(FULL, {"faithfulness": ["a", "b"]}), "evidence for faithfulness is list, not a quoted span"),  # type: ignore[dict-item]
        (JudgeResult(FULL, {"tone": "x"}), "the judge gave evidence for unknown axis 'tone'"),
        (JudgeResult(_NoIterating(FULL)), "unreadable result: RuntimeError: cannot iterate me"),
        (SystemExit(2), "SystemExit(2): the code tried to exit the process"),
    ],
)
def test_a_malformed_or_exiting_judge_is_an_error_verdict_never_a_crash(returned: object, message: str) -> None:
    golden = case()
    judge = _Returns(returned)
    verdict = judge_verdict(judge, judge.config, golden, quoting_output(golden), RUBRIC, item_id="i", created_at="T")
    assert verdict.status == "error" and message in verdict.error
    assert verdict.scores == dict.fromkeys(RUBRIC.axis_names) and verdict.evidence == {}


def test_an_adapter_failure_is_not_judged() -> None:
    judge = make_mechanical_judge()
    verdict = judge_verdict(judge, judge.config, case(), SUTOutput(error="boom"), RUBRIC, item_id="i", created_at="T")
    assert verdict.status == "ok" and set(verdict.scores.values()) == {None}


def test_load_judge_accepts_a_factory_and_explains_a_bad_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert isinstance(load_judge("qaeval_tui.bundled.mechanical_judge:make_mechanical_judge"), MechanicalJudge)
    (tmp_path / "judges_here.py").write_text(
        "class NoScore:\n    config = None\n\ndef make():\n    return NoScore()\n\n"
        "class BadConfig:\n    config = {'name': 'x'}\n    def score(self, *a):\n        return None\n\n"
        "def make_bad_config():\n    return BadConfig()\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(UsageError, match="has no score\\(\\) method"):
        load_judge("judges_here:make")
    with pytest.raises(UsageError, match="not a JudgeConfig"):
        load_judge("judges_here:make_bad_config")
    sys.modules.pop("judges_here", None)


def test_a_judge_config_no_verdict_could_record_is_refused_at_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "odd_judges.py").write_text(
        "from qaeval_tui.bundled.mechanical_judge import MechanicalJudge\n"
        "from qaeval_tui.core.models.run import JudgeConfig\n"
        "def nan_temperature():\n"
        "    return MechanicalJudge(JudgeConfig(name='x', model='m', temperature=float('nan')))\n"
        "class Exiting(MechanicalJudge):\n"
        "    @property\n"
        "    def config(self):\n"
        "        raise SystemExit(1)\n"
        "def exiting_config():\n"
        "    return Exiting()\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(UsageError, match="the judge's config: temperature nan is not a finite number"):
        load_judge("odd_judges:nan_temperature")
    with pytest.raises(UsageError, match=r"reading the judge's config failed: SystemExit\(1\)"):
        load_judge("odd_judges:exiting_config")
    sys.modules.pop("odd_judges", None)
