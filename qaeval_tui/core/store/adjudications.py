"""Adjudications: an adjudicator's final score on one axis of one item, append-only.

sqlite-utils writes and reads the rows (`insert`, `rows_where`); a later adjudication supersedes
an earlier one when read, and nothing is ever overwritten.
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
        rows = self.db.table("adjudications").rows_where(select="item_id, axis, score", order_by="id")
        return {(row["item_id"], row["axis"]): row["score"] for row in rows}
