"""examples/real_judge.py, a judge of one's own on the public API, against the loopback server: a valid
reply is scored with its call recorded, an abstention abstains, nonsense is an error verdict."""

from __future__ import annotations

import importlib.util
import json
from types import ModuleType

import pytest

from qaeval_tui.core.models.run import JudgeVerdict
from qaeval_tui.core.running.judge import judge_verdict
from tests.conftest import REPO
from tests.core.run_fixtures import RUBRIC, case, quoting_output
from tests.llm_server import LLMServer, Reply


@pytest.fixture(scope="module")
def example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("real_judge_example", REPO / "examples" / "real_judge.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def verdict(example: ModuleType, server: LLMServer) -> JudgeVerdict:
    judge = example.ChatJudge(server.openai_base_url, "sk-example-1", "some-model")
    golden = case()
    return judge_verdict(judge, judge.config, golden, quoting_output(golden), RUBRIC, item_id="i", created_at="T")


def test_the_example_judge_scores_a_reply_and_records_its_call(example: ModuleType) -> None:
    reply = {axis: {"span": "10 years", "score": 2} for axis in RUBRIC.axis_names} | {
        "citation_correctness": {"span": "s1", "score": 1}
    }
    with LLMServer() as server:
        server.script(Reply.text(json.dumps(reply), usage=(50, 9)))
        scored = verdict(example, server)
    assert scored.outcome == "faithful" and scored.scores["citation_correctness"] == 1
    assert scored.judge["model"] == "some-model" and scored.evidence["faithfulness"] == "10 years"
    assert (scored.usage.input_tokens, scored.usage.output_tokens) == (50, 9)
    assert scored.returned_model == "some-model-served"


def test_the_example_judge_abstains_and_fails_as_the_contract_says(example: ModuleType) -> None:
    with LLMServer() as server:
        server.script(Reply.text(json.dumps({"abstain": "the sources contradict each other"})))
        abstained = verdict(example, server)
        server.script(Reply.text(json.dumps({"faithfulness": {"span": "x", "score": 9}})))
        broken = verdict(example, server)
        server.script(Reply.text("{}", finish="length"))
        cut = verdict(example, server)
    assert abstained.outcome == "abstained" and abstained.reason == "the sources contradict each other"
    assert broken.outcome == "error" and broken.error == "faithfulness: no score on [0, 1, 2] with a quoted span"
    assert broken.usage.input_tokens == 100  # the failed reply's cost is kept
    assert cut.outcome == "error" and "length" in (cut.error or "")
