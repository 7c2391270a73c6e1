"""Review items, reviewers' queues (assignments), and reveals, on PostgreSQL.

A team reviewer's login reads an item through the database's `qaeval_review_item`, which redacts the
case to what the review screen shows before a submit until the gold lock (then the reveal) is on
record, and never names the run; its list of review items has no case, hash or run either.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import psycopg

from qaeval_tui.core.store import codec
from qaeval_tui.core.store.codec import utc_now
from qaeval_tui.core.store.postgres.runs import PgRunTables
from qaeval_tui.core.store.rows import (
    Assignment,
    CorruptRowError,
    QueueEntry,
    ReviewItemContent,
    ReviewItemRecord,
    checked_seed,
)


class PgReviewTables(PgRunTables):
    """The `review_items`, `assignments`, `reveals` and `gold_shown` tables."""

    def insert_review_items(self, items: Iterable[ReviewItemRecord]) -> int:
        """Store review items; an existing item is kept as is. Returns how many were new."""
        now = utc_now()
        rows = (codec.review_item_row(item, now) for item in items)
        return self._insert_all("review_items", rows, ignore=True)

    def review_items(self) -> list[ReviewItemRecord]:
        columns = (
            "item_id, '', '', output_hash, ''"
            if self.reviewer_columns_only
            else "item_id, case_id, case_hash, output_hash, run_id"
        )
        rows = self._q(f"SELECT {columns} FROM review_items ORDER BY item_id")
        return [ReviewItemRecord(*row) for row in rows]

    def review_item(self, item_id: str) -> ReviewItemContent | None:
        """One review item with its case content and the system output it pairs, or None."""
        query = (
            "SELECT * FROM qaeval_review_item(%s)"
            if self.team_reviewer
            else """SELECT r.item_id, r.case_id, r.case_hash, r.output_hash, r.run_id, c.case_json, o.output_json
                    FROM review_items r
                    LEFT JOIN cases c ON c.case_hash = r.case_hash
                    LEFT JOIN run_outputs o ON o.run_id = r.run_id AND o.case_id = r.case_id
                    WHERE r.item_id = %s"""
        )
        try:
            row = self._q(query, (item_id,)).fetchone()
        except psycopg.errors.DataError:  # the redacting read parses the case on the server: one that is not JSON
            raise CorruptRowError(self.path, "cases", f"of item {item_id}", "case_json", "not JSON") from None
        if row is None:
            return None
        return ReviewItemContent(
            ReviewItemRecord(*row[:5]),
            None if row[5] is None else self.parsed(row[5], "cases", row[2], "case_json"),
            None if row[6] is None else self.parsed(row[6], "run_outputs", f"{row[4]}/{row[1]}", "output_json"),
        )

    def case_ids_by_item(self) -> dict[str, str]:
        return {item: case for item, case in self._q("SELECT item_id, case_id FROM review_items")}

    def assignments(self, reviewer: str | None = None) -> list[Assignment]:
        """Queue entries, in each reviewer's queue order."""
        if reviewer is None:
            rows = self._q("SELECT reviewer, item_id, position FROM assignments ORDER BY reviewer, position")
        else:
            rows = self._q(
                "SELECT reviewer, item_id, position FROM assignments WHERE reviewer = %s ORDER BY position", (reviewer,)
            )
        return [Assignment(r, i, int(p)) for r, i, p in rows]

    def write_assignments(self, entries: Iterable[QueueEntry], *, replace: bool) -> int:
        """Store queue entries in one transaction; `replace` clears the old queues first. Returns how many were new."""
        now = utc_now()
        rows = [
            {"reviewer": e.reviewer, "item_id": e.item_id, "position": e.position, "seed": checked_seed(e.seed)}
            for e in entries
        ]
        with self._write():
            if replace:
                self._q("DELETE FROM assignments")
            return self._insert_all("assignments", ({**row, "created_at": now} for row in rows), ignore=True)

    def queue_length(self, reviewer: str) -> int:
        row = self._q("SELECT count(*) FROM assignments WHERE reviewer = %s", (reviewer,)).fetchone()
        return int(row[0]) if row else 0

    def queue_item_ids(self, reviewer: str) -> list[str]:
        """The item ids of `reviewer`'s queue, in queue order."""
        rows = self._q("SELECT item_id FROM assignments WHERE reviewer = %s ORDER BY position", (reviewer,))
        return [item_id for (item_id,) in rows]

    def queued_items(self) -> dict[str, frozenset[str]]:
        """The item ids in each reviewer's queue, by reviewer: the queues as sets."""
        queues: dict[str, set[str]] = {}
        for reviewer, item_id in self._q("SELECT reviewer, item_id FROM assignments"):
            queues.setdefault(reviewer, set()).add(item_id)
        return {reviewer: frozenset(items) for reviewer, items in queues.items()}

    def record_reveal(self, item_id: str, reviewer: str) -> None:
        """Remember that `reviewer` saw the judge verdict of `item_id` (the first time counts)."""
        with self._write():
            self._q(
                """INSERT INTO reveals (item_id, reviewer, revealed_at) VALUES (%s, %s, %s)
                   ON CONFLICT DO NOTHING""",
                (item_id, reviewer, utc_now()),
            )

    def has_revealed(self, item_id: str, reviewer: str) -> bool:
        row = self._q("SELECT 1 FROM reveals WHERE item_id = %s AND reviewer = %s", (item_id, reviewer)).fetchone()
        return row is not None

    def record_gold_shown(
        self, item_id: str, reviewer: str, blind_scores: Mapping[str, int | None]
    ) -> dict[str, int | None]:
        """Remember that `reviewer` was shown the gold answer of `item_id` while its blind axes held
        `blind_scores`. The first showing counts: returns the blind scores it locked."""
        with self._write():
            self._q(
                """INSERT INTO gold_shown (item_id, reviewer, blind_scores_json, shown_at) VALUES (%s, %s, %s, %s)
                   ON CONFLICT DO NOTHING""",
                (item_id, reviewer, codec.gold_lock_json(blind_scores), utc_now()),
            )
            locked = self.gold_shown(item_id, reviewer)
        return dict(blind_scores) if locked is None else locked

    def gold_shown(self, item_id: str, reviewer: str) -> dict[str, int | None] | None:
        """The blind scores locked when `reviewer` was first shown the gold answer of `item_id`; None if never."""
        row = self._q(
            "SELECT blind_scores_json FROM gold_shown WHERE item_id = %s AND reviewer = %s", (item_id, reviewer)
        ).fetchone()
        if row is None:
            return None
        where = f"{item_id}/{reviewer}"
        return codec.gold_lock(self.path, where, self.parsed(row[0], "gold_shown", where, "blind_scores_json"))
