"""Adjudications: an adjudicator's final score on one axis of one item, append-only.

sqlite-utils writes the rows (`insert`); a later adjudication supersedes an earlier one when read,
and nothing is ever overwritten. Raw SQL for the read: the dashboard (in the oversight TUI) and the
calibration make it, and their processes keep sqlite-utils unimported, as the review TUI does. A
score the calibration could not count (edited by hand) is a located CorruptRowError.
"""

from __future__ import annotations

from qaeval_tui.core.store.codec import utc_now
from qaeval_tui.core.store.connection import SQLiteConnection
from qaeval_tui.core.store.rows import CorruptRowError, ItemAxis


class AdjudicationTables(SQLiteConnection):
    """The `adjudications` table."""

    def insert_adjudication(self, item_id: str, axis: str, score: int | None, reason: str, adjudicator: str) -> None:
        with self._write():
            self.db.table("adjudications").insert(
                {
                    "item_id": item_id,
                    "axis": axis,
                    "score": score,
                    "reason": reason,
                    "adjudicator": adjudicator,
                    "created_at": utc_now(),
                }
            )

    def adjudications(self) -> dict[ItemAxis, int | None]:
        """The latest adjudicated score per item and axis; a later adjudication supersedes an earlier one."""
        bad = self.conn.execute(
            """SELECT id, CASE WHEN typeof(item_id) != 'text' THEN 'item_id' WHEN typeof(axis) != 'text' THEN 'axis'
                               ELSE 'score' END
               FROM adjudications WHERE typeof(item_id) != 'text' OR typeof(axis) != 'text'
                                     OR typeof(score) NOT IN ('integer', 'null')
               ORDER BY id LIMIT 1"""
        ).fetchone()
        if bad is not None:
            raise CorruptRowError(self.path, "adjudications", bad[0], bad[1], "not what qaeval writes there")
        rows = self.conn.execute("SELECT item_id, axis, score FROM adjudications ORDER BY id")
        return {ItemAxis(item_id, axis): score for item_id, axis, score in rows}
