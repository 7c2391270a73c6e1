"""The collector pause lives in the core, around each batch step, so every caller (CLI, TUI, benchmark)
gets it: building a run artifact or a baseline document over every case runs paused (on 10,000 cases a
second each otherwise)."""

from __future__ import annotations

import gc
from typing import Any

import pytest

from qaeval_tui.core.config import Config
from qaeval_tui.core.gate.baseline import baseline_document
from qaeval_tui.core.running.result import CaseResult, RunResult
from qaeval_tui.core.usecases.configured import plan_run
from tests.conftest import DEMO_GOLDEN


@pytest.fixture(scope="module")
def result() -> RunResult:
    return plan_run(Config(), [DEMO_GOLDEN / "frozen.jsonl"]).run()


def test_documents_over_every_case_are_built_with_the_collector_paused(
    result: RunResult, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[bool] = []
    case_json = CaseResult.to_json
    header = RunResult.header

    def recording_case_json(self: CaseResult) -> dict[str, Any]:
        seen.append(gc.isenabled())
        return case_json(self)

    def recording_header(self: RunResult) -> dict[str, Any]:
        seen.append(gc.isenabled())
        return header(self)

    monkeypatch.setattr(CaseResult, "to_json", recording_case_json)
    monkeypatch.setattr(RunResult, "header", recording_header)
    was_enabled = gc.isenabled()
    gc.enable()  # as in a fresh process, whatever an earlier test left
    try:
        result.artifact()
        baseline_document(result)
        assert gc.isenabled(), "the collector was not restored"
    finally:
        if not was_enabled:
            gc.disable()
    assert seen and not any(seen), "a document was built with the collector running"
