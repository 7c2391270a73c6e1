"""Many reviewers on one PostgreSQL store at once, each a separate OS process: nothing acknowledged is
lost, the overlap-k queue holds, and a client killed in the middle of its writes leaves nothing
half-written and no lock behind."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from pathlib import Path

from qaeval_tui.core.store.rows import LabelDraft, RunOutput, RunRecord
from tests.pg.reviewers import OVERLAP, PgOpener, check_team, read_acks, reviewer, reviewer_names, run_team, team_store

ITEMS = 100


def test_twenty_reviewer_processes_lose_no_label_and_keep_the_overlap(pg_url: str, tmp_path: Path) -> None:
    opener = PgOpener(pg_url)
    team_store(opener, tmp_path, ITEMS, 20)
    outcome = run_team(opener, tmp_path, 20, timeout=240)
    assert outcome.problems == []
    assert outcome.lost == []
    assert outcome.acknowledged == outcome.stored == ITEMS * OVERLAP  # every queue finished, each item k times


def _wait_for(condition: object, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_a_reviewer_killed_mid_submit_loses_nothing_acknowledged_and_blocks_no_one(pg_url: str, tmp_path: Path) -> None:
    opener = PgOpener(pg_url)
    team_store(opener, tmp_path, ITEMS, 4)
    names = reviewer_names(4)
    context = multiprocessing.get_context("spawn")
    go = context.Event()
    processes = {
        name: context.Process(target=reviewer, args=(opener, name, tmp_path / f"{name}.acks", go)) for name in names
    }
    for process in processes.values():
        process.start()
    go.set()
    victim = processes[names[0]]
    _wait_for(lambda: len(read_acks(tmp_path / f"{names[0]}.acks")) >= 5)
    assert victim.pid is not None
    os.kill(victim.pid, signal.SIGKILL)  # wherever it is: mid-transaction, between commit and ack, or idle
    for process in processes.values():
        process.join(240)
    assert victim.exitcode == -signal.SIGKILL
    assert all(processes[name].exitcode == 0 for name in names[1:])

    store = opener()
    try:
        # The killed reviewer's last label may have committed without its acknowledgement line: at most one.
        outcome = check_team(store, tmp_path, names, in_flight=1)
        assert outcome.lost == [] and outcome.problems == []
        # Nothing of it holds a lock: another session appends on the killed reviewer's items at once.
        item = read_acks(tmp_path / f"{names[0]}.acks")[-1]["item"]
        case_id = next(row.case_id for row in store.review_items() if row.item_id == item)
        started = time.monotonic()
        again = store.append_label(LabelDraft(str(item), case_id, names[0], {"faithfulness": 1}, "1"))
        assert time.monotonic() - started < 2.0
        assert again.label.revision == 2
    finally:
        store.close()


def _write_runs(url: str, acks: Path, outputs: int) -> None:
    """Store run after run, each with `outputs` outputs in one transaction; ack each one committed."""
    store = PgOpener(url)()
    with acks.open("a", encoding="utf-8", buffering=1) as out:
        for number in range(10_000):
            run_id = f"run-{number:05d}"
            record = RunRecord(run_id, "suite", "a", None, None, "v", "2026-01-01T00:00:00Z", "2026-01-01T00:00:01Z",
                               outputs, {}, {})  # fmt: skip
            rows = [RunOutput(i, f"case-{i}", "c", "o", {"answer": "x" * 200}, {}) for i in range(outputs)]
            store.insert_run(record, rows, [])
            out.write(run_id + "\n")


def test_a_client_killed_mid_transaction_leaves_no_half_written_run(pg_url: str, tmp_path: Path) -> None:
    opener = PgOpener(pg_url)
    opener().close()  # the schema, before the writer starts
    acks = tmp_path / "runs.acks"
    context = multiprocessing.get_context("spawn")
    writer = context.Process(target=_write_runs, args=(pg_url, acks, 500))
    writer.start()
    _wait_for(lambda: acks.exists() and acks.read_text(encoding="utf-8").count("\n") >= 3)
    assert writer.pid is not None
    os.kill(writer.pid, signal.SIGKILL)
    writer.join(30)
    acknowledged = [line for line in acks.read_text(encoding="utf-8").splitlines(keepends=True) if line.endswith("\n")]
    store = opener()
    try:
        runs = store.list_runs()
        stored = {run.run_id for run in runs}
        assert {line.strip() for line in acknowledged} <= stored
        assert len(stored) <= len(acknowledged) + 1
        assert all(len(store.run_outputs(run.run_id)) == 500 for run in runs)  # all of a run, or none of it
    finally:
        store.close()
