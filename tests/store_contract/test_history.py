"""History is never rewritten: label revisions, append-only tables, conflicts that write nothing."""

from __future__ import annotations

import pytest

from qaeval_tui.core.limits import MAX_REVISION, MAX_SEED
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.rows import InboxDecision, OutOfRangeError, QueueEntry, StoreConflictError, StoredLabel
from qaeval_tui.core.store.schema import APPEND_ONLY
from tests.store_contract.conftest import Backend
from tests.store_contract.rows import a_draft, a_label, a_miss, a_run, an_output, seeded


def test_appending_labels_numbers_the_revisions_and_keeps_them_all(store: StoreBackend) -> None:
    (item,) = seeded(store, n_items=1)
    first = store.append_label(a_draft(item, note="first", seconds_spent=2.0))
    second = store.append_label(a_draft(item, note="second", flagged=True))
    other = store.append_label(a_draft(item, reviewer="ben"))
    assert (first.label.revision, second.label.revision, other.label.revision) == (1, 2, 1)
    assert first.id < second.id < other.id and first.origin == "review"
    assert first.label.seconds_spent == 2.0 and second.label.flagged and not first.label.revealed
    assert store.labels(reviewer="ana") == [first, second]
    assert store.labels(item_id=item) == [first, second, other]
    assert store.label_reviewers() == ["ana", "ben"]


def test_the_store_marks_a_label_revealed_once_the_reviewer_saw_the_verdict(store: StoreBackend) -> None:
    (item,) = seeded(store, n_items=1)
    assert not store.append_label(a_draft(item)).label.revealed
    assert not store.has_revealed(item, "ana")
    store.record_reveal(item, "ana")
    store.record_reveal(item, "ana")  # the first time counts; again is no error
    assert store.has_revealed(item, "ana") and not store.has_revealed(item, "ben")
    assert store.append_label(a_draft(item)).label.revealed
    assert not store.append_label(a_draft(item, reviewer="ben")).label.revealed
    assert store.append_label(a_draft(item, revealed=False)).label.revealed is False  # an explicit value stands


def test_imported_labels_keep_their_revisions_and_the_reads_agree(store: StoreBackend) -> None:
    labels = [a_label("i1", "ana", 1), a_label("i1", "ana", 2, note="changed mind"), a_label("i2", "ben", 7)]
    assert store.insert_labels(labels, origin="import") == 3
    stored = store.labels()
    assert [row.label for row in stored] == labels and {row.origin for row in stored} == {"import"}
    assert store.label_revisions() == [
        StoredLabel._make([*(getattr(row.label, name) for name in StoredLabel._fields[:-1]), row.id]) for row in stored
    ]
    marks = store.label_marks("ana")
    assert [(mark.id, mark.item_id) for mark in marks] == [(row.id, row.label.item_id) for row in stored[:2]]
    assert store.label_marks("ana", after_id=marks[0].id) == marks[1:]
    assert store.append_label(a_draft("i2", reviewer="ben")).label.revision == 8


def test_a_revision_already_stored_is_a_conflict_and_the_whole_import_writes_nothing(store: StoreBackend) -> None:
    store.insert_labels([a_label("i1", "ana", 1)], origin="import")
    with pytest.raises(StoreConflictError):
        store.insert_labels([a_label("i2", "ana", 1), a_label("i1", "ana", 1, note="other")], origin="import")
    assert [row.label for row in store.labels()] == [a_label("i1", "ana", 1)]


def test_a_run_id_stored_twice_is_a_conflict_and_writes_nothing(store: StoreBackend) -> None:
    store.insert_run(a_run(), [an_output(0, "c0")], [])
    with pytest.raises(StoreConflictError):
        store.insert_run(a_run(), [an_output(0, "c9")], [])
    with pytest.raises(StoreConflictError):  # the same case twice in one run
        store.insert_run(a_run("r2"), [an_output(0, "c0"), an_output(1, "c0")], [])
    assert [run.run_id for run in store.list_runs()] == ["r1"] and store.count("run_outputs") == 1


def test_numbers_beyond_what_the_store_holds_are_refused_and_nothing_is_written(store: StoreBackend) -> None:
    (item,) = seeded(store, n_items=1)
    store.insert_labels([a_label(item, "ana", MAX_REVISION)], origin="import")
    with pytest.raises(OutOfRangeError, match="beyond the largest a label can have"):
        store.append_label(a_draft(item))
    assert [row.label.revision for row in store.labels()] == [MAX_REVISION]
    with pytest.raises(OutOfRangeError, match="seed"):
        store.write_assignments(
            [QueueEntry("ana", item, 0, 1), QueueEntry("ben", item, 0, MAX_SEED + 1)], replace=False
        )
    assert store.assignments() == []


@pytest.mark.parametrize("table", APPEND_ONLY)
def test_the_database_itself_refuses_to_rewrite_an_append_only_table(backend: Backend, table: str) -> None:
    store = backend.open()
    (item,) = seeded(store, n_items=1)
    store.append_label(a_draft(item))
    store.insert_adjudication(item, "faithfulness", 2, "clear", "dana")
    store.add_inbox_misses([a_miss("t1")])
    store.record_inbox_decision("t1", InboxDecision("rejected", None, "dup", "dana", "now"))
    before = store.count(table)
    assert before >= 1
    for statement in (f"UPDATE {table} SET {_a_column(table)} = {_a_column(table)}", f"DELETE FROM {table}"):
        with pytest.raises(backend.rewrite_refused, match="append-only"):
            backend.execute_raw(store, statement)
    assert store.count(table) == before


def _a_column(table: str) -> str:
    return {"runs": "run_id", "run_outputs": "run_id", "inbox_decisions": "trace_id"}.get(table, "item_id")
