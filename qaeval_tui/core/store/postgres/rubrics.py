"""The team's published rubric on PostgreSQL: every login reads it, curators and the owner add versions."""

from __future__ import annotations

from qaeval_tui.core.store.postgres.connection import PgConnection
from qaeval_tui.core.store.rows import JsonObject
from qaeval_tui.core.store.rubrics import RUBRIC_COLUMNS, StoredRubric, rubric_row, stored_rubric


class PgRubricTables(PgConnection):
    """The `rubrics` table."""

    def publish_rubric(self, version: str, document: JsonObject, published_by: str) -> int:
        """Append a rubric version; returns its id (the database writes the login as `published_by`)."""
        with self._write():
            row = self._q(
                """INSERT INTO rubrics (rubric_version, rubric_json, published_by, published_at)
                   VALUES (%s, %s, %s, %s) RETURNING id""",
                rubric_row(version, document, published_by),
            ).fetchone()
        return int(row[0]) if row else 0

    def latest_rubric(self) -> StoredRubric | None:
        """The rubric published last, or None when none was."""
        row = self._q(f"SELECT {RUBRIC_COLUMNS} FROM rubrics ORDER BY id DESC LIMIT 1").fetchone()
        return None if row is None else stored_rubric(tuple(row), self.parsed)
