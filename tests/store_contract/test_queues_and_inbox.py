"""Queues (assignments) and the production-miss inbox: idempotent writes and the first decision counts."""

from __future__ import annotations

from qaeval_tui.core.models.miss import ProductionMiss
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.rows import (
    Assignment,
    CaseRecord,
    InboxDecision,
    InboxImport,
    QueueEntry,
    ReviewItemRecord,
)
from tests.store_contract.rows import a_draft, a_miss, seeded


def test_queues_come_back_in_position_order_and_replacing_keeps_labels(store: StoreBackend) -> None:
    a, b, c = seeded(store, n_items=3)
    entries = [QueueEntry("ana", b, 0, 7), QueueEntry("ana", a, 1, 7), QueueEntry("ben", c, 0, 7)]
    assert store.write_assignments(entries, replace=False) == 3
    assert store.write_assignments([QueueEntry("ana", b, 5, 7)], replace=False) == 0  # an entry already queued stays
    assert store.assignments("ana") == [Assignment("ana", b, 0), Assignment("ana", a, 1)]
    assert store.assignments() == [*store.assignments("ana"), Assignment("ben", c, 0)]
    assert store.queue_item_ids("ana") == [b, a] and store.queue_length("ana") == 2 and store.queue_length("zoe") == 0
    assert store.queued_items() == {"ana": frozenset({a, b}), "ben": frozenset({c})}
    made = store.append_label(a_draft(a))
    assert store.write_assignments([QueueEntry("zoe", c, 0, 8)], replace=True) == 1
    assert store.assignments() == [Assignment("zoe", c, 0)] and store.labels() == [made]


def test_importing_the_same_cases_and_items_twice_adds_nothing(store: StoreBackend) -> None:
    items = seeded(store, n_items=2)
    assert store.upsert_cases([CaseRecord("h-c0", "c0", "frozen", {"id": "c0", "question": "changed"})]) == 0
    assert store.case_json("h-c0") == {"id": "c0", "question": "q c0?"}  # content-addressed: the first stays
    again = [ReviewItemRecord(items[0], "c0", "h-c0", "o-c0", "r1"), ReviewItemRecord("new", "c1", "h-c1", "x", "r1")]
    assert store.insert_review_items(again) == 1
    assert [item.item_id for item in store.review_items()] == sorted([*items, "new"])


def test_reimporting_a_miss_changes_nothing_and_a_changed_one_adds_nothing(store: StoreBackend) -> None:
    t1, t2 = a_miss("t1", "one.jsonl"), a_miss("t2", "one.jsonl")
    assert store.add_inbox_misses([t1, t2]) == InboxImport(added=("t1", "t2"), conflicts=())
    assert store.add_inbox_misses([a_miss("t1", "again.jsonl")]) == InboxImport((), ())
    changed = [a_miss("t3", "two.jsonl"), a_miss("t2", "two.jsonl", answer="Ten days.")]
    assert store.add_inbox_misses(changed) == InboxImport(added=(), conflicts=("t2",))
    entries = store.inbox_entries()
    assert [(e.trace_id, e.miss, e.source, e.decision) for e in entries] == [
        ("t1", ProductionMiss.model_validate_json(t1.miss_json), "one.jsonl", None),
        ("t2", ProductionMiss.model_validate_json(t2.miss_json), "one.jsonl", None),
    ]
    assert entries[1].miss.answer == "Five days." and entries[1].miss.canonical() == t2.miss_json
    payloads = store.inbox_payloads(["t2", "t9"])
    assert (
        list(payloads) == ["t2"] and payloads["t2"].miss_json == t2.miss_json and payloads["t2"].source == "one.jsonl"
    )


def test_the_first_decision_on_a_miss_is_the_one_that_counts(store: StoreBackend) -> None:
    store.add_inbox_misses([a_miss("t1")])
    ran: list[str] = []
    first = store.record_inbox_decision(
        "t1", "promoted", case_id="c7", reason="", curator="dana", decided_at="t-1", effect=lambda: ran.append("x")
    )
    later = store.record_inbox_decision(
        "t1", "rejected", case_id=None, reason="dup", curator="lee", decided_at="t-2", effect=lambda: ran.append("y")
    )
    decided = InboxDecision("promoted", "c7", "", "dana", "t-1")
    assert first is None and later == decided and ran == ["x"]
    assert [entry.decision for entry in store.inbox_entries("t1")] == [decided]
    assert store.inbox_entries("nope") == [] and store.count("inbox_decisions") == 1
