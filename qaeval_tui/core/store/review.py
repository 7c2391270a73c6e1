"""Review items, reviewers' queues (assignments), reveals and gold answers shown.

Raw SQL for what the review TUI does while it starts and between two submits (the items, an item
with its case and output, a queue in order, a new reviewer joining the queues, a reveal) and for
the dashboard's queues as sets (the oversight TUI): sqlite-utils stays unimported there, it slows
the TUI's cold start and every full garbage collection after it. The review items themselves go
in through the driver's bulk insert (sqlite-utils on SQLite), an existing item kept as it is.

A team reviewer's login (PostgreSQL) reads an item through the database's `qaeval_review_item`
(the driver's `_review_item_row`), which redacts the case until the gold lock (then the reveal) is
on record, and never names the run; its list of review items has no case, hash or run either.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from qaeval_tui.core.store import codec
from qaeval_tui.core.store.codec import utc_now
from qaeval_tui.core.store.renames import RenameTables, name_in, of_person, person_params
from qaeval_tui.core.store.rows import Assignment, QueueEntry, ReviewItemContent, ReviewItemRecord, checked_seed

REVIEW_ITEM = """SELECT r.item_id, r.case_id, r.case_hash, r.output_hash, r.run_id, c.case_json, o.output_json
                 FROM review_items r
                 LEFT JOIN cases c ON c.case_hash = r.case_hash
                 LEFT JOIN run_outputs o ON o.run_id = r.run_id AND o.case_id = r.case_id
                 WHERE r.item_id = ?"""
"""One review item with its case and output, as a login that may read them all reads it."""


class ReviewTables(RenameTables):
    """The `review_items`, `assignments`, `reveals` and `gold_shown` tables."""

    def insert_review_items(self, items: Iterable[ReviewItemRecord]) -> int:
        """Store review items; an existing item is kept as is. Returns how many were new."""
        now = utc_now()
        return self._insert_all("review_items", (codec.review_item_row(item, now) for item in items), ignore=True)

    def review_items(self) -> list[ReviewItemRecord]:
        columns = (
            "item_id, '', '', output_hash, ''"
            if self.reviewer_columns_only
            else "item_id, case_id, case_hash, output_hash, run_id"
        )
        return [ReviewItemRecord(*row) for row in self._rows(f"SELECT {columns} FROM review_items ORDER BY item_id")]

    def review_item(self, item_id: str) -> ReviewItemContent | None:
        """One review item with its case content and the system output it pairs, or None."""
        row = self._review_item_row(item_id, REVIEW_ITEM)
        if row is None:
            return None
        return ReviewItemContent(
            ReviewItemRecord(*row[:5]),
            None if row[5] is None else self.parsed(row[5], "cases", row[2], "case_json"),
            None if row[6] is None else self.parsed(row[6], "run_outputs", f"{row[4]}/{row[1]}", "output_json"),
        )

    def case_ids_by_item(self) -> dict[str, str]:
        return {item: case for item, case in self._rows("SELECT item_id, case_id FROM review_items")}

    def assignments(self, reviewer: str | None = None) -> list[Assignment]:
        """Queue entries, in each reviewer's queue order (a renamed person's under their name now)."""
        with self._snapshot():
            people = self.person_names()
            if reviewer is None:
                rows = self._rows("SELECT reviewer, item_id, position FROM assignments ORDER BY reviewer, position")
            else:
                names = people.names_of(reviewer)
                rows = self._rows(
                    f"""SELECT reviewer, item_id, position FROM assignments WHERE {name_in("reviewer", names)}
                        ORDER BY position""",
                    names,
                )
        return [Assignment(people.current(r), i, int(p)) for r, i, p in rows]

    def write_assignments(self, entries: Iterable[QueueEntry], *, replace: bool) -> int:
        """Store queue entries in one transaction; `replace` clears the old queues first. Returns how many were new.

        Labels are untouched either way: a reassigned reviewer keeps every label already made.
        """
        now = utc_now()
        rows = [(e.reviewer, e.item_id, e.position, checked_seed(e.seed), now) for e in entries]
        with self._write():
            if replace:
                self._execute("DELETE FROM assignments")
            # Raw SQL: a new reviewer joins the queues from inside the review TUI, whose process must
            # not import sqlite-utils (its import doubles the cost of every full garbage collection
            # afterwards, which shows in the submit-to-next latency).
            return self._many(
                """INSERT INTO assignments (reviewer, item_id, position, seed, created_at) VALUES (?, ?, ?, ?, ?)
                   ON CONFLICT DO NOTHING""",
                rows,
            )

    def queue_length(self, reviewer: str) -> int:
        names = self._names_of(reviewer)
        row = self._row(f"SELECT count(*) FROM assignments WHERE {name_in('reviewer', names)}", names)
        return int(row[0]) if row else 0

    def queue_item_ids(self, reviewer: str) -> list[str]:
        """The item ids of `reviewer`'s queue, in queue order."""
        names = self._names_of(reviewer)
        mine = name_in("reviewer", names)
        return list(self._column(f"SELECT item_id FROM assignments WHERE {mine} ORDER BY position", names))

    def queued_items(self) -> dict[str, frozenset[str]]:
        """The item ids in each reviewer's queue, by reviewer (their name now): the queues as sets."""
        with self._snapshot():
            people = self.person_names()
            reviewers = list(self._column("SELECT DISTINCT reviewer FROM assignments"))
            queues: dict[str, frozenset[str]] = {}
            for reviewer in reviewers:
                items = frozenset(self._column("SELECT item_id FROM assignments WHERE reviewer = ?", (reviewer,)))
                person = people.current(reviewer)
                queues[person] = queues.get(person, frozenset()) | items
            return queues

    def record_reveal(self, item_id: str, reviewer: str) -> None:
        """Remember that `reviewer` saw the judge verdict of `item_id` (the first time counts)."""
        with self._write():
            self._execute(
                "INSERT INTO reveals (item_id, reviewer, revealed_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                (item_id, reviewer, utc_now()),
            )

    def has_revealed(self, item_id: str, reviewer: str) -> bool:
        mine = of_person("reviewer")
        return (
            self._row(f"SELECT 1 FROM reveals WHERE item_id = ? AND {mine}", (item_id, *person_params(reviewer)))
            is not None
        )

    def record_gold_shown(
        self, item_id: str, reviewer: str, blind_scores: Mapping[str, int | None]
    ) -> dict[str, int | None]:
        """Remember that `reviewer` was shown the gold answer of `item_id` while its blind axes held
        `blind_scores`. The first showing counts: returns the blind scores it locked."""
        with self._write():
            self._execute(  # a lock under a former name of theirs holds as well
                f"""INSERT INTO gold_shown (item_id, reviewer, blind_scores_json, shown_at) SELECT ?, ?, ?, ?
                    WHERE NOT EXISTS (SELECT 1 FROM gold_shown WHERE item_id = ? AND {of_person("reviewer")})
                    ON CONFLICT DO NOTHING""",
                (item_id, reviewer, codec.gold_lock_json(blind_scores), utc_now(), item_id, *person_params(reviewer)),
            )
            locked = self.gold_shown(item_id, reviewer)
        return dict(blind_scores) if locked is None else locked  # the row is there: written now or before

    def gold_shown(self, item_id: str, reviewer: str) -> dict[str, int | None] | None:
        """The blind scores locked when `reviewer` was first shown the gold answer of `item_id`; None if never."""
        row = self._row(
            f"""SELECT blind_scores_json FROM gold_shown WHERE item_id = ? AND {of_person("reviewer")}
                ORDER BY shown_at LIMIT 1""",
            (item_id, *person_params(reviewer)),
        )
        if row is None:
            return None
        where = f"{item_id}/{reviewer}"
        return codec.gold_lock(self.path, where, self.parsed(row[0], "gold_shown", where, "blind_scores_json"))
