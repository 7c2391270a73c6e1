"""`qaeval store copy`: a whole store moved into an empty one, any backend to any other, then proven equal.

Every table of `tables.TABLES` is read whole from the source (in one transaction: one state of it)
and written, ids included, into the target in one transaction. Before that transaction commits,
each table is read back from the target and compared with what was read from the source: the row
count and a SHA-256 over a canonical serialization of its rows (`table_digest`). Any difference
rolls the whole copy back and is a `CopyMismatchError` (exit 1) naming the tables; the target is
left as it was. A target holding any row is refused before anything is written (exit 2).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from operator import itemgetter

from qaeval_tui.core.errors import QaevalError, UsageError
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.tables import TABLES, TableRows


@dataclass(frozen=True, slots=True)
class TableCheck:
    """One table on both sides: row counts and content hashes."""

    table: str
    source_rows: int
    target_rows: int
    source_hash: str
    target_hash: str

    @property
    def equal(self) -> bool:
        return self.source_rows == self.target_rows and self.source_hash == self.target_hash


@dataclass(frozen=True, slots=True)
class CopyReport:
    """What a copy moved, table by table, each checked on both sides."""

    source: str
    target: str
    tables: tuple[TableCheck, ...]

    @property
    def rows(self) -> int:
        return sum(check.target_rows for check in self.tables)


class CopyMismatchError(QaevalError):
    """The target did not read back what the source holds: the copy was rolled back (exit 1)."""

    exit_code = 1

    def __init__(self, report: CopyReport) -> None:
        self.report = report
        differing = "; ".join(
            f"{check.table}: {check.source_rows} row(s) hashing {check.source_hash[:12]} in the source, "
            f"{check.target_rows} hashing {check.target_hash[:12]} in the target"
            for check in report.tables
            if not check.equal
        )
        super().__init__(f"{report.target}: the copy does not match {report.source} ({differing}); nothing was kept")


def _blob(value: object) -> object:
    """A blob (only a row written outside qaeval holds one) hashes as its bytes in hex."""
    if isinstance(value, bytes):
        return {"blob": value.hex()}
    raise TypeError(f"a {type(value).__name__} is not a stored value")


def table_digest(rows: TableRows) -> str:
    """SHA-256 of a table's rows in key order (or as written, for a table read so): each row one line of
    ASCII JSON, flags as 0 or 1.

    The same content gives the same digest whichever backend it was read from (a float prints its
    shortest round-trip form, text is escaped the same way, booleans count as whole numbers)."""
    spec = rows.spec
    digest = hashlib.sha256(json.dumps([spec.name, spec.columns]).encode("ascii") + b"\n")
    positions = [spec.columns.index(column) for column in spec.key]
    ordered = rows.rows if spec.in_insertion_order else sorted(rows.rows, key=itemgetter(*positions))
    for row in ordered:
        cells = [int(cell) if type(cell) is bool else cell for cell in row]
        line = json.dumps(cells, ensure_ascii=True, separators=(",", ":"), default=_blob)
        digest.update(line.encode("ascii") + b"\n")
    return digest.hexdigest()


def non_empty_tables(store: StoreBackend) -> dict[str, int]:
    """The tables of `store` holding rows, with their counts."""
    counts = {spec.name: store.count(spec.name) for spec in TABLES}
    return {table: count for table, count in counts.items() if count}


def copy_store(source: StoreBackend, target: StoreBackend) -> CopyReport:
    """Copy every table of `source` into the empty `target`, checked before it commits (see the module)."""
    held = non_empty_tables(target)
    if held:
        listed = ", ".join(f"{table} ({count})" for table, count in held.items())
        raise UsageError(
            f"{target.path}: the target store is not empty ({listed}); copy into an empty store; nothing was changed"
        )
    with source.transaction():  # one state of the source: no writer commits between two tables
        dumps = [source.table_rows(spec.name) for spec in TABLES]
    with target.transaction():
        for dump in dumps:
            target.insert_table_rows(dump)
        checks = []
        for dump in dumps:
            stored = target.table_rows(dump.spec.name)
            checks.append(
                TableCheck(dump.spec.name, len(dump.rows), len(stored.rows), table_digest(dump), table_digest(stored))
            )
        report = CopyReport(source.path, target.path, tuple(checks))
        if not all(check.equal for check in checks):
            raise CopyMismatchError(report)  # leaving the transaction rolls the whole copy back
    return report
