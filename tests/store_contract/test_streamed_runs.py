"""A run streamed to the store: opened, its cases appended in batches, finished; one cut short is no run."""

from __future__ import annotations

from dataclasses import replace

import pytest

from qaeval_tui.core.store.backend import StoreBackend
from tests.store_contract.conftest import Backend
from tests.store_contract.rows import a_run, a_verdict, an_output


def test_a_streamed_run_is_a_run_only_once_finished_and_then_reads_as_its_end_says(store: StoreBackend) -> None:
    opened = replace(a_run("s1"), finished_at="2026-11-01T00:00:09Z", n_cases=0, metrics={})
    store.open_run(opened)
    store.append_run_rows("s1", [an_output(0, "c0")], [a_verdict("i0", "c0")])
    store.append_run_rows("s1", [an_output(1, "c1")], [a_verdict("i1", "c1")])
    assert store.list_runs() == [] and store.latest_run() is None and store.get_run("s1") is None
    [cut] = store.unfinished_runs()
    assert cut.run_id == "s1" and cut.finished_at == ""  # its opening row: the end is not known yet
    assert cut.n_cases == 2  # the cases it stored before it stopped
    assert store.run_outputs("s1") == [an_output(0, "c0"), an_output(1, "c1")]  # what was written stays

    store.finish_run(a_run("s1"))
    assert store.get_run("s1") == a_run("s1")  # finish time, count, header and scoreboard from its end
    assert store.list_runs() == [a_run("s1")] and store.unfinished_runs() == []
    assert [v.case_id for v in store.verdicts(run_id="s1")] == ["c0", "c1"]


def test_streamed_and_whole_runs_list_together_newest_first(store: StoreBackend) -> None:
    store.insert_run(a_run("whole", "2026-01-01T00:00:00Z"), [], [])
    store.open_run(a_run("cut", "2026-03-01T00:00:00Z"))
    store.open_run(a_run("streamed", "2026-02-01T00:00:00Z"))
    store.finish_run(a_run("streamed", "2026-02-01T00:00:00Z"))
    assert [run.run_id for run in store.list_runs()] == ["streamed", "whole"]
    assert [run.run_id for run in store.unfinished_runs()] == ["cut"]


def test_a_runs_end_is_written_once_and_never_rewritten(backend: Backend) -> None:
    store = backend.open()
    store.open_run(a_run("s1"))
    store.finish_run(a_run("s1"))
    for statement in ("UPDATE run_ends SET n_cases = 0", "DELETE FROM run_ends"):
        with pytest.raises(backend.rewrite_refused, match="append-only"):
            backend.execute_raw(store, statement)
    assert store.get_run("s1") == a_run("s1")
