"""The production-miss inbox: strict all-or-nothing import, idempotent by trace id, listing by status."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from qaeval_tui.core.curation.inbox import import_misses, inbox_entry, list_inbox, status_counts
from qaeval_tui.core.errors import InputError, UsageError
from qaeval_tui.core.store.rows import InboxDecision, InboxImport, InboxMiss
from qaeval_tui.core.store.sqlite import Store
from tests.conftest import write_jsonl
from tests.curation_fixtures import DEMO_INBOX, GATEWAY, make_miss


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "q.db") as opened:
        yield opened


def problems_of(store: Store, path: Path) -> list[tuple[int, str, str]]:
    with pytest.raises(InputError) as caught:
        import_misses(store, path)
    return [(p.line, p.field, p.message) for p in caught.value.problems]


def test_demo_inbox_imports_every_miss_as_pending(store: Store) -> None:
    report = import_misses(store, DEMO_INBOX)
    assert len(report.added) == 10 and report.unchanged == ()
    entries = list_inbox(store)
    assert [e.status for e in entries] == ["pending"] * 10
    reported = [e.miss.reported_at for e in entries]
    assert reported == sorted(reported)
    assert status_counts(entries) == {"pending": 10, "promoted": 0, "rejected": 0}


def test_reimporting_the_same_file_changes_nothing(store: Store) -> None:
    import_misses(store, DEMO_INBOX)
    before = [(e.trace_id, e.imported_at) for e in list_inbox(store)]
    report = import_misses(store, DEMO_INBOX)
    assert report.added == () and len(report.unchanged) == 10
    assert [(e.trace_id, e.imported_at) for e in list_inbox(store)] == before
    assert store.count("inbox") == 10


def test_key_order_and_spacing_do_not_make_a_different_payload(store: Store, tmp_path: Path) -> None:
    import_misses(store, DEMO_INBOX)
    first = json.loads(DEMO_INBOX.read_text(encoding="utf-8").splitlines()[0])
    reordered = tmp_path / "again.jsonl"
    reordered.write_text(json.dumps(dict(reversed(first.items())), indent=None, separators=(" ,", " : ")) + "\n")
    assert import_misses(store, reordered).unchanged == (first["trace_id"],)


def test_every_bad_line_is_reported_and_nothing_is_imported(store: Store, tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "misses.jsonl",
        [
            make_miss("tr-ok"),
            "{not json",
            make_miss("tr-2", reported_at="yesterday"),
            make_miss("tr-3", severity="high"),
            {k: v for k, v in make_miss("tr-4").items() if k != "reason"},
            make_miss("tr-5", sources=[{"id": "s1", "text": "a"}, {"id": "s1", "text": "b"}]),
            make_miss("tr-ok"),
            make_miss("has space"),
            make_miss("tr-9", question="   "),
            "[1, 2]",
        ],
    )
    found = problems_of(store, path)
    assert [(line, field) for line, field, _ in found] == [
        (2, "(line)"),
        (3, "reported_at"),
        (4, "severity"),
        (5, "reason"),
        (6, "sources[1].id"),
        (7, "trace_id"),
        (8, "trace_id"),
        (9, "question"),
        (10, "(line)"),
    ]
    assert "duplicate trace id 'tr-ok' (first at" in found[5][2]
    assert store.count("inbox") == 0


def test_problems_name_the_file_as_given(store: Store, tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "m.jsonl", [make_miss("tr-1", citations="none")])
    with pytest.raises(InputError) as caught:
        import_misses(store, path)
    assert str(caught.value.problems[0]).startswith(f"{path}:1: citations: ")


def test_a_byte_order_mark_is_an_error(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(make_miss()).encode() + b"\n")
    assert problems_of(store, path) == [(1, "(file)", "starts with a UTF-8 byte order mark; save without BOM")]


def test_a_changed_payload_under_a_known_trace_id_is_refused_with_nothing_imported(
    store: Store, tmp_path: Path
) -> None:
    import_misses(store, DEMO_INBOX)
    original = next(json.loads(line) for line in DEMO_INBOX.read_text().splitlines() if GATEWAY in line)
    path = write_jsonl(tmp_path / "later.jsonl", [make_miss("tr-new"), {**original, "answer": "It costs $349."}])
    found = problems_of(store, path)
    assert len(found) == 1
    line, field, message = found[0]
    assert (line, field) == (2, "trace_id")
    assert "already in the inbox with different content" in message and str(DEMO_INBOX) in message
    assert store.count("inbox") == 10
    assert inbox_entry(store, GATEWAY).miss.answer == original["answer"]


def test_a_citation_of_a_source_the_system_never_had_is_kept(store: Store, tmp_path: Path) -> None:
    # Citing a snippet it never retrieved is itself a production miss worth promoting.
    path = write_jsonl(tmp_path / "m.jsonl", [make_miss("tr-1", citations=[{"source_id": "s9", "quote": "x"}])])
    import_misses(store, path)
    assert inbox_entry(store, "tr-1").miss.citations[0].source_id == "s9"


def test_list_filters_by_status_and_search(store: Store) -> None:
    import_misses(store, DEMO_INBOX)
    store.record_inbox_decision(GATEWAY, InboxDecision("rejected", None, "dup", "mara", "2026-10-12T00:00:00Z"))
    assert [e.trace_id for e in list_inbox(store, status="rejected")] == [GATEWAY]
    assert len(list_inbox(store, status="pending")) == 9
    assert [e.trace_id for e in list_inbox(store, search="GATEWAY G2 PRICE")] == [GATEWAY]
    with pytest.raises(UsageError, match="--status: must be one of pending, promoted, rejected"):
        list_inbox(store, status="done")


def test_missing_file_and_unknown_trace_id_are_usage_errors(store: Store, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no such file"):
        import_misses(store, tmp_path / "nope.jsonl")
    with pytest.raises(UsageError, match="no production miss with trace id 'tr-x'"):
        inbox_entry(store, "tr-x")


def test_store_adds_nothing_when_a_trace_id_arrived_meanwhile_with_other_content(store: Store) -> None:
    # The race the import's own check cannot see: the store checks again inside its transaction.
    store.add_inbox_misses([InboxMiss("tr-1", '{"a":1}', "first.jsonl")])
    done = store.add_inbox_misses(
        [InboxMiss("tr-2", '{"b":2}', "second.jsonl"), InboxMiss("tr-1", '{"a":2}', "second.jsonl")]
    )
    assert done == InboxImport(added=(), conflicts=("tr-1",))
    assert store.count("inbox") == 1
    assert store.add_inbox_misses([InboxMiss("tr-1", '{"a":1}', "again.jsonl")]) == InboxImport((), ())


def test_store_keeps_the_first_decision_and_rolls_back_on_a_failed_effect(store: Store) -> None:
    store.add_inbox_misses([InboxMiss("tr-1", "{}", "f.jsonl")])

    def fail() -> None:
        raise RuntimeError("file write failed")

    with pytest.raises(RuntimeError):
        store.record_inbox_decision("tr-1", InboxDecision("promoted", "c", "r", "m", "t"), effect=fail)
    assert store.count("inbox_decisions") == 0
    assert store.record_inbox_decision("tr-1", InboxDecision("rejected", None, "r", "m", "t1")) is None
    earlier = store.record_inbox_decision("tr-1", InboxDecision("promoted", "c", "r2", "n", "t2"))
    assert earlier == InboxDecision("rejected", None, "r", "m", "t1")
    assert store.count("inbox_decisions") == 1
