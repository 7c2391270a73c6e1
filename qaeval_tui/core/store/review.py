"""Review items, reviewers' queues (assignments) and reveals.

sqlite-utils writes the review items (`insert_all` with `ignore`: an existing item is kept as it
is). Raw SQL for what the review TUI does while it starts and between two submits (the items, an
item with its case and output, a queue in order, a new reviewer joining the queues, a reveal) and
for the dashboard's queues as sets (the oversight TUI): sqlite-utils stays unimported there, it
slows the TUI's cold start and every full garbage collection after it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from qaeval_tui.core.store.codec import utc_now
from qaeval_tui.core.store.connection import SQLiteConnection
from qaeval_tui.core.store.rows import Assignment, QueueEntry, ReviewItemContent, ReviewItemRecord, checked_seed

_QUEUE = "SELECT item_id FROM assignments WHERE reviewer = ?"


def _first_column(_cursor: sqlite3.Cursor, row: tuple[str, ...]) -> str:
    return row[0]


class ReviewTables(SQLiteConnection):
    """The `review_items`, `assignments` and `reveals` tables."""

    def insert_review_items(self, items: Iterable[ReviewItemRecord]) -> int:
        """Store review items; an existing item is kept as is. Returns how many were new."""
        with self._write() as conn:
            before = conn.total_changes
            now = utc_now()
            self.db.table("review_items").insert_all(
                (
                    {
                        "item_id": i.item_id,
                        "case_id": i.case_id,
                        "case_hash": i.case_hash,
                        "output_hash": i.output_hash,
                        "run_id": i.run_id,
                        "created_at": now,
                    }
                    for i in items
                ),
                ignore=True,
            )
            return conn.total_changes - before

    def review_items(self) -> list[ReviewItemRecord]:
        rows = self.conn.execute(
            "SELECT item_id, case_id, case_hash, output_hash, run_id FROM review_items ORDER BY item_id"
        )
        return [ReviewItemRecord(*row) for row in rows]

    def review_item(self, item_id: str) -> ReviewItemContent | None:
        """One review item with its case content and the system output it pairs, or None."""
        row = self.conn.execute(
            """SELECT r.item_id, r.case_id, r.case_hash, r.output_hash, r.run_id, c.case_json, o.output_json
               FROM review_items r
               LEFT JOIN cases c ON c.case_hash = r.case_hash
               LEFT JOIN run_outputs o ON o.run_id = r.run_id AND o.case_id = r.case_id
               WHERE r.item_id = ?""",
            (item_id,),
        ).fetchone()
        if row is None:
            return None
        return ReviewItemContent(
            ReviewItemRecord(*row[:5]),
            None if row[5] is None else self.parsed(row[5], "cases", row[2], "case_json"),
            None if row[6] is None else self.parsed(row[6], "run_outputs", f"{row[4]}/{row[1]}", "output_json"),
        )

    def case_ids_by_item(self) -> dict[str, str]:
        return dict(self.conn.execute("SELECT item_id, case_id FROM review_items").fetchall())

    def assignments(self, reviewer: str | None = None) -> list[Assignment]:
        """Queue entries, in each reviewer's queue order."""
        if reviewer is None:
            rows = self.conn.execute("SELECT reviewer, item_id, position FROM assignments ORDER BY reviewer, position")
        else:
            rows = self.conn.execute(
                "SELECT reviewer, item_id, position FROM assignments WHERE reviewer = ? ORDER BY position", (reviewer,)
            )
        return [Assignment(r, i, int(p)) for r, i, p in rows]

    def write_assignments(self, entries: Iterable[QueueEntry], *, replace: bool) -> int:
        """Store queue entries in one transaction; `replace` clears the old queues first. Returns how many were new.

        Labels are untouched either way: a reassigned reviewer keeps every label already made.
        """
        with self._write() as conn:
            if replace:
                conn.execute("DELETE FROM assignments")
            before = conn.total_changes
            now = utc_now()
            # Raw SQL: a new reviewer joins the queues from inside the review TUI, whose process must
            # not import sqlite-utils (its import doubles the cost of every full garbage collection
            # afterwards, which shows in the submit-to-next latency).
            conn.executemany(
                """INSERT OR IGNORE INTO assignments (reviewer, item_id, position, seed, created_at)
                   VALUES (?, ?, ?, ?, ?)""",
                ((e.reviewer, e.item_id, e.position, checked_seed(e.seed), now) for e in entries),
            )
            return conn.total_changes - before

    def queue_length(self, reviewer: str) -> int:
        (length,) = self.conn.execute("SELECT count(*) FROM assignments WHERE reviewer = ?", (reviewer,)).fetchone()
        return int(length)

    def queue_item_ids(self, reviewer: str) -> list[str]:
        """The item ids of `reviewer`'s queue, in queue order."""
        rows = self.conn.execute("SELECT item_id FROM assignments WHERE reviewer = ? ORDER BY position", (reviewer,))
        return [item_id for (item_id,) in rows]

    def queued_items(self) -> dict[str, frozenset[str]]:
        """The item ids in each reviewer's queue, by reviewer: the queues as sets."""
        queues: dict[str, frozenset[str]] = {}
        with self._snapshot():
            for (reviewer,) in self.conn.execute("SELECT DISTINCT reviewer FROM assignments").fetchall():
                cursor = self.conn.cursor()
                cursor.row_factory = _first_column  # each item id straight into the set, no tuple per row
                queues[reviewer] = frozenset(cursor.execute(_QUEUE, (reviewer,)))
        return queues

    def record_reveal(self, item_id: str, reviewer: str) -> None:
        """Remember that `reviewer` saw the judge verdict of `item_id` (the first time counts)."""
        with self._write() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO reveals (item_id, reviewer, revealed_at) VALUES (?, ?, ?)",
                (item_id, reviewer, utc_now()),
            )

    def has_revealed(self, item_id: str, reviewer: str) -> bool:
        row = self.conn.execute(
            "SELECT 1 FROM reveals WHERE item_id = ? AND reviewer = ?", (item_id, reviewer)
        ).fetchone()
        return row is not None
