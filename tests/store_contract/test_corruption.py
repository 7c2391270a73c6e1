"""A row no qaeval wrote (the store edited by hand, or damaged) is a located error, never a crash or a wrong figure.

Each case writes one bad row with raw SQL, beside good ones, then reads it back through the store.
A backend whose database refuses the bad value outright (a typed column) passes by refusing it; one
that holds it, as SQLite does, must name the table, the row and the field on every read that meets
the row, and leave reads that do not meet it (another reviewer's queue) working.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.rows import CorruptRowError
from tests.store_contract.conftest import Backend
from tests.store_contract.rows import a_draft, a_miss, a_verdict, seeded

BAD_ROW = 99
_LABEL_COLUMNS = (
    "id, item_id, case_id, reviewer, revision, scores_json, note, flagged, skipped, rubric_version, revealed, "
    "created_at, seconds_spent, origin"
)
_GOOD_LABEL = {
    "item_id": "'item-c0'",
    "case_id": "'c0'",
    "reviewer": "'zed'",
    "revision": "1",
    "scores_json": """'{"faithfulness": 2}'""",
    "note": "''",
    "flagged": "0",
    "skipped": "0",
    "rubric_version": "'1'",
    "revealed": "0",
    "created_at": "'2026-11-02T00:00:00Z'",
    "seconds_spent": "3.5",
    "origin": "'hand'",
}


def _insert_label(backend: Backend, store: StoreBackend, **bad: str) -> None:
    values = {**_GOOD_LABEL, **bad}
    columns = _LABEL_COLUMNS.split(", ")[1:]
    literals = ", ".join([str(BAD_ROW), *(values[column] for column in columns)])
    backend.execute_raw(store, f"INSERT INTO labels ({_LABEL_COLUMNS}) VALUES ({literals})")


def _located(read: Callable[[], object], table: str, field: str) -> None:
    with pytest.raises(CorruptRowError) as caught:
        read()
    error = caught.value
    assert (error.table, error.row_id, error.field) == (table, BAD_ROW, field)
    assert f"{table} row {BAD_ROW}: {field}:" in str(error) and "\n" not in str(error)


@pytest.mark.parametrize(
    ("field", "literal"),
    [
        ("flagged", "'yes'"),  # would read as flagged: a silently wrong count
        ("skipped", "2"),
        ("revealed", "-1"),
        ("seconds_spent", "'ten'"),  # would crash the sum of time spent
        ("seconds_spent", "-4.0"),
        ("seconds_spent", "9e999"),  # infinity
        ("revision", "0"),
        ("revision", "'2'||'x'"),
        ("item_id", "x'00'"),  # a blob where text belongs: would crash the sort of item ids
        ("item_id", "''"),
        ("rubric_version", "x'31'"),
        ("scores_json", """'{"faithfulness": "high"}'"""),
        ("scores_json", "'not json'"),
        ("scores_json", "'[2]'"),
        ("scores_json", """'{"faithfulness": true}'"""),
    ],
)
def test_a_hand_edited_label_row_is_named_by_every_read_that_meets_it(
    backend: Backend, field: str, literal: str
) -> None:
    if literal.startswith("x'") and not backend.text_holds_blobs:
        return  # SQLite-only: a blob in a TEXT column cannot be written to this backend's store at all
    store = backend.open()
    (item,) = seeded(store, n_items=1)
    mine = store.append_label(a_draft(item, reviewer="ana"))
    try:
        _insert_label(backend, store, **{field: literal})
    except backend.bad_value_refused:  # the database itself refused it: nothing to read back
        assert store.labels() == [mine]
        return
    _located(store.labels, "labels", field)
    _located(store.label_revisions, "labels", field)
    _located(lambda: store.labels(reviewer="zed"), "labels", field)
    if field in {"item_id", "skipped", "flagged", "seconds_spent"}:  # what the review ledger reads
        _located(lambda: store.label_marks("zed"), "labels", field)
    # Reads that do not meet the row go on: ana keeps reviewing.
    assert store.labels(reviewer="ana") == [mine]
    assert [mark.id for mark in store.label_marks("ana")] == [mine.id]


@pytest.mark.parametrize(
    ("verdict_json", "field"),
    [
        ("'not json'", "verdict_json"),
        ("""'{"item_id": "i9"}'""", "verdict_json.case_id"),
        (None, "verdict_json.scores.faithfulness"),  # a score that is no number
    ],
)
def test_a_hand_edited_verdict_is_named_not_half_read(backend: Backend, verdict_json: str | None, field: str) -> None:
    store = backend.open()
    seeded(store, n_items=1)
    if verdict_json is None:
        document = a_verdict("i9", "c9").verdict.to_json() | {"scores": {"faithfulness": "high"}}
        verdict_json = "'" + json.dumps(document).replace("'", "''") + "'"
    backend.execute_raw(
        store,
        f"""INSERT INTO judge_verdicts (id, run_id, item_id, case_id, judge_name, config_hash, status, verdict_json,
                                        created_at)
            VALUES ({BAD_ROW}, 'r1', 'i9', 'c9', 'mech', 'j1', 'ok', {verdict_json}, '2026-11-01T00:00:00Z')""",
    )
    _located(store.verdicts, "judge_verdicts", field)
    _located(lambda: store.verdict_scores(config_hash="j1"), "judge_verdicts", field)
    _located(lambda: store.latest_verdict("i9"), "judge_verdicts", field)
    assert store.verdicts(config_hash="another judge") == []


def test_a_hand_edited_adjudication_score_is_named(backend: Backend) -> None:
    store = backend.open()
    store.insert_adjudication("i1", "faithfulness", 2, "clear", "dana")
    try:
        backend.execute_raw(
            store,
            f"""INSERT INTO adjudications (id, item_id, axis, score, reason, adjudicator, created_at)
                VALUES ({BAD_ROW}, 'i1', 'faithfulness', 'high', 'typed by hand', 'dana', '2026-11-01T00:00:00Z')""",
        )
    except backend.bad_value_refused:  # the database itself refused it: nothing to read back
        assert store.adjudications() == {("i1", "faithfulness"): 2}
        return
    _located(store.adjudications, "adjudications", "score")


def test_a_hand_edited_inbox_entry_is_named(backend: Backend) -> None:
    store = backend.open()
    backend.execute_raw(
        store,
        "INSERT INTO inbox (trace_id, miss_json, source, imported_at) VALUES ('t1', '{broken', 'm.jsonl', 'now')",
    )
    with pytest.raises(CorruptRowError, match=r"inbox row t1: miss_json: Invalid JSON"):
        store.inbox_entries()


def test_a_stored_miss_missing_a_required_field_is_named(backend: Backend) -> None:
    store = backend.open()
    store.add_inbox_misses([a_miss("t1")])
    document = json.loads(a_miss("t2").miss_json)
    del document["reporter"]
    text = json.dumps(document).replace("'", "''")
    backend.execute_raw(
        store, f"INSERT INTO inbox (trace_id, miss_json, source, imported_at) VALUES ('t2', '{text}', 'm.jsonl', 'now')"
    )
    with pytest.raises(CorruptRowError, match=r"inbox row t2: miss_json\.reporter: Field required"):
        store.inbox_entries()
    assert [entry.trace_id for entry in store.inbox_entries("t1")] == ["t1"]
