"""Adjudications: an adjudicator's final score on one axis of one item, append-only.

sqlite-utils writes the rows (`insert`); a later adjudication supersedes an earlier one when read,
and nothing is ever overwritten. Raw SQL for the read: the dashboard (in the oversight TUI) and the
calibration make it, and their processes keep sqlite-utils unimported, as the review TUI does.
"""

from __future__ import annotations

from qaeval_tui.core.store.connection import SQLiteConnection, utc_now


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

    def adjudications(self) -> dict[tuple[str, str], int | None]:
        """The latest adjudicated score per (item_id, axis); a later adjudication supersedes an earlier one."""
        rows = self.conn.execute("SELECT item_id, axis, score FROM adjudications ORDER BY id")
        return {(item_id, axis): score for item_id, axis, score in rows}
