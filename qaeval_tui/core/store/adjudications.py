"""Adjudications: an adjudicator's final score on one axis of one item, append-only.

A later adjudication supersedes an earlier one when read, and nothing is ever overwritten. Raw
SQL: the dashboard (in the oversight TUI) and the calibration read them, and their processes keep
sqlite-utils unimported, as the review TUI does. A score the calibration could not count (a SQLite
store edited by hand) is a located CorruptRowError, as is a ruling's text field that is not text.
"""

from __future__ import annotations

from typing import NamedTuple

from qaeval_tui.core.store.codec import utc_now
from qaeval_tui.core.store.rows import CorruptRowError, ItemAxis
from qaeval_tui.core.store.seam import Driver


class RulingRow(NamedTuple):
    """The latest adjudication of one (item, axis): the score, why, who, when, and the guideline
    section it cites (`core.guideline_sections` id; None when it cites none)."""

    id: int
    item_id: str
    axis: str
    score: int | None
    reason: str
    adjudicator: str
    created_at: str
    cites: str | None


class AdjudicationTables(Driver):
    """The `adjudications` table."""

    def insert_adjudication(
        self, item_id: str, axis: str, score: int | None, reason: str, adjudicator: str, cites: str | None = None
    ) -> None:
        with self._write():
            self._execute(
                """INSERT INTO adjudications (item_id, axis, score, reason, adjudicator, created_at, cites)
                   VALUES (?, ?, ?, ?, ?, ?, ?)""",
                (item_id, axis, score, reason, adjudicator, utc_now(), cites),
            )

    def _check_adjudications(self, *text_fields: str) -> None:
        types = {"item_id": ("text",), "axis": ("text",), "score": ("integer", "null")}
        types |= {field: ("text",) for field in text_fields}
        if text_fields:
            types["cites"] = ("text", "null")
        bad = self._first_mistyped("adjudications", types)
        if bad is not None:
            raise CorruptRowError(self.path, "adjudications", bad[0], bad[1], "not what qaeval writes there")

    def adjudications(self) -> dict[ItemAxis, int | None]:
        """The latest adjudicated score per item and axis; a later adjudication supersedes an earlier one."""
        self._check_adjudications()
        rows = self._rows("SELECT item_id, axis, score FROM adjudications ORDER BY id")
        return {ItemAxis(item_id, axis): score for item_id, axis, score in rows}

    def rulings(self, item_id: str | None = None) -> dict[ItemAxis, RulingRow]:
        """The latest ruling per item and axis (of one item, or all), with its reason and cited section."""
        self._check_adjudications("reason", "adjudicator", "created_at")
        where, args = ("WHERE item_id = ?", (item_id,)) if item_id is not None else ("", ())
        rows = self._rows(
            f"""SELECT id, item_id, axis, score, reason, adjudicator, created_at, cites
                FROM adjudications {where} ORDER BY id""",
            args,
        )
        return {ItemAxis(row[1], row[2]): RulingRow(*row) for row in rows}
