"""Flags: a reviewer's flag or note on an item (their latest label revision), and a curator's
resolution of it, append-only (one resolution per flag; a later flagged revision is a new flag).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from qaeval_tui.core.store.codec import utc_now
from qaeval_tui.core.store.renames import RenameTables


class FlagRow(NamedTuple):
    """One flag or note: the label revision that carries it (its id is the flag's id), and its resolution."""

    id: int
    item_id: str
    case_id: str
    reviewer: str
    revision: int
    flagged: bool
    note: str
    created_at: str
    resolution_note: str | None
    resolved_by: str | None
    resolved_at: str | None


FLAG_ROWS = """SELECT l.id, l.item_id, l.case_id, l.reviewer, l.revision, l.flagged, l.note, l.created_at,
                      r.note, r.curator, r.resolved_at
               FROM labels AS l LEFT JOIN flag_resolutions AS r ON r.label_id = l.id
               WHERE (l.flagged != 0 OR l.note != '') AND l.id NOT IN (SELECT label_id FROM label_quarantine)
                 AND l.revision = (SELECT MAX(revision) FROM labels AS m
                                   WHERE m.item_id = l.item_id AND m.reviewer = l.reviewer
                                     AND m.id NOT IN (SELECT label_id FROM label_quarantine))
               ORDER BY l.id"""
"""Each reviewer's latest revision per item that is flagged or carries a note, with its resolution
(quarantined rows left out)."""


def flag_rows(rows: Iterable[Sequence[Any]]) -> list[FlagRow]:
    """The rows of `FLAG_ROWS` as typed flags."""
    return [
        FlagRow(int(a), str(b), str(c), str(d), int(e), bool(f), str(g), str(h), i, j, k)
        for a, b, c, d, e, f, g, h, i, j, k in rows
    ]


class FlagTables(RenameTables):
    """The `flag_resolutions` table, read together with `labels`."""

    def flag_rows(self) -> list[FlagRow]:
        """Each reviewer's latest revision per item that is flagged or carries a note, oldest first (a renamed
        person's under their name now, and only if it is their latest under any of their names)."""
        with self._snapshot():
            people = self.person_names()
            rows = self._rows(FLAG_ROWS)
            if not people:
                return flag_rows(rows)
            latest: dict[tuple[str, str], int] = {}
            kept = "id NOT IN (SELECT label_id FROM label_quarantine)"
            for item, who, revision in self._rows(
                f"SELECT item_id, reviewer, max(revision) FROM labels WHERE {kept} GROUP BY item_id, reviewer"
            ):
                key = (item, people.current(who))
                latest[key] = max(latest.get(key, 0), int(revision))
        renamed = [(*row[:3], people.current(row[3]), *row[4:]) for row in rows]
        return flag_rows(row for row in renamed if int(row[4]) == latest[(row[1], row[3])])

    def resolve_flag(self, label_id: int, note: str, curator: str) -> bool:
        """Record a resolution; False (nothing written) when that flag was already resolved."""
        with self._write():
            row = self._row(
                """INSERT INTO flag_resolutions (label_id, note, curator, resolved_at) VALUES (?, ?, ?, ?)
                   ON CONFLICT DO NOTHING RETURNING label_id""",
                (label_id, note, curator, utc_now()),
            )
        return row is not None
