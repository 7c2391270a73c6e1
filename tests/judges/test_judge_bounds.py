"""A model judge's reply is bounded and read as data (issue 20), against the loopback server: `timeout_s`
bounds the whole attempt (a reply dripped one byte at a time included), a reply's size is capped, a
model name that is no Unicode is a located error verdict, a huge usage count with a pricing table is
unknown usage (no OverflowError), and the pricing's currency reaches the progress line escaped."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from qaeval_tui.bundled.hub import ReferenceHub
from qaeval_tui.core.config.judge import JudgeSection
from qaeval_tui.core.config.judge_providers import PROVIDERS
from qaeval_tui.core.judges.cache import CachedJudge, JudgeTally, Pricing, VerdictCache
from qaeval_tui.core.judges.factory import configured_judge
from qaeval_tui.core.judges.providers import MAX_REPLY_BYTES
from qaeval_tui.core.models.run import JudgeVerdict
from qaeval_tui.core.running.judge import JudgeClient, effective_config, judge_verdict
from qaeval_tui.core.running.runner import run_suite, store_run
from qaeval_tui.core.store.opening import open_store
from tests.core.run_fixtures import FIXED_TIME, RUBRIC, case, loaded, quoting_output
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
    settings: dict[str, object] = {"model": "judge-m", "base_url": url, "timeout_s": 2.0, "max_retries": 0}
    settings.update(options)
    section = JudgeSection.model_validate({"kind": kind, **settings})
    return configured_judge(section, RUBRIC, KEYS, backoff_s=0.01)


def verdict_of(judge: JudgeClient) -> JudgeVerdict:
    golden = case()
    config = effective_config(judge, RUBRIC)
    return judge_verdict(judge, config, golden, quoting_output(golden), RUBRIC, item_id="i", created_at="T")


def test_a_reply_dripped_a_byte_at_a_time_times_out_at_timeout_s(server: LLMServer, kind: str) -> None:
    server.script(Reply.drip(0.05))  # every read is quick; the ~500-byte reply would take ~25 s
    started = time.monotonic()
    verdict = verdict_of(judge_for(server, kind, timeout_s=0.5))
    elapsed = time.monotonic() - started
    assert verdict.outcome == "error" and verdict.error == "the judge's request timed out (after 1 attempt)"
    assert [a.error for a in verdict.attempts] == ["timeout"]
    assert 0.5 <= elapsed < 2.0  # the whole attempt, not each read, is bounded


def test_a_reply_larger_than_the_cap_is_an_error_read_no_further(server: LLMServer, kind: str) -> None:
    server.script(Reply.oversized(200 * 1024 * 1024))
    started = time.monotonic()
    verdict = verdict_of(judge_for(server, kind, timeout_s=30.0))
    assert time.monotonic() - started < 10  # 4 MiB read, not 200
    assert verdict.outcome == "error" and verdict.error is not None
    assert verdict.error.startswith(f"the judge's reply is larger than {MAX_REPLY_BYTES // (1024 * 1024)} MiB")
    assert [a.error for a in verdict.attempts] == ["reply_too_large"] and server.calls == 1  # never retried


def test_a_model_name_holding_a_lone_surrogate_is_an_error_verdict_the_store_takes(
    server: LLMServer, kind: str, tmp_path: Path
) -> None:
    server.script(Reply.judgment(model="judge-\ud800"))
    judge = judge_for(server, kind)
    assert verdict_of(judge).error == "the judge's API returned a model name that is not valid Unicode"
    server.script(Reply.judgment(model="judge-\udfff"))
    result = run_suite(
        [loaded(case())], ReferenceHub(), judge, rubric=RUBRIC, adapter_spec="t:a", judge_spec="t:j",
        clock=lambda: FIXED_TIME,
    )  # fmt: skip
    verdict = result.cases[0].verdict
    assert verdict.outcome == "error" and "not valid Unicode" in (verdict.error or "")
    assert verdict.returned_model is None
    with open_store(tmp_path / "s.db") as store:
        with store.transaction():
            store_run(store, result)  # nothing in the verdict that UTF-8 cannot hold
        assert store.get_run(result.run_id) is not None


def test_a_huge_usage_count_is_unknown_usage_and_the_cost_line_prints(server: LLMServer, kind: str) -> None:
    server.script(Reply.judgment(usage=(10**400, 20)))
    tally = JudgeTally(pricing=Pricing(3.0, 15.0, "USD"))
    judge = CachedJudge(judge_for(server, kind), VerdictCache("h"), tally)
    verdict = verdict_of(judge)
    assert verdict.outcome == "faithful"
    assert verdict.usage.input_tokens is None and verdict.usage.output_tokens == 20
    totals = tally.to_json()  # no OverflowError: the count is no count, not summed, not priced
    assert totals["calls_without_usage"] == 1 and totals["estimated_cost"] == 0.0003
    assert "~0.0003 USD" in tally.line()
    json.dumps(totals)


def test_the_pricing_currency_reaches_the_progress_line_escaped(server: LLMServer, kind: str) -> None:
    server.script(Reply.judgment(usage=(1000, 100)))
    tally = JudgeTally(pricing=Pricing(3.0, 15.0, "\x1b]52;c;eA==\x07[b]E"))
    verdict_of(CachedJudge(judge_for(server, kind), VerdictCache("h"), tally))
    line = tally.line()
    assert "\x1b" not in line and "\x07" not in line
    assert line.endswith("~0.0045 \\x1b]52;c;eA==\\x07[b]E")  # printed literally, never cut
