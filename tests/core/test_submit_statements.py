"""Submit -> next reads and writes only what the next item needs: the statements are counted.

What the review screen does per item, as SQLite's trace callback sees it: the gold answer asked
for once the blind axes are scored (it locks them: a write), then `submit_and_next` (the label,
the next item's view, the progress). The counts are pinned: one that grows back fails here, with
the statements listed. tests/pg/test_submit_statements.py counts the same on PostgreSQL.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from qaeval_tui.core.config import Config
from qaeval_tui.core.review.session import BlindnessError, ReviewSession, assign, build_review_items
from qaeval_tui.core.store.sqlite import Store
from tests.core.review_fixtures import FULL, store_with_run

BLIND = {name: FULL[name] for name in ("faithfulness", "citation_correctness")}

GOLD = ["PRAGMA", "BEGIN", "INSERT", "SELECT", "COMMIT", "PRAGMA", "SELECT"]
"""Change token; the lock written and read back in one transaction; change token; the gold answer."""
SUBMIT_AND_NEXT = ["PRAGMA", "BEGIN", "SELECT", "INSERT", "COMMIT", "PRAGMA", "SELECT", "SELECT"]
"""Change token; in one transaction what the store holds of the reviewer on the item, then the label;
change token; the next item with its case and output; its gold lock. No queue, no history, no
progress read: the session knows them."""


def _verbs(statements: list[str]) -> list[str]:
    return [statement.split()[0].upper() for statement in statements]


def _session(db: Path, n_items: int) -> tuple[Store, ReviewSession]:
    """A store of `n_items` review items queued to ana, and her session."""
    store, _ = store_with_run(db, n_items=n_items)
    build_review_items(store, "run-1")
    assign(store, ["ana"], overlap=1, seed=7)
    return store, ReviewSession(store, Config(), "ana")


def test_submit_to_next_runs_a_pinned_handful_of_statements_at_any_depth(tmp_path: Path) -> None:
    store, session = _session(tmp_path / "q.db", 30)
    item = session.next_item()
    statements: list[str] = []
    store.conn.set_trace_callback(statements.append)
    for done in range(1, 26):
        assert item is not None
        statements.clear()
        assert session.gold_answer(item.item_id, BLIND) is not None
        assert _verbs(statements) == GOLD, statements
        statements.clear()
        advance = session.submit_and_next(item.item_id, FULL, "", False, 1.0)
        assert _verbs(statements) == SUBMIT_AND_NEXT, statements
        assert advance.progress.done == done and advance.label.item_id == item.item_id
        item = advance.item
    store.conn.set_trace_callback(None)
    assert len(store.labels(reviewer="ana")) == 25  # each one committed


def test_an_unchanged_resubmit_writes_nothing_and_a_locked_axis_is_refused_in_the_same_transaction(
    tmp_path: Path,
) -> None:
    store, session = _session(tmp_path / "q.db", 3)
    item = session.next_item()
    assert item is not None
    assert session.gold_answer(item.item_id, BLIND) is not None
    first = session.submit_and_next(item.item_id, FULL, "", False, 1.0)
    reopened = session.undo()
    assert reopened is not None and reopened.item_id == item.item_id
    statements: list[str] = []
    store.conn.set_trace_callback(statements.append)
    again = session.submit(item.item_id, FULL, "", False, 2.0)
    store.conn.set_trace_callback(None)
    assert again == first.label and "INSERT" not in _verbs(statements)
    with pytest.raises(BlindnessError, match="faithfulness = 2"):
        session.submit(item.item_id, dict(FULL, faithfulness=0), "", False, 1.0)
    assert len(store.labels(reviewer="ana")) == 1


def test_a_commit_is_read_at_once_elsewhere_and_its_wal_flush_is_over_when_the_store_closes(tmp_path: Path) -> None:
    def flushers() -> int:
        return sum(thread.name == "qaeval-wal-flush" for thread in threading.enumerate())

    before = flushers()
    store, session = _session(tmp_path / "q.db", 3)
    item = session.next_item()
    assert item is not None
    session.submit_and_next(item.item_id, FULL, "", False, 1.0)
    with Store.open(tmp_path / "q.db") as other:  # committed: another connection reads it before any flush
        assert [row.label.item_id for row in other.labels(reviewer="ana")] == [item.item_id]
    assert store.conn.execute("PRAGMA synchronous").fetchone() == (1,)  # NORMAL: the flush is qaeval's
    assert flushers() == before + 1
    store.close()
    assert flushers() == before
