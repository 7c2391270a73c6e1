"""The verdict cache: an unchanged suite asks the judge nothing the second time; `--no-cache` asks again.

The judge is a real HTTP client of a loopback server whose call count is the truth: every case
the judge asks is one request there.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from qaeval_tui.cli.main import app
from qaeval_tui.core.store.sqlite import Store
from tests.conftest import write_jsonl
from tests.core.run_fixtures import case
from tests.judgeops.loopback_judge import URL_ENV
from tests.judgeops.sut_server import Reply, serve

runner = CliRunner()
JUDGE = "tests.judgeops.loopback_judge:make_loopback_judge"


def scores(request: dict[str, Any], attempt: int) -> Reply:
    return Reply(
        body={
            "scores": {"faithfulness": 2, "citation_correctness": 1, "answer_correctness": 2},
            "input_tokens": 120,
            "output_tokens": 30,
            "model": "scripted-1-2026",
        }
    )


def golden(tmp_path: Path, n: int = 4, changed: int | None = None) -> Path:
    cases = [
        case(
            f"warranty-{i:02d}", question=f"How long is the HB-10 warranty?{' (reworded)' if i == changed else ''} {i}"
        )
        for i in range(n)
    ]
    folder = tmp_path / "golden"
    write_jsonl(folder / "frozen.jsonl", [c.model_dump(mode="json") for c in cases])
    return folder


def run(tmp_path: Path, *args: str) -> Result:
    return runner.invoke(
        app,
        ["run", "--data", str(tmp_path / "golden"), "--db", str(tmp_path / "runs.db"), "--judge", JUDGE, *args],
    )


def artifact(result: Result) -> dict[str, Any]:
    assert result.exit_code == 0, result.output
    document: dict[str, Any] = json.loads(result.stdout)
    return document


@pytest.fixture
def judge_server(monkeypatch: pytest.MonkeyPatch) -> Any:
    with serve(scores) as server:
        monkeypatch.setenv(URL_ENV, server.url)
        yield server


def test_an_unchanged_rerun_makes_zero_judge_calls_and_gives_the_same_verdicts(
    tmp_path: Path, judge_server: Any
) -> None:
    golden(tmp_path, 4)
    first = artifact(run(tmp_path, "--json"))
    assert judge_server.calls == 4
    assert first["run"]["judge_calls"] == {
        "calls": 4, "cached": 0, "errors": 0, "input_tokens": 480, "output_tokens": 120,
        "calls_without_usage": 0, "estimated_cost": None, "currency": None,
    }  # fmt: skip
    second = artifact(run(tmp_path, "--json"))
    assert judge_server.calls == 4  # not one more request
    assert second["run"]["judge_calls"]["calls"] == 0 and second["run"]["judge_calls"]["cached"] == 4
    assert second["run"]["judge_calls"]["input_tokens"] == 0  # a cached verdict costs nothing this time
    assert [c["verdict"]["scores"] for c in second["cases"]] == [c["verdict"]["scores"] for c in first["cases"]]
    assert second["metrics"] == first["metrics"]
    with Store.open(tmp_path / "runs.db") as store:
        assert len(store.list_runs()) == 2  # both runs are stored, the second's verdicts too
        assert len(store.verdicts()) == 8


def test_no_cache_asks_the_judge_again_for_every_case(tmp_path: Path, judge_server: Any) -> None:
    golden(tmp_path, 3)
    artifact(run(tmp_path, "--json"))
    again = artifact(run(tmp_path, "--json", "--no-cache"))
    assert judge_server.calls == 6 and again["run"]["judge_calls"]["cached"] == 0


def test_only_a_changed_case_is_asked_again(tmp_path: Path, judge_server: Any) -> None:
    golden(tmp_path, 4)
    artifact(run(tmp_path, "--json"))
    golden(tmp_path, 4, changed=2)  # its content hash (and so its key) changes
    second = artifact(run(tmp_path, "--json"))
    assert judge_server.calls == 5
    assert judge_server.requests[-1]["id"] == "warranty-02"
    assert second["run"]["judge_calls"]["cached"] == 3


def test_a_failed_judge_call_is_not_cached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    golden(tmp_path, 2)
    outage = {"on": True}

    def flaky(request: dict[str, Any], attempt: int) -> Reply:
        if outage["on"] and request["id"] == "warranty-01":
            return Reply(500, {"error": "down"})
        return scores(request, attempt)

    with serve(flaky) as server:
        monkeypatch.setenv(URL_ENV, server.url)
        first = artifact(run(tmp_path, "--json"))
        assert first["run"]["judge_calls"]["errors"] == 1 and first["run"]["judge_errors"] == 1
        outage["on"] = False
        second = artifact(run(tmp_path, "--json"))
    assert server.calls == 3  # warranty-00 from the cache, warranty-01 asked again
    assert second["run"]["judge_errors"] == 0 and second["run"]["judge_calls"]["cached"] == 1


def test_the_scoreboard_reports_the_judge_calls(tmp_path: Path, judge_server: Any) -> None:
    golden(tmp_path, 2)
    run(tmp_path)
    result = run(tmp_path)
    assert result.exit_code == 0, result.output
    assert "Judge calls: 0   cached: 2   errors: 0   tokens: 0 in / 0 out" in result.stdout


def test_the_bundled_judge_writes_nothing_to_the_cache(tmp_path: Path) -> None:
    golden(tmp_path, 2)
    result = runner.invoke(
        app, ["run", "--data", str(tmp_path / "golden"), "--db", str(tmp_path / "runs.db"), "--json"]
    )
    assert result.exit_code == 0, result.output
    assert "judge_calls" not in json.loads(result.stdout)["run"]
    with Store.open(tmp_path / "runs.db") as store:
        assert store.count("judge_cache") == 0


def configure_model_judge(tmp_path: Path, base_url: str, pricing: bool = True) -> Path:
    lines = ["[judge]", 'kind = "openai"', 'model = "judge-small"', f'base_url = "{base_url}"', "concurrency = 4"]
    if pricing:
        lines += ["[judge.pricing]", "input_per_million = 2.5", "output_per_million = 10.0", 'currency = "EUR"']
    path = tmp_path / "qaeval.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_configured_model_judge_is_cached_and_its_cost_estimated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.llm_server import LLMServer

    golden(tmp_path, 4)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-9")
    with LLMServer() as server:
        config = configure_model_judge(tmp_path, server.openai_base_url)
        base = ["--config", str(config), "run", "--data", str(tmp_path / "golden"), "--db", str(tmp_path / "r.db")]
        first = artifact(runner.invoke(app, [*base, "--json"]))
        assert server.calls == 4
        # 4 replies of 100 input and 20 output tokens: (400 x 2.5 + 80 x 10) / 1e6
        assert first["run"]["judge_calls"]["estimated_cost"] == pytest.approx(0.0018)
        assert first["run"]["judge_calls"]["currency"] == "EUR"
        second = runner.invoke(app, base)
        assert second.exit_code == 0, second.output
        assert server.calls == 4  # the rerun asked the model nothing
        assert "Judge calls: 0   cached: 4   errors: 0   tokens: 0 in / 0 out   estimated cost: 0.0000 EUR" in (
            second.stdout
        )
        fresh = artifact(runner.invoke(app, [*base, "--json", "--no-cache"]))
        assert server.calls == 8 and fresh["run"]["judge_calls"]["calls"] == 4


def test_the_progress_display_gets_the_judge_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from contextlib import contextmanager

    from qaeval_tui.core.config import load_config
    from qaeval_tui.core.usecases.run import run_from_config
    from tests.llm_server import LLMServer

    golden(tmp_path, 3)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-9")
    lines: list[str] = []

    def update(done: int, total: int, judge_line: str = "") -> None:
        lines.append(f"{done}/{total} {judge_line}")

    update.shows_judge_line = True  # type: ignore[attr-defined]

    @contextmanager
    def display() -> Any:
        yield update

    with LLMServer() as server:
        config = load_config(configure_model_judge(tmp_path, server.openai_base_url))
        with Store.open(tmp_path / "r.db") as store:
            run_from_config(config, [tmp_path / "golden"], store, progress=display)
    assert (
        lines[-1] == "3/3 judge: 3 calls, 0 in flight, 0 cached, 0 errors, 360 tokens, ~0.0014 EUR"
    )  # (300 x 2.5 + 60 x 10) / 1e6


@pytest.mark.parametrize("stored", [1.5, True, "2", 7])
def test_a_cache_entry_whose_score_is_no_whole_number_is_not_trusted_and_the_judge_is_asked_again(
    tmp_path: Path, judge_server: Any, stored: object
) -> None:
    """The cache is a table any curator's login may write: a score that is no whole number (1.5 would
    have read as 1, true as 1, "2" as 2) or off the scale (an error verdict) is no cached verdict, and
    that case's judge is asked afresh."""
    import sqlite3

    golden(tmp_path, 2)
    artifact(run(tmp_path, "--json"))
    with sqlite3.connect(tmp_path / "runs.db") as conn:
        (key, text) = conn.execute("SELECT case_hash, result_json FROM judge_cache ORDER BY case_hash").fetchone()
        document = json.loads(text)
        document["scores"]["faithfulness"] = stored
        conn.execute("UPDATE judge_cache SET result_json = ? WHERE case_hash = ?", (json.dumps(document), key))
    second = artifact(run(tmp_path, "--json"))
    assert judge_server.calls == 3  # the tampered entry's case only
    assert {c["verdict"]["scores"]["faithfulness"] for c in second["cases"]} == {2}


