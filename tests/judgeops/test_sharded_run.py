"""A run shared out among worker processes (`[run] processes`) stores what the in-process run stores.

The demo suite with the bundled (deterministic) system and judge, run in one process and on two forked
workers: the same stored rows (each output, its measured result and its verdict), the same scoreboard and
the same gate JSON, apart from what differs between any two runs (the run's id, its clock, the adapter's
seconds). A model judge behind a loopback server: every case asked once, the verdict cache saved from the
workers' results (a rerun asks nothing), the judge's totals those of the in-process run; a killed sharded
run's workers stop calling the judge and what it judged stays stored.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from typer.testing import CliRunner

from qaeval_tui.cli.main import app
from qaeval_tui.core.running.shards import concurrency_shares, shard_count
from qaeval_tui.core.store.sqlite import Store
from tests.judgeops.test_one_runner import write_golden
from tests.judgeops.test_streamed_run import settled_calls, stored_outputs
from tests.llm_server import LLMServer

ROOT = Path(__file__).resolve().parents[2]
VOLATILE = {"run_id", "started_at", "finished_at", "created_at", "seconds", "latency_s", "code_version"}


def steady(value: Any) -> Any:
    """`value` without what differs between any two runs of the same inputs (ids, clocks, timings)."""
    if isinstance(value, dict):
        return {key: steady(item) for key, item in value.items() if key not in VOLATILE}
    if isinstance(value, list | tuple):
        return [steady(item) for item in value]
    return value


def config_with(tmp_path: Path, processes: int, extra: str = "") -> Path:
    path = tmp_path / f"qaeval-{processes}.toml"
    path.write_text(f"[run]\nprocesses = {processes}\n{extra}", encoding="utf-8")
    return path


def stored_rows(db: Path) -> list[Any]:
    with Store.open(db) as store:
        [run] = store.list_runs()
        outputs = [
            (o.position, o.case_id, o.case_hash, o.output_hash, o.output, o.result)
            for o in store.run_outputs(run.run_id)
        ]
        verdicts = sorted(
            (v.item_id, v.case_id, v.status, v.verdict.to_json()) for v in store.verdicts(run_id=run.run_id)
        )
        return [steady(run.data), run.metrics, run.n_cases, steady(outputs), steady(verdicts)]


def test_two_worker_processes_store_and_gate_what_one_process_does(tmp_path: Path) -> None:
    runner = CliRunner()
    golden = ROOT / "golden"
    baseline = tmp_path / "baseline.json"
    made = runner.invoke(app, ["--config", str(config_with(tmp_path, 1)), "baseline", "--data", str(golden),
                               "--db", str(tmp_path / "base.db"), "--out", str(baseline)])  # fmt: skip
    assert made.exit_code == 0, made.output
    documents = {}
    for processes in (1, 2):
        db = tmp_path / f"p{processes}.db"
        gate = runner.invoke(app, ["--config", str(config_with(tmp_path, processes)), "gate", "--data", str(golden),
                                   "--baseline", str(baseline), "--db", str(db), "--json"])  # fmt: skip
        assert gate.exit_code in (0, 1), gate.output
        documents[processes] = (gate.exit_code, steady(json.loads(gate.output)), stored_rows(db))
    assert documents[2] == documents[1]
    assert documents[1][2][2] == len(documents[1][2][3]) > 30  # every case of the demo suite, stored


def test_workers_are_forked_before_the_store_writer_thread_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Forking a process while another of its threads runs is unsafe (a lock it holds stays held in the child;
    # Python 3.12 warns): the run's store writer starts only once its workers are forked.
    import threading

    real_fork = os.fork
    at_fork: list[list[str]] = []

    def fork() -> int:
        at_fork.append([thread.name for thread in threading.enumerate()])
        return real_fork()

    monkeypatch.setattr(os, "fork", fork)
    done = CliRunner().invoke(app, ["--config", str(config_with(tmp_path, 2)), "run", "--data", str(ROOT / "golden"),
                                    "--db", str(tmp_path / "runs.db")])  # fmt: skip
    assert done.exit_code in (0, 1), done.output
    assert len(at_fork) == 2 and not any("qaeval-store-writer" in names for names in at_fork)
    with Store.open(tmp_path / "runs.db") as store:
        [run] = store.list_runs()
        assert run.n_cases == len(store.run_outputs(run.run_id)) > 30


def test_sampled_cases_on_workers_are_merged_as_in_one_process(tmp_path: Path) -> None:
    # k samples of a case may finish on different workers: the parent merges them at the case's position.
    from dataclasses import replace

    from qaeval_tui.core.config import Config
    from qaeval_tui.core.usecases.run import plan_suite, run_and_store

    plan = plan_suite(Config(base_dir=str(tmp_path)), [ROOT / "golden"], samples=3)
    total = 3 * len(plan.golden.cases)

    def run_on(processes: int) -> list[Any]:
        db = tmp_path / f"s{processes}.db"
        seen: list[tuple[int, int]] = []
        with Store.open(db) as store:
            result = run_and_store(store, replace(plan, processes=processes), update=lambda *done: seen.append(done))
        assert result.samples == 3 and len(result.cases) == len(plan.golden.cases)
        assert seen == [(done, total) for done in range(1, total + 1)]  # every count, in order, as in one process
        return stored_rows(db)

    rows = {processes: run_on(processes) for processes in (1, 2)}
    assert rows[2] == rows[1]


def run_cli(config: Path, folder: Path, db: Path) -> dict[str, Any]:
    done = CliRunner().invoke(app, ["--config", str(config), "run", "--data", str(folder), "--db", str(db), "--json"])
    assert done.exit_code in (0, 1), done.output
    document: dict[str, Any] = json.loads(done.output)
    return document


def model_judge(base_url: str) -> str:
    return f'[judge]\nkind = "openai"\nmodel = "judge-small"\nbase_url = "{base_url}"\nconcurrency = 4\n'


def test_a_model_judge_on_workers_is_asked_once_a_case_and_its_cache_answers_the_rerun(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = write_golden(tmp_path, 60)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-sharded")
    with LLMServer(latency_s=0.01) as server:
        one = run_cli(config_with(tmp_path, 1, model_judge(server.openai_base_url)), folder, tmp_path / "one.db")
        assert server.calls == 60
        sharded = config_with(tmp_path, 2, model_judge(server.openai_base_url))
        two = run_cli(sharded, folder, tmp_path / "two.db")
        assert server.calls == 120  # each case asked once, by one of the two workers
        rerun = run_cli(sharded, folder, tmp_path / "two.db")
        assert server.calls == 120  # the workers' verdicts were cached by the parent: the rerun asks nothing
    assert two["run"]["judge_calls"] == one["run"]["judge_calls"]
    assert two["run"]["judge_calls"]["calls"] == 60
    assert rerun["run"]["judge_calls"]["cached"] == 60 and rerun["run"]["judge_calls"]["calls"] == 0
    assert steady(two["cases"]) == steady(one["cases"]) and two["metrics"] == one["metrics"]
    assert {case["verdict"]["status"] for case in two["cases"]} == {"ok"}


def test_a_killed_sharded_run_keeps_what_it_judged_and_its_workers_stop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    total = 400
    folder = write_golden(tmp_path, total)
    db = tmp_path / "runs.db"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-sharded")
    with LLMServer(latency_s=0.05) as server:
        config = config_with(tmp_path, 2, model_judge(server.openai_base_url))
        command = [sys.executable, "-m", "qaeval_tui", "--config", str(config), "run", "--data", str(folder)]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        process = subprocess.Popen(  # `qaeval run` supervises a child that runs the suite and forks the workers
            [*command, "--db", str(db)],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            deadline = time.monotonic() + 60
            while stored_outputs(db) == 0 and process.poll() is None and time.monotonic() < deadline:
                time.sleep(0.02)
            [suite_runner] = children(process.pid)
            workers = children(suite_runner)
            assert len(workers) == 2
            os.kill(suite_runner, signal.SIGKILL)  # only the process running the suite: not its workers
            asked = settled_calls(server)
            time.sleep(0.5)
            assert server.calls == asked < total  # no worker went on asking once its parent was gone
            assert not [pid for pid in workers if Path(f"/proc/{pid}").exists() and not zombie(pid)]
        finally:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
    with Store.open(db) as store:
        [cut] = store.unfinished_runs()
        assert 0 < len(store.run_outputs(cut.run_id)) < total


def children(pid: int) -> list[int]:
    """The processes `pid` started (Linux's /proc)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(child) for child in (task / "children").read_text().split()]
    return found


def zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def test_processes_are_used_only_where_they_pay() -> None:
    from qaeval_tui.bundled.mechanical_judge import make_mechanical_judge

    judge = make_mechanical_judge()  # synchronous, one call at a time: no judge latency to overlap
    assert shard_count(0, 100_000, judge) == 1
    assert shard_count(1, 100_000, judge) == 1  # 1 is the in-process path, always
    assert shard_count(3, 100_000, judge) == 3  # asked for: given
    assert shard_count(3, 2, judge) == 2  # never more workers than cases
    model = SimpleNamespace(concurrency=4, config=None)  # a model judge: 4 calls in flight at most
    assert shard_count(0, 4_999, model) == 1  # too few cases to pay for the processes
    assert shard_count(8, 100_000, model) == 4  # no more workers than calls in flight
    assert shard_count(0, 100_000, model) == min(4, len(os.sched_getaffinity(0)))
    assert concurrency_shares(64, 2) == [32, 32] and concurrency_shares(5, 2) == [3, 2]
    assert sum(concurrency_shares(63, 4)) == 63


def test_ctrl_c_stops_a_sharded_run_keeps_what_it_judged_and_ends_its_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    total = 400
    folder = write_golden(tmp_path, total)
    db = tmp_path / "runs.db"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-sharded")
    with LLMServer(latency_s=0.05) as server:
        config = config_with(tmp_path, 2, model_judge(server.openai_base_url))
        command = [sys.executable, "-m", "qaeval_tui", "--config", str(config), "run", "--data", str(folder)]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        with subprocess.Popen(
            [*command, "--db", str(db)],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        ) as process:
            deadline = time.monotonic() + 60
            while stored_outputs(db) == 0 and process.poll() is None and time.monotonic() < deadline:
                time.sleep(0.02)
            [suite_runner] = children(process.pid)
            workers = children(suite_runner)
            os.killpg(process.pid, signal.SIGINT)  # what a terminal's Ctrl-C sends: the whole group
            _, err = process.communicate(timeout=30)
        assert process.returncode == 130 and "Traceback" not in err
        asked = settled_calls(server)
        assert asked < total
        assert not [pid for pid in workers if Path(f"/proc/{pid}").exists() and not zombie(pid)]
    with Store.open(db) as store:
        [cut] = store.unfinished_runs()
        kept = store.run_outputs(cut.run_id)
        assert 0 < len(kept) < total
        assert {v.case_id for v in store.verdicts(run_id=cut.run_id)} == {o.case_id for o in kept}


DYING = """
import os

from qaeval_tui.bundled.hub import ReferenceHub


class Dying(ReferenceHub):
    def answer(self, view):
        if view.question.endswith(" 7"):
            os._exit(3)  # past every try: the process running it ends
        return super().answer(view)


def make():
    return Dying()
"""


def test_a_worker_the_system_ends_fails_the_run_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = write_golden(tmp_path, 20)
    (tmp_path / "dying_system.py").write_text(DYING, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    config = config_with(tmp_path, 2)
    command = ["--config", str(config), "run", "--data", str(folder), "--db", str(tmp_path / "r.db")]
    done = CliRunner().invoke(app, [*command, "--adapter", "dying_system:make"])
    assert done.exit_code == 2
    assert "a worker process of the run ended (exit 3) before its cases were done" in done.output
    assert "Traceback" not in done.output
