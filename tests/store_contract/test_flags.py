"""Flags: a reviewer's latest flagged or noted revision is one flag; a resolution is recorded once, never rewritten."""

from __future__ import annotations

from qaeval_tui.core.store.backend import StoreBackend
from tests.store_contract.conftest import Backend
from tests.store_contract.rows import a_draft, seeded


def test_the_latest_flagged_or_noted_revision_per_reviewer_and_item_is_a_flag(store: StoreBackend) -> None:
    first, second = seeded(store, n_items=2)
    store.append_label(a_draft(first, flagged=True, note="source s2 is outdated"))
    latest = store.append_label(a_draft(first, note="gold answer looks wrong"))  # supersedes the first
    store.append_label(a_draft(second))  # neither flagged nor noted: no flag
    flagged = store.append_label(a_draft(second, reviewer="ben", flagged=True))
    rows = store.flag_rows()
    assert [(row.id, row.reviewer, row.flagged, row.note) for row in rows] == [
        (latest.id, "ana", False, "gold answer looks wrong"),
        (flagged.id, "ben", True, ""),
    ]
    assert all(row.resolved_at is None for row in rows)


def test_a_flag_is_resolved_once_and_the_resolution_cannot_be_rewritten(backend: Backend, store: StoreBackend) -> None:
    (item,) = seeded(store, n_items=1)
    label = store.append_label(a_draft(item, flagged=True, note="ambiguous question"))
    assert store.resolve_flag(label.id, "rewrote the question", "mara") is True
    assert store.resolve_flag(label.id, "second thoughts", "mara") is False
    (row,) = store.flag_rows()
    assert (row.resolution_note, row.resolved_by) == ("rewrote the question", "mara") and row.resolved_at
    try:
        backend.execute_raw(store, "UPDATE flag_resolutions SET note = 'x'")
    except backend.rewrite_refused:
        pass
    else:  # pragma: no cover - the assertion names what went wrong
        raise AssertionError("a resolution was rewritten")
    assert store.flag_rows()[0].resolution_note == "rewrote the question"


def test_a_new_flagged_revision_after_a_resolution_is_a_new_open_flag(store: StoreBackend) -> None:
    (item,) = seeded(store, n_items=1)
    old = store.append_label(a_draft(item, flagged=True))
    store.resolve_flag(old.id, "fixed", "mara")
    new = store.append_label(a_draft(item, flagged=True, note="still wrong"))
    (row,) = store.flag_rows()
    assert row.id == new.id and row.resolved_at is None
