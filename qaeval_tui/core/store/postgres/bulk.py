"""A whole table written as stored, ids included, for `qaeval store copy` (PostgreSQL's way in).

Rows go in with COPY, ids included, and each identity column is then moved past the highest id
copied, so the next label, verdict or decision numbers on after the copied history.
"""

from __future__ import annotations

from psycopg import sql

from qaeval_tui.core.store.postgres.connection import PgConnection, StoreValueError
from qaeval_tui.core.store.tables import TableRows


class PgBulkTables(PgConnection):
    """Whole tables written with COPY (`Driver.insert_table_rows`)."""

    def _copy_in(self, rows: TableRows) -> int:
        """COPY, ids included; then each identity column moves past the highest id copied."""
        spec = rows.spec
        self._check_text(rows)
        columns = sql.SQL(", ").join(map(sql.Identifier, spec.columns))
        copy = sql.SQL("COPY {} ({}) FROM STDIN").format(sql.Identifier(spec.name), columns)
        with self.conn.cursor() as cursor:
            with cursor.copy(copy) as stream:
                for row in rows.rows:
                    stream.write_row(row)
            if "id" in spec.columns and rows.rows:
                cursor.execute(
                    sql.SQL("SELECT setval(pg_get_serial_sequence({}, 'id'), (SELECT max(id) FROM {}))").format(
                        sql.Literal(spec.name), sql.Identifier(spec.name)
                    )
                )
        return len(rows.rows)

    def _check_text(self, rows: TableRows) -> None:
        """A NUL character (SQLite text may hold one) names its table, row and column: PostgreSQL text cannot."""
        spec = rows.spec
        positions = [spec.columns.index(column) for column in spec.key]
        for row in rows.rows:
            for column, cell in zip(spec.columns, row, strict=True):
                if isinstance(cell, str) and "\x00" in cell:
                    key = "/".join(str(row[i]) for i in positions)
                    raise StoreValueError(
                        f"{self.path}: {spec.name} {key}: {column} holds a NUL character, which PostgreSQL text "
                        "cannot hold; nothing was changed"
                    )
