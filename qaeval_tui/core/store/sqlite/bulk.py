"""A whole table read or written as stored, ids included: what `qaeval store copy` moves.

Raw SQL over the column lists of `tables`; rows go in with their ids, so the append-only history
(label revisions, adjudications, inbox decisions in id order; runs and the inbox in the order they
were written) arrives as it was, and the
AUTOINCREMENT counters move past the highest id copied.
"""

from __future__ import annotations

from qaeval_tui.core.store.sqlite.connection import SQLiteConnection
from qaeval_tui.core.store.tables import TABLE_SPECS, TableRows


class BulkTables(SQLiteConnection):
    """Every table of `tables.TABLES`, read and written whole."""

    def table_rows(self, table: str) -> TableRows:
        """Every row of `table`, columns in `TABLE_SPECS[table]` order, sorted by its key or as written."""
        spec = TABLE_SPECS[table]
        order = "rowid" if spec.in_insertion_order else ", ".join(spec.key)
        rows = self.conn.execute(f"SELECT {', '.join(spec.columns)} FROM {spec.name} ORDER BY {order}").fetchall()
        return TableRows(spec, rows)

    def insert_table_rows(self, rows: TableRows) -> int:
        """Insert the rows as they are (ids included) in one transaction; a clash is a StoreConflictError."""
        spec = rows.spec
        statement = f"INSERT INTO {spec.name} ({', '.join(spec.columns)}) VALUES ({', '.join('?' * len(spec.columns))})"
        with self._write() as conn:
            before = conn.total_changes
            conn.executemany(statement, rows.rows)
            return conn.total_changes - before
