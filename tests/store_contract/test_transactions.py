"""Explicit transactions: all or nothing, nested ones undo only themselves, two writers lose nothing."""

from __future__ import annotations

import threading

import pytest

from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.rows import CaseRecord, InboxDecision, StoreConflictError
from tests.store_contract.conftest import Backend
from tests.store_contract.rows import a_draft, a_miss, a_run, seeded


def a_case(case_id: str) -> CaseRecord:
    return CaseRecord(f"h-{case_id}", case_id, "frozen", {"id": case_id})


def test_writes_grouped_in_a_transaction_commit_together(store: StoreBackend) -> None:
    with store.transaction():
        store.upsert_cases([a_case("a")])
        store.insert_run(a_run(), [], [])
    assert store.count("cases") == 1 and store.get_run("r1") is not None


def test_an_error_inside_a_transaction_rolls_every_write_back(store: StoreBackend) -> None:
    with pytest.raises(RuntimeError, match="the caller failed"), store.transaction():
        store.upsert_cases([a_case("a")])
        store.insert_run(a_run(), [], [])
        raise RuntimeError("the caller failed")
    assert store.count("cases") == 0 and store.list_runs() == []
    store.upsert_cases([a_case("b")])  # the store is usable afterwards
    assert [case.case_id for case in store.case_rows()] == ["b"]


def test_a_failed_nested_transaction_undoes_only_its_own_writes(store: StoreBackend) -> None:
    with store.transaction():
        store.upsert_cases([a_case("outer")])
        with pytest.raises(StoreConflictError), store.transaction():
            store.upsert_cases([a_case("inner")])
            store.insert_run(a_run(), [], [])
            store.insert_run(a_run(), [], [])  # the same run id: a conflict
        store.upsert_cases([a_case("after")])
    assert [case.case_id for case in store.case_rows()] == ["after", "outer"]
    assert store.list_runs() == []


def test_a_nested_transaction_commits_with_the_outer_one_only(store: StoreBackend) -> None:
    with pytest.raises(RuntimeError), store.transaction():
        with store.transaction():
            store.upsert_cases([a_case("inner")])
        raise RuntimeError("the outer block failed")
    assert store.count("cases") == 0


def test_an_effect_that_fails_rolls_the_inbox_decision_back(store: StoreBackend) -> None:
    store.add_inbox_misses([a_miss("t1")])

    def fail() -> None:
        raise OSError("the golden file could not be written")

    with pytest.raises(OSError, match="golden file"):
        store.record_inbox_decision("t1", InboxDecision("promoted", "c1", "", "dana", "now"), effect=fail)
    (entry,) = store.inbox_entries()
    assert entry.decision is None and store.count("inbox_decisions") == 0


def test_a_second_writer_sees_nothing_until_the_commit_then_everything(backend: Backend) -> None:
    first, second = backend.open(), backend.open()
    token = second.change_token()
    with first.transaction():
        first.upsert_cases([a_case("a")])
        first.insert_run(a_run(), [], [])
        assert second.list_runs() == [] and second.count("cases") == 0
    assert [run.run_id for run in second.list_runs()] == ["r1"] and second.count("cases") == 1
    assert second.change_token() != token


def test_two_writers_labeling_one_item_at_once_lose_no_revision(backend: Backend) -> None:
    (item,) = seeded(backend.open(), n_items=1)
    writers = [backend.open(), backend.open()]
    errors: list[BaseException] = []

    def label(store: StoreBackend, reviewer_note: str) -> None:
        try:
            for n in range(15):
                store.append_label(a_draft(item, note=f"{reviewer_note}{n}"))
        except BaseException as exc:  # surfaced below, not lost in the thread
            errors.append(exc)

    threads = [threading.Thread(target=label, args=(store, name)) for store, name in zip(writers, "ab", strict=True)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    stored = backend.open().labels(item_id=item)
    assert sorted(row.label.revision for row in stored) == list(range(1, 31))
    assert {row.label.note for row in stored} == {f"{w}{n}" for w in "ab" for n in range(15)}


def test_an_exclusive_section_lets_one_connection_in_at_a_time(backend: Backend) -> None:
    first, second = backend.open(), backend.open()
    order: list[str] = []
    inside = threading.Event()

    def later() -> None:
        inside.wait()
        with second.exclusive("prepare"):
            order.append("second in")

    thread = threading.Thread(target=later)
    thread.start()
    with first.exclusive("prepare"):
        inside.set()
        thread.join(timeout=0.5)  # the second one waits for the first to leave
        order.append("first out")
    thread.join()
    assert order == ["first out", "second in"]
