"""Judge calls run `[judge] concurrency` at a time, whatever the adapter's workers; results stay in suite order."""

from __future__ import annotations

import time

import pytest

from qaeval_tui.bundled.hub import ReferenceHub
from qaeval_tui.core.config.judge import JudgeSection
from qaeval_tui.core.judges.factory import configured_judge
from qaeval_tui.core.running.runner import run_suite
from tests.core.run_fixtures import FIXED_TIME, RUBRIC, case, loaded
from tests.llm_server import LLMServer


def test_judge_calls_run_concurrently_up_to_the_bound_and_results_keep_suite_order() -> None:
    cases = [loaded(case(f"warranty-{n:02d}"), line=n + 1) for n in range(16)]
    with LLMServer(latency_s=0.3) as server:
        section = JudgeSection(kind="openai", model="m", base_url=server.openai_base_url, concurrency=4)
        judge = configured_judge(section, RUBRIC, {"OPENAI_API_KEY": "sk-test-9"})
        seen: list[int] = []
        started = time.monotonic()
        result = run_suite(
            cases,
            ReferenceHub(),
            judge,
            rubric=RUBRIC,
            adapter_spec="t:a",
            judge_spec="t:j",
            workers=1,
            progress=lambda done, total: seen.append(done),
            clock=lambda: FIXED_TIME,
        )
        elapsed = time.monotonic() - started
        assert server.calls == 16 and server.max_in_flight == 4  # bounded, and the bound is used
    assert elapsed < 16 * 0.3 / 2  # one at a time would take 4.8 s; four at a time about 1.2 s
    assert [r.case_id for r in result.cases] == [c.case.id for c in cases]
    assert seen == list(range(1, 17))  # every count, in order, from the calling thread
    assert {r.verdict.outcome for r in result.cases} == {"faithful"}


def test_the_server_also_runs_in_a_child_process_for_benches() -> None:
    from tests.llm_server import SpawnedLLMServer

    with SpawnedLLMServer(latency_s=0.05) as server:
        section = JudgeSection(kind="anthropic", model="m", base_url=server.anthropic_base_url, concurrency=2)
        judge = configured_judge(section, RUBRIC, {"ANTHROPIC_API_KEY": "sk-test-3"})
        result = run_suite(
            [loaded(case(f"warranty-{n:02d}")) for n in range(4)],
            ReferenceHub(),
            judge,
            rubric=RUBRIC,
            adapter_spec="t:a",
            judge_spec="t:j",
            clock=lambda: FIXED_TIME,
        )
        assert server.calls == 4 and server.max_in_flight == 2
    assert {r.verdict.outcome for r in result.cases} == {"faithful"}


def test_an_error_inside_the_harness_is_raised_not_hung_on() -> None:
    from qaeval_tui.core.running.pipeline import pipelined

    def prepare(position: int) -> int:
        if position == 3:
            raise RuntimeError("a bug in the harness")
        return position

    async def double(value: int) -> int:
        return value * 2

    with pytest.raises(RuntimeError, match="a bug in the harness"):
        pipelined(prepare, double, 50, 2, 4, None)
    assert pipelined(lambda p: p, double, 5, 1, 3, None) == [0, 2, 4, 6, 8]
