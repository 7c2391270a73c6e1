"""A run is streamed to the store as its cases finish: a `qaeval run` killed halfway keeps what it judged.

The run is a real `qaeval run` process against a model server on loopback (`LLMServer`, whose `calls`
count what a user pays for), killed with SIGKILL (no handler runs; its process group, so the supervised
child that runs the suite too) once the store shows its first cases.
What it stored stays (each case's output with its verdict), the run is on record as unfinished and never
as a run, and the rerun asks the judge only for what the verdict cache did not keep.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from qaeval_tui.cli.main import app
from qaeval_tui.core.store.sqlite import Store
from tests.judgeops.test_one_runner import write_golden
from tests.judgeops.test_verdict_cache import configure_model_judge
from tests.llm_server import LLMServer

ROOT = Path(__file__).resolve().parents[2]


def stored_outputs(db: Path) -> int:
    """Output rows committed so far, read as another process would (0 before the store exists)."""
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
            return int(conn.execute("SELECT count(*) FROM run_outputs").fetchone()[0])
    except sqlite3.OperationalError:  # no store yet, or no table yet
        return 0


def settled_calls(server: LLMServer) -> int:
    """The server's call count once no request of the killed process is still arriving."""
    calls = -1
    while calls != server.calls:
        calls = server.calls
        time.sleep(0.3)
    return calls


def test_a_killed_run_keeps_what_it_judged_and_the_rerun_asks_only_for_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    total = 400
    folder = write_golden(tmp_path, total)
    db = tmp_path / "runs.db"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-streamed")
    with LLMServer(latency_s=0.05) as server:
        config = configure_model_judge(tmp_path, server.openai_base_url)  # 4 calls in flight: about 5 s in all
        command = [sys.executable, "-m", "qaeval_tui", "--config", str(config), "run", "--data", str(folder)]
        command += ["--db", str(db)]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        process = subprocess.Popen(  # a session of its own: the kill reaches the supervised child running the suite
            command, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        deadline = time.monotonic() + 60
        while stored_outputs(db) == 0 and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
        assert process.returncode == -signal.SIGKILL  # killed mid-run, not finished first

        with Store.open(db) as store:
            [cut] = store.unfinished_runs()
            stored = store.run_outputs(cut.run_id)
            verdicts = store.verdicts(run_id=cut.run_id)
            cached = store.count("judge_cache")
            assert store.list_runs() == [] and store.latest_run() is None  # no reader takes it for a run
            assert store.get_run(cut.run_id) is None
        assert 0 < len(stored) < total  # what it judged before the kill, and not everything
        assert {v.case_id for v in verdicts} == {o.case_id for o in stored}  # each output with its verdict
        assert {v.status for v in verdicts} == {"ok"}
        assert cached >= len(stored)  # the cache was saved with every batch
        asked = settled_calls(server)

        listed = CliRunner().invoke(app, ["runs", "list", "--unfinished", "--json", "--db", str(db)])
        assert listed.exit_code == 0, listed.output
        [shown] = json.loads(listed.stdout)  # the user can see what the killed run left, and how much
        assert shown["run_id"] == cut.run_id and shown["n_cases"] == len(stored) and shown["finished_at"] == ""

        rerun = CliRunner().invoke(app, ["--config", str(config), "run", "--data", str(folder), "--db", str(db)])
        assert rerun.exit_code == 0, rerun.output
        assert server.calls - asked == total - cached  # only the calls the killed run had not paid for

    with Store.open(db) as store:
        [finished] = store.list_runs()
        assert finished.n_cases == total and finished.finished_at
        assert len(store.run_outputs(finished.run_id)) == total
        assert [run.run_id for run in store.unfinished_runs()] == [cut.run_id]  # still on record as cut short


def test_the_artifact_of_a_streamed_run_is_the_run_it_stored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The run keeps its cases compact; `--out` reads them back, each with its output, checks and verdict.
    folder = write_golden(tmp_path, 6)
    db = tmp_path / "runs.db"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-streamed")
    with LLMServer() as server:
        config = configure_model_judge(tmp_path, server.openai_base_url)
        out = tmp_path / "run.json"
        done = CliRunner().invoke(
            app, ["--config", str(config), "run", "--data", str(folder), "--db", str(db), "--out", str(out)]
        )
    assert done.exit_code == 0, done.output
    document = json.loads(out.read_text(encoding="utf-8"))
    cases = document["cases"]
    assert [c["case_id"] for c in cases] == [f"warranty-{i:02d}" for i in range(6)]
    first = cases[0]
    assert list(first)[:5] == ["position", "case_id", "case_hash", "output_hash", "output"]
    assert first["output"]["answer"] and first["checks"] and first["verdict"]["evidence"]
    assert list(first).index("verdict") == list(first).index("values") + 1
    with Store.open(db) as store:
        [run] = store.list_runs()
        assert run.run_id == document["run"]["run_id"] and run.n_cases == 6
        assert run.metrics == document["metrics"]


@pytest.mark.parametrize("workers", [1, 3])
def test_a_store_pinned_to_its_thread_is_written_only_from_it(
    tmp_path: Path, workers: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The review app's store refuses any other thread (`one_thread`): with several adapter threads and the
    # bundled (synchronous) judge, every batch is still written from the thread that ran the suite.
    from qaeval_tui.core.config import Config
    from qaeval_tui.core.usecases.run import RunStream, plan_suite, run_and_store

    folder = write_golden(tmp_path, 40)
    plan = plan_suite(Config(base_dir=str(tmp_path)), [folder], workers=workers)
    with Store.open(tmp_path / "runs.db", one_thread=True) as store:
        monkeypatch.setattr(RunStream, "BATCH", 7)  # several batches in a small suite
        result = run_and_store(store, plan, write_on_a_thread=False)
        [run] = store.list_runs()
        assert run.run_id == result.run_id and run.n_cases == 40
        assert [o.case_id for o in store.run_outputs(run.run_id)] == [f"warranty-{i:02d}" for i in range(40)]
    assert all(case.compacted for case in result.cases)
    # Nor does the run hold a case's texts once it is stored: the golden case is known by its line again.
    assert all(case.loaded.by_line for case in result.cases)


def test_a_labelled_case_is_whole_again_for_ppi_from_its_stored_output(tmp_path: Path) -> None:
    # PPI recomputes a labelled case's values with the human scores as the verdict: it needs the output,
    # checks and trajectory the compact case no longer holds, rebuilt from the stored output as they were.
    from qaeval_tui.core.config import Config
    from qaeval_tui.core.store.rows import LabelDraft
    from qaeval_tui.core.usecases.run import plan_suite, run_and_store, whole_labelled_cases

    folder = write_golden(tmp_path, 6)
    plan = plan_suite(Config(base_dir=str(tmp_path)), [folder])
    whole = {case.case_id: case for case in plan.run().cases}  # the same deterministic system, held whole
    with Store.open(tmp_path / "runs.db") as store:
        result = run_and_store(store, plan)
        labelled = result.cases[1]
        store.append_label(LabelDraft(labelled.item_id, labelled.case_id, "ana", {"faithfulness": 2}, "1"))
        again = whole_labelled_cases(result, store)
    assert result.cases[1].compacted and not result.cases[1].checks  # nothing failed, nothing kept
    rebuilt = again.cases[1]
    original = whole[rebuilt.case_id]
    assert not rebuilt.compacted and rebuilt.output == original.output
    assert rebuilt.checks == original.checks and rebuilt.trajectory == original.trajectory
    assert rebuilt.values == original.values
    assert [case.compacted for case in again.cases] == [True, False, True, True, True, True]  # only the labelled
