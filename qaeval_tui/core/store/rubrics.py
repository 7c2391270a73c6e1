"""The team's rubric as published into the store (`qaeval rubric publish`, `team init`): every version
in order, append-only; the latest is the one every app and command on the store works under."""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from qaeval_tui.core.store.codec import utc_now
from qaeval_tui.core.store.rows import JsonObject
from qaeval_tui.core.store.seam import Driver


class StoredRubric(NamedTuple):
    """One published rubric: its place in the order of publication, its document and who published it."""

    id: int
    rubric_version: str
    document: JsonObject
    published_by: str
    published_at: str


RUBRIC_COLUMNS = "id, rubric_version, rubric_json, published_by, published_at"


def rubric_row(version: str, document: JsonObject, published_by: str) -> tuple[str, str, str, str]:
    """The columns a publication writes (both backends write the same text)."""
    return (version, json.dumps(document, ensure_ascii=False, sort_keys=True), published_by, utc_now())


def stored_rubric(row: tuple[Any, ...], parsed: Any) -> StoredRubric:
    """A `rubrics` row read back (its document parsed by the backend's `parsed`, which names a corrupt row)."""
    rubric_id, version, text, by, at = row
    return StoredRubric(
        int(rubric_id), str(version), parsed(text, "rubrics", rubric_id, "rubric_json"), str(by), str(at)
    )


class RubricTables(Driver):
    """The `rubrics` table: every login reads it; on a team store curators and the owner add versions."""

    def publish_rubric(self, version: str, document: JsonObject, published_by: str) -> int:
        """Append a rubric version; returns its id (a team store writes the login as `published_by`)."""
        with self._write():
            row = self._row(
                """INSERT INTO rubrics (rubric_version, rubric_json, published_by, published_at)
                   VALUES (?, ?, ?, ?) RETURNING id""",
                rubric_row(version, document, published_by),
            )
        return int(row[0]) if row else 0

    def latest_rubric(self) -> StoredRubric | None:
        """The rubric published last, or None when none was."""
        row = self._row(f"SELECT {RUBRIC_COLUMNS} FROM rubrics ORDER BY id DESC LIMIT 1")
        return None if row is None else stored_rubric(tuple(row), self.parsed)
