"""Exposures: a person saw an item's hidden information in a curator view (DESIGN §4).

Recorded only for the person's own items (in their queue, or labelled by them), since only a
label they make afterwards can be tainted by it; the first time per (item, person, view) counts,
as with reveals. Append-only. Raw SQL: the dashboard and adjudication processes keep sqlite-utils
unimported, as the review TUI does.
"""

from __future__ import annotations

from collections.abc import Iterable

from qaeval_tui.core.store.codec import utc_now
from qaeval_tui.core.store.renames import RenameTables, name_in, of_person, person_params
from qaeval_tui.core.store.rows import Exposure

_RECORD = f"""INSERT INTO exposures (item_id, person, view, seen, seen_at)
             SELECT ?, ?, ?, ?, ?
             WHERE EXISTS (SELECT 1 FROM assignments WHERE {of_person("reviewer")} AND item_id = ?)
                OR EXISTS (SELECT 1 FROM labels WHERE {of_person("reviewer")} AND item_id = ?)
             ON CONFLICT DO NOTHING"""
"""One exposure of the person's own item, queued or labelled under any of their names (the WHERE also tells
SQLite's parser the ON CONFLICT is the INSERT's)."""


class ExposureTables(RenameTables):
    """The `exposures` table, and why a label is not blind (`not_blind_reason`)."""

    def record_exposure(self, person: str, item_ids: Iterable[str], view: str, seen: str) -> int:
        """Record that `person` saw `seen` of each of `item_ids` in `view`, for their own items only.

        Returns how many exposures were new (an item seen before in the same view is not again)."""
        now = utc_now()
        mine = person_params(person)
        rows = [(item, person, view, seen, now, *mine, item, *mine, item) for item in set(item_ids)]
        if not rows:
            return 0
        with self._write():
            return self._many(_RECORD, rows)

    def exposures(self, *, person: str | None = None, item_id: str | None = None) -> list[Exposure]:
        """Recorded exposures, oldest first (a renamed person's under their name now)."""
        people = self.person_names()
        names = () if person is None else people.names_of(person)
        conditions = [
            *([name_in("person", names)] if names else []),
            *(["item_id = ?"] if item_id is not None else []),
        ]
        rows = self._rows(
            f"""SELECT item_id, person, view, seen, seen_at FROM exposures WHERE {" AND ".join(conditions) or "TRUE"}
                ORDER BY seen_at, item_id""",
            [*names, *([item_id] if item_id is not None else [])],
        )
        return [Exposure(item, people.current(who), view, seen, at) for item, who, view, seen, at in rows]

    def unblinded_at(self) -> dict[tuple[str, str], str]:
        """The first time each (item, person) saw hidden information: a reveal or an exposure."""
        rows = self._rows(
            """SELECT item_id, person, min(at) FROM (
                   SELECT item_id, reviewer AS person, revealed_at AS at FROM reveals
                   UNION ALL SELECT item_id, person, seen_at FROM exposures) AS seen
               GROUP BY item_id, person"""
        )
        people = self.person_names()
        first: dict[tuple[str, str], str] = {}
        for item, person, at in rows:  # a renamed person's names are one person
            key = (item, people.current(person))
            first[key] = min(first.get(key, at), at)
        return first

    def not_blind_reasons(self, *, reviewer: str | None = None) -> dict[tuple[str, str, int], str]:
        """Why each non-blind label revision is not blind, by (item, reviewer, revision); blind ones are absent."""
        people = self.person_names()
        names = () if reviewer is None else people.names_of(reviewer)
        rows = self._rows(
            f"""SELECT item_id, reviewer, revision, not_blind_reason FROM labels
                WHERE {name_in("reviewer", names) if names else "TRUE"} AND not_blind_reason IS NOT NULL
                ORDER BY id""",
            names,
        )
        return {(item, people.current(who), revision): reason for item, who, revision, reason in rows}
