"""Label revisions: appended one by one by review sessions, imported in bulk, read back typed.

sqlite-utils imports whole label files (`insert_all`). Raw SQL where it does better: appending one
revision takes its number inside the same write transaction (a read then an insert, on the review
TUI's submit path, where sqlite-utils stays unimported), and the ledger and statistics read bare
tuples from a covering index over histories of 100,000 revisions.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from types import MappingProxyType
from typing import Any

from qaeval_tui.core.review.models import Label
from qaeval_tui.core.store.connection import SQLiteConnection, utc_now
from qaeval_tui.core.store.rows import LabelDraft, LabelRevision, StoredLabel, checked_revision

_COLUMNS = (
    "item_id, case_id, reviewer, scores_json, note, flagged, skipped, rubric_version, revealed, revision, "
    "created_at, seconds_spent, origin, id"
)
_INSERT = f"INSERT INTO labels ({_COLUMNS.removesuffix(', id')}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"


def _scores_json(scores: object) -> str:
    return json.dumps(scores, ensure_ascii=False, sort_keys=True)


def _revision(row: tuple[Any, ...]) -> LabelRevision:
    """A labels row (in `_COLUMNS` order) as the §8.2 label, its origin and its id; trusted, not revalidated."""
    item_id, case_id, reviewer, scores, note, flagged, skipped, version, revealed, revision, created, secs = row[:12]
    label = Label.model_construct(
        item_id=item_id,
        case_id=case_id,
        reviewer=reviewer,
        scores=json.loads(scores),
        note=note,
        flagged=bool(flagged),
        skipped=bool(skipped),
        rubric_version=version,
        revealed=bool(revealed),
        revision=revision,
        created_at=created,
        seconds_spent=secs,
    )
    return LabelRevision(id=row[13], origin=row[12], label=label)


class LabelTables(SQLiteConnection):
    """The `labels` table (append-only: a changed mind is a new revision)."""

    def append_label(self, draft: LabelDraft, origin: str = "review") -> LabelRevision:
        """Append one label revision in one committed transaction and return it as stored.

        The revision number is taken inside the transaction, so two sessions labeling the same
        item at once get distinct revisions instead of a lost write. `revealed` is read from the
        reveals when the draft leaves it None.
        """
        with self._write() as conn:
            item_id, reviewer = draft.item_id, draft.reviewer
            (latest,) = conn.execute(
                "SELECT coalesce(max(revision), 0) FROM labels WHERE item_id = ? AND reviewer = ?", (item_id, reviewer)
            ).fetchone()
            revealed = draft.revealed
            if revealed is None:
                seen = "SELECT 1 FROM reveals WHERE item_id = ? AND reviewer = ?"
                revealed = conn.execute(seen, (item_id, reviewer)).fetchone() is not None
            cursor = conn.execute(
                _INSERT,
                (
                    item_id,
                    draft.case_id,
                    reviewer,
                    _scores_json(dict(draft.scores)),
                    draft.note,
                    int(draft.flagged),
                    int(draft.skipped),
                    draft.rubric_version,
                    int(revealed),
                    checked_revision(latest + 1, item_id, reviewer),
                    draft.created_at or utc_now(),
                    float(draft.seconds_spent),
                    origin,
                ),
            )
            row = conn.execute(f"SELECT {_COLUMNS} FROM labels WHERE id = ?", (cursor.lastrowid,)).fetchone()
        return _revision(row)

    def insert_labels(self, labels: Iterable[Label], origin: str) -> int:
        """Insert fully specified label revisions (revision numbers given) in one transaction."""
        with self._write() as conn:
            before = conn.total_changes
            self.db.table("labels").insert_all(
                {
                    "item_id": lab.item_id,
                    "case_id": lab.case_id,
                    "reviewer": lab.reviewer,
                    "scores_json": _scores_json(lab.scores),
                    "note": lab.note,
                    "flagged": int(lab.flagged),
                    "skipped": int(lab.skipped),
                    "rubric_version": lab.rubric_version,
                    "revealed": int(lab.revealed),
                    "revision": checked_revision(lab.revision, lab.item_id, lab.reviewer),
                    "created_at": lab.created_at,
                    "seconds_spent": float(lab.seconds_spent),
                    "origin": origin,
                }
                for lab in labels
            )
            return conn.total_changes - before

    def labels(self, *, reviewer: str | None = None, item_id: str | None = None) -> list[LabelRevision]:
        """Every label revision (history included), oldest first."""
        wanted = {"reviewer": reviewer, "item_id": item_id}
        clauses = [f"{column} = ?" for column, value in wanted.items() if value is not None]
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        params = [value for value in wanted.values() if value is not None]
        rows = self.conn.execute(f"SELECT {_COLUMNS} FROM labels {where} ORDER BY id", params)
        return [_revision(row) for row in rows]

    def label_reviewers(self) -> list[str]:
        return [row[0] for row in self.conn.execute("SELECT DISTINCT reviewer FROM labels ORDER BY reviewer")]

    def label_marks(self, reviewer: str, *, after_id: int = 0) -> list[tuple[int, str, int, int, float]]:
        """(id, item_id, skipped, flagged, seconds_spent) of `reviewer`'s revisions with id > `after_id`, oldest first.

        Label ids grow in commit order (one writer at a time, AUTOINCREMENT, append-only), so reading
        past the last id seen catches up on every revision committed since, by any connection.
        `skipped` and `flagged` are 0 or 1 as stored: no per-row conversion over a whole history.
        """
        rows: list[tuple[int, str, int, int, float]] = self.conn.execute(
            """SELECT id, item_id, skipped, flagged, seconds_spent FROM labels
               WHERE reviewer = ? AND id > ? ORDER BY id""",
            (reviewer, after_id),
        ).fetchall()
        return rows

    def label_revisions(self) -> list[StoredLabel]:
        """Every label revision (history included), oldest first, with the fields the statistics read.

        JSON is parsed once per distinct text (scores repeat a few combinations of scale points), so
        the mappings handed out are shared between rows and read-only.
        """
        rows = self.conn.execute(
            """SELECT item_id, reviewer, revision, skipped, rubric_version, revealed, flagged, seconds_spent,
                      scores_json FROM labels ORDER BY id"""
        ).fetchall()
        scores = {text: MappingProxyType(json.loads(text)) for text in {row[8] for row in rows}}
        return [
            StoredLabel(
                item, reviewer, revision, skipped != 0, version, revealed != 0, flagged != 0, secs, scores[text]
            )
            for item, reviewer, revision, skipped, version, revealed, flagged, secs, text in rows
        ]
