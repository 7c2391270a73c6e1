"""Every path that runs a suite goes through one runner with the verdict cache, on a store opened once.

The judge is a real model server on loopback (`LLMServer`) whose `calls` count what a user pays for:
the review app's first start fills the cache that `qaeval run` then answers from, and the run after a
promotion asks only for the new case. Store openings are counted at the SQLite backend itself
(`Store.open`), so no opening escapes the count whatever name it was reached by.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from qaeval_tui.cli.main import app
from qaeval_tui.core.config import load_config
from qaeval_tui.core.store.sqlite import Store
from qaeval_tui.core.usecases.prepare import ensure_prepared
from qaeval_tui.core.usecases.queue import run_new_cases_and_queue
from qaeval_tui.tui.services import Services
from tests.conftest import write_jsonl
from tests.core.run_fixtures import case
from tests.judgeops.test_verdict_cache import configure_model_judge
from tests.llm_server import LLMServer

runner = CliRunner()


def write_golden(tmp_path: Path, n: int) -> Path:
    cases = [case(f"warranty-{i:02d}", question=f"How long is the HB-10 warranty? {i}") for i in range(n)]
    folder = tmp_path / "golden"
    write_jsonl(folder / "frozen.jsonl", [c.model_dump(mode="json") for c in cases])
    return folder


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[LLMServer]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-one-runner")
    with LLMServer() as served:
        yield served


@pytest.fixture
def openings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every SQLite store opened from now on, by path."""
    opened: list[str] = []
    original = Store.open.__func__  # type: ignore[attr-defined]

    def counting(cls: type[Store], /, path: str | Path, **options: Any) -> Store:
        opened.append(str(path))
        store: Store = original(cls, path, **options)
        return store

    monkeypatch.setattr(Store, "open", classmethod(counting))
    return opened


def qaeval(config: Path, *args: str) -> dict[str, Any]:
    result = runner.invoke(app, ["--config", str(config), *args])
    assert result.exit_code == 0, result.output
    document: dict[str, Any] = json.loads(result.stdout) if result.stdout.startswith("{") else {}
    return document


def test_the_review_apps_first_start_fills_the_cache_qaeval_run_then_answers_from(
    tmp_path: Path, server: LLMServer
) -> None:
    folder = write_golden(tmp_path, 5)
    config_path = configure_model_judge(tmp_path, server.openai_base_url)
    db = tmp_path / "runs.db"
    with Store.open(db) as store:
        report = ensure_prepared(store, load_config(config_path), [folder], "ana")
    assert report.ran and server.calls == 5
    document = qaeval(config_path, "run", "--data", str(folder), "--db", str(db), "--json")
    assert server.calls == 5  # the second run paid for nothing
    assert document["run"]["judge_calls"]["calls"] == 0 and document["run"]["judge_calls"]["cached"] == 5


def test_the_run_after_a_promotion_asks_only_for_the_new_case_and_qaeval_run_then_asks_nothing(
    tmp_path: Path, server: LLMServer
) -> None:
    folder = write_golden(tmp_path, 3)
    config_path = configure_model_judge(tmp_path, server.openai_base_url)
    db = tmp_path / "runs.db"
    qaeval(config_path, "run", "--data", str(folder), "--db", str(db))
    assert server.calls == 3
    write_golden(tmp_path, 4)  # a case joins the golden set (what a promotion does)
    with Store.open(db) as store:
        done = run_new_cases_and_queue(load_config(config_path), store, [folder])
    assert done.ran == ("warranty-03",) and server.calls == 4  # the new case only
    document = qaeval(config_path, "run", "--data", str(folder), "--db", str(db), "--json")
    assert server.calls == 4 and document["run"]["judge_calls"]["cached"] == 4


@pytest.mark.parametrize("command", ["run", "baseline", "gate", "drift"])
def test_a_command_that_runs_the_suite_opens_the_store_once(
    tmp_path: Path, server: LLMServer, openings: list[str], command: str
) -> None:
    folder = write_golden(tmp_path, 3)
    config_path = configure_model_judge(tmp_path, server.openai_base_url)
    db = str(tmp_path / "runs.db")
    common = ["--data", str(folder), "--db", db]
    baseline = tmp_path / "baseline.json"
    qaeval(config_path, "baseline", *common, "--out", str(baseline))
    openings.clear()
    extra = {
        "run": ["--json"],
        "baseline": ["--out", str(tmp_path / "again.json")],
        "gate": ["--baseline", str(baseline), "--json"],
        "drift": ["--timeseries", str(tmp_path / "series.jsonl")],
    }[command]
    qaeval(config_path, command, *common, *extra)
    assert openings == [db]


def test_the_review_apps_first_start_and_the_run_after_a_promotion_open_the_store_once(
    tmp_path: Path, server: LLMServer, openings: list[str]
) -> None:
    folder = write_golden(tmp_path, 3)
    config_path = configure_model_judge(tmp_path, server.openai_base_url)
    db = tmp_path / "runs.db"
    services = Services(load_config(config_path), db, [folder])
    try:
        assert services.prepare("ana", lambda _step: None).ran
        assert openings == [str(db)]
        write_golden(tmp_path, 4)  # a case joins the golden set (what a promotion does)
        assert services.run_new_cases_and_queue().ran == ("warranty-03",)
    finally:
        services.close()
    assert openings == [str(db)] and server.calls == 4
