"""The OpenAI-compatible and Anthropic judges over their HTTP protocols against a loopback server
(tests/llm_server.py): every scripted reply ends as the verdict contract says — outcome, a one-line
reason, attempts and retries counted, tokens recorded or null."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

from qaeval_tui.core.config.judge import JudgeSection
from qaeval_tui.core.config.judge_providers import PROVIDERS
from qaeval_tui.core.judges.factory import configured_judge
from qaeval_tui.core.models.run import JudgeVerdict
from qaeval_tui.core.running.judge import JudgeClient, effective_config, judge_verdict
from tests.core.run_fixtures import RUBRIC, WARRANTY, case, quoting_output
from tests.llm_server import LLMServer, Reply, base_url_for, provider_keys

KEYS = provider_keys()


@pytest.fixture(scope="module")
def server() -> Iterator[LLMServer]:
    with LLMServer() as running:
        yield running


@pytest.fixture(params=list(PROVIDERS))
def kind(request: pytest.FixtureRequest, server: LLMServer) -> str:
    server.reset()
    return str(request.param)


def judge_for(server: LLMServer, kind: str, **options: object) -> JudgeClient:
    url = base_url_for(server, kind)
    settings: dict[str, object] = {"model": "judge-m", "base_url": url, "timeout_s": 2.0, "max_retries": 2}
    settings.update(options)
    section = JudgeSection.model_validate({"kind": kind, **settings})
    return configured_judge(section, RUBRIC, KEYS, backoff_s=0.01)


def verdict_of(judge: JudgeClient, answer: str | None = None) -> JudgeVerdict:
    golden = case()
    output = quoting_output(golden) if answer is None else quoting_output(golden, answer=answer)
    config = effective_config(judge, RUBRIC)
    return judge_verdict(judge, config, golden, output, RUBRIC, item_id="i", created_at="T")


def errors(verdict: JudgeVerdict) -> list[str | None]:
    return [attempt.error for attempt in verdict.attempts]


def test_a_valid_reply_is_a_scored_verdict_with_models_tokens_and_one_attempt(server: LLMServer, kind: str) -> None:
    server.script(Reply.judgment({"faithfulness": 1}, {"faithfulness": "10 years"}, usage=(321, 45)))
    verdict = verdict_of(judge_for(server, kind))
    assert verdict.outcome == "unfaithful" and verdict.status == "ok"
    assert verdict.scores == {"faithfulness": 1, "citation_correctness": 2, "answer_correctness": 2}
    assert verdict.evidence["faithfulness"] == "10 years"
    assert (verdict.requested_model, verdict.returned_model) == ("judge-m", "judge-m-served")
    assert (verdict.usage.input_tokens, verdict.usage.output_tokens) == (321, 45)
    assert errors(verdict) == [None] and verdict.retries == 0
    sent = server.requests[0]
    assert sent.body["model"] == "judge-m" and sent.body["temperature"] == 0
    assert sent.case["answer"] == WARRANTY  # the case goes as data in the user message
    assert "faithfulness (scale 0, 1, 2)" in sent.system


def test_a_reply_without_usage_records_tokens_as_null_not_zero(server: LLMServer, kind: str) -> None:
    server.script(Reply.judgment(usage=None))
    verdict = verdict_of(judge_for(server, kind))
    assert verdict.outcome == "faithful"
    assert verdict.usage.input_tokens is None and verdict.usage.output_tokens is None


def test_an_abstention_is_abstained_with_the_judges_reason(server: LLMServer, kind: str) -> None:
    server.script(Reply.abstain("The sources disagree about the term."))
    verdict = verdict_of(judge_for(server, kind))
    assert verdict.outcome == "abstained" and verdict.reason == "The sources disagree about the term."
    assert set(verdict.scores.values()) == {None}


INVALID = [
    (Reply.text("the answer looks fine to me"), "the judge's reply is not valid JSON (line 1 column 1)"),
    (Reply.text('{"scores": {"faithfulness": '), "the judge's reply is not valid JSON"),
    (Reply.judgment({"faithfulness": 5}), "the judge gave 5 for faithfulness, not an integer on its scale [0, 1, 2]"),
    (Reply.judgment({"faithfulness": 1.5}), "the judge gave 1.5 for faithfulness, not an integer on its scale"),
    (Reply.judgment(evidence={"citation_correctness": ""}), "the judge gave no evidence for citation_correctness"),
    (
        Reply.judgment(evidence={"faithfulness": "covered for a lifetime"}),
        "the judge's evidence for faithfulness is not found verbatim in the sources or the answer",
    ),
    (
        Reply.text(json.dumps({"scores": {"faithfulness": {"score": 2, "evidence": "10 years"}}})),
        "the judge gave no score for citation_correctness",
    ),
    (
        Reply.judgment(evidence={"faithfulness": "e"}),  # found verbatim in almost any text: no reader can check it
        "the judge's evidence for faithfulness is 1 character(s), too short for a reader to check "
        "(min_evidence_chars = 8",
    ),
    (Reply.judgment(evidence={"faithfulness": " years"}), "the judge's evidence for faithfulness is 5 character(s)"),
    (Reply.text('{"scores": {}, "abstain": true}'), "the judge abstained without a reason"),
    (Reply.text('{"scores": {}, "scores": {}}'), "the judge's reply gives 'scores' twice"),
]


@pytest.mark.parametrize(("reply", "reason"), INVALID, ids=[r for _, r in INVALID])
def test_an_invalid_reply_is_an_error_verdict_with_a_one_line_reason_and_no_retry(
    server: LLMServer, kind: str, reply: Reply, reason: str
) -> None:
    server.script(reply)
    verdict = verdict_of(judge_for(server, kind))
    assert verdict.outcome == "error" and verdict.status == "error"
    assert verdict.error is not None and verdict.error.startswith(reason)
    assert "\n" not in verdict.error and "Traceback" not in verdict.error
    assert set(verdict.scores.values()) == {None} and verdict.evidence == {}
    assert server.calls == 1 and errors(verdict) == [None] and verdict.retries == 0  # validation: never retried
    assert verdict.usage.input_tokens == 100  # the reply was paid for: its tokens are recorded


def test_a_quote_of_the_answer_counts_as_evidence(server: LLMServer, kind: str) -> None:
    server.script(Reply.judgment(evidence={"faithfulness": "ten years, I think"}))
    verdict = verdict_of(judge_for(server, kind), answer="It is ten years, I think.")
    assert verdict.outcome == "faithful" and verdict.evidence["faithfulness"] == "ten years, I think"


def test_the_shortest_evidence_is_configured_and_binds_the_judge(server: LLMServer, kind: str) -> None:
    server.script(Reply.judgment(evidence={"faithfulness": "10 years"}))
    strict = judge_for(server, kind, min_evidence_chars=20)
    verdict = verdict_of(strict)
    assert verdict.outcome == "error" and "min_evidence_chars = 20" in (verdict.error or "")
    assert strict.config.config_hash() != judge_for(server, kind).config.config_hash()
    server.script(Reply.judgment(evidence={"faithfulness": "Yes."}))
    assert verdict_of(judge_for(server, kind), answer="Yes.").outcome == "faithful"  # the whole answer is short


def test_429_waits_as_long_as_retry_after_asks_then_succeeds(server: LLMServer, kind: str) -> None:
    server.script(Reply.status(429, retry_after=1))
    started = time.monotonic()
    verdict = verdict_of(judge_for(server, kind))
    assert time.monotonic() - started >= 1.0  # the backoff alone would have waited 0.01 s
    assert verdict.outcome == "faithful" and errors(verdict) == ["http_429", None] and verdict.retries == 1


def test_500_then_success_is_retried_and_counted(server: LLMServer, kind: str) -> None:
    server.script(Reply.status(500), Reply.status(503))
    verdict = verdict_of(judge_for(server, kind))
    assert verdict.outcome == "faithful" and errors(verdict) == ["http_500", "http_503", None]
    assert verdict.retries == 2 and server.calls == 3
    assert verdict.usage.input_tokens == 100  # failed attempts returned no usage; the reply's is counted once


def test_5xx_past_max_retries_is_an_error_naming_the_attempts(server: LLMServer, kind: str) -> None:
    server.script(Reply.status(500), Reply.status(502))
    verdict = verdict_of(judge_for(server, kind, max_retries=1))
    assert verdict.outcome == "error" and verdict.error == "the judge's API failed (HTTP 502) (after 2 attempts)"
    assert errors(verdict) == ["http_500", "http_502"] and verdict.retries == 1
    assert verdict.usage.input_tokens is None  # no reply came back: unknown, not 0


def test_a_hang_past_the_timeout_is_retried_then_an_error(server: LLMServer, kind: str) -> None:
    server.script(Reply.hang(5), Reply.hang(5))
    started = time.monotonic()
    verdict = verdict_of(judge_for(server, kind, timeout_s=0.3, max_retries=1))
    assert time.monotonic() - started < 3
    assert verdict.outcome == "error" and verdict.error == "the judge's request timed out (after 2 attempts)"
    assert errors(verdict) == ["timeout", "timeout"] and all(a.latency_s >= 0.3 for a in verdict.attempts)


@pytest.mark.parametrize("code", [401, 403, 400])
def test_auth_and_other_4xx_are_never_retried(server: LLMServer, kind: str, code: int) -> None:
    server.script(Reply.status(code))
    verdict = verdict_of(judge_for(server, kind))
    assert verdict.outcome == "error" and f"HTTP {code}" in (verdict.error or "") and "not retried" in verdict.error
    assert server.calls == 1 and errors(verdict) == [f"http_{code}"] and verdict.retries == 0


def test_a_refusal_is_an_error_not_a_score(server: LLMServer, kind: str) -> None:
    server.script(Reply.judgment(finish="refusal"))
    verdict = verdict_of(judge_for(server, kind))
    assert verdict.outcome == "error" and verdict.error == "the judge refused to grade this case"
    assert server.calls == 1


def test_a_truncated_reply_is_an_error_even_when_its_json_happens_to_parse(server: LLMServer, kind: str) -> None:
    server.script(Reply.judgment(finish="length"))
    verdict = verdict_of(judge_for(server, kind))
    assert verdict.outcome == "error" and "truncated" in (verdict.error or "")
    assert server.calls == 1 and verdict.usage.output_tokens == 20


def test_an_unreachable_endpoint_is_a_network_error_after_the_retries(kind: str) -> None:
    with LLMServer() as gone:
        url = base_url_for(gone, kind)
    section = JudgeSection.model_validate({"kind": kind, "model": "m", "base_url": url, "max_retries": 1})
    judge = configured_judge(section, RUBRIC, KEYS, backoff_s=0.01)
    verdict = verdict_of(judge)
    assert verdict.outcome == "error" and errors(verdict) == ["network", "network"]
    assert verdict.error == "the judge's endpoint could not be reached (after 2 attempts)"


def test_a_case_with_nothing_to_quote_abstains_without_a_call(server: LLMServer, kind: str) -> None:
    golden = case(sources=[{"id": "s1", "title": "Empty", "text": ""}], gold_source_ids=["s1"])
    judge = judge_for(server, kind)
    output = quoting_output(golden, answer="")
    verdict = judge_verdict(judge, effective_config(judge, RUBRIC), golden, output, RUBRIC, item_id="i", created_at="T")
    assert verdict.outcome == "abstained" and verdict.reason == "nothing to quote: no source text, no answer"
    assert server.calls == 0 and verdict.attempts == [] and verdict.usage.input_tokens is None


def test_a_long_hostile_axis_name_in_a_reply_gives_a_short_printable_reason(server: LLMServer, kind: str) -> None:
    name = "\x1b[2J" + "x" * 5000
    server.script(Reply.text(json.dumps({"scores": {name: {"score": 1, "evidence": "10 years"}}})))
    verdict = verdict_of(judge_for(server, kind))
    assert verdict.outcome == "error" and verdict.error is not None
    assert len(verdict.error) <= 300 and "\x1b" not in verdict.error and "unknown axis" in verdict.error