def test_a_run_stopped_halfway_keeps_what_it_paid_for_and_the_rerun_asks_only_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from collections.abc import Callable, Iterator
    from contextlib import contextmanager

    from qaeval_tui.core.config import Config, JudgeSection
    from qaeval_tui.core.judges.cache import SAVE_EVERY
    from qaeval_tui.core.usecases.run import run_from_config
    from tests.llm_server import LLMServer

    total, stop_at = SAVE_EVERY + 44, SAVE_EVERY + 20
    folder = golden(tmp_path, total)
    db = tmp_path / "runs.db"

    @contextmanager
    def stopped_halfway() -> Iterator[Callable[[int, int], None]]:
        def update(done: int, of: int) -> None:
            if done == stop_at:
                raise KeyboardInterrupt  # Ctrl-C, or a killed process, with most of the suite judged

        yield update

    monkeypatch.setenv("QAEVAL_TEST_KEY", "sk-test-halfway")
    with LLMServer() as server:
        section = JudgeSection(
            kind="openai", model="m", base_url=server.openai_base_url, api_key_env="QAEVAL_TEST_KEY", concurrency=4
        )
        config = Config(base_dir=str(tmp_path), judge=section)
        with pytest.raises(KeyboardInterrupt), Store.open(db) as store:
            run_from_config(config, [folder], store, progress=stopped_halfway)
        with Store.open(db) as store:
            kept = store.count("judge_cache")
            assert store.list_runs() == []  # no half run on record
        assert kept >= SAVE_EVERY  # saved as the cases finished, not at the end
        asked = server.calls
        with Store.open(db) as store:
            rerun = run_from_config(config, [folder], store)
    assert server.calls - asked == total - kept  # the rerun pays only for what was not kept
    assert rerun.judge_calls is not None and rerun.judge_calls["cached"] == kept
    assert {r.verdict.outcome for r in rerun.cases} == {"faithful"}


def test_k_samples_are_k_judgements_keyed_by_sample_and_a_rerun_asks_nothing(tmp_path: Path, judge_server: Any) -> None:
    # The reference hub answers alike every time; with the sample in the cache key, 3 samples of 4 cases
    # are 12 calls (a sampled system's judge, asked once per output, would judge one sample 3 times).
    golden(tmp_path, 4)
    first = artifact(run(tmp_path, "--json", "--samples", "3"))
    assert judge_server.calls == 12 and first["run"]["judge_calls"]["calls"] == 12
    assert first["run"]["samples"] == 3
    assert [[s["sample"] for s in c["samples"]] for c in first["cases"]] == [[0, 1, 2]] * 4
    second = artifact(run(tmp_path, "--json", "--samples", "3"))
    assert judge_server.calls == 12 and second["run"]["judge_calls"]["cached"] == 12
    one = artifact(run(tmp_path, "--json"))  # sample 0's key is the unsampled run's: cached, no sample field
    assert judge_server.calls == 12 and one["run"]["judge_calls"]["cached"] == 4 and "samples" not in one["run"]
