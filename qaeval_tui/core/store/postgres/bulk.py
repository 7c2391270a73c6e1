"""A whole table read or written as stored, ids included: what `qaeval store copy` moves (PostgreSQL).

Rows are read in key order sorted here, not by the server (whose text collation may differ from
SQLite's byte order), or in the order they were written (`rowid`); they are written with COPY, ids
included, and each identity column is then moved past the highest id copied, so the next label,
verdict or decision numbers on after the copied history.
"""

from __future__ import annotations

from operator import itemgetter

from psycopg import sql

from qaeval_tui.core.store.postgres.connection import PgConnection, StoreValueError
from qaeval_tui.core.store.tables import TABLE_SPECS, TableRows


class PgBulkTables(PgConnection):
    """Every table of `tables.TABLES`, read and written whole."""

    def table_rows(self, table: str) -> TableRows:
        """Every row of `table`, columns in `TABLE_SPECS[table]` order, sorted by its key or as written."""
        spec = TABLE_SPECS[table]
        columns = sql.SQL(", ").join(map(sql.Identifier, spec.columns))
        query = sql.SQL("SELECT {} FROM {}").format(columns, sql.Identifier(spec.name))
        if spec.in_insertion_order:
            query = sql.SQL("{} ORDER BY rowid").format(query)
        rows = self._q(query.as_string(self.conn)).fetchall()
        if not spec.in_insertion_order:
            rows.sort(key=itemgetter(*(spec.columns.index(column) for column in spec.key)))
        return TableRows(spec, rows)

    def insert_table_rows(self, rows: TableRows) -> int:
        """Insert the rows as they are (ids included) in one transaction; a clash is a StoreConflictError."""
        spec = rows.spec
        self._check_text(rows)
        columns = sql.SQL(", ").join(map(sql.Identifier, spec.columns))
        copy = sql.SQL("COPY {} ({}) FROM STDIN").format(sql.Identifier(spec.name), columns)
        with self._write() as conn, conn.cursor() as cursor:
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
