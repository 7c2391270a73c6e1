"""The SQLite backend: the domain modules' statements over the SQLite driver (`connection`).

`connection.SQLiteConnection` is the driver (sqlite3, BEGIN IMMEDIATE transactions, sqlite-utils
for bulk inserts, its errors mapped to the store's).
Runs, verdicts, labels, adjudications and inbox decisions are append-only: triggers refuse UPDATE
and DELETE, so a changed mind is a new revision and history is never erased.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from qaeval_tui.core.store.codec import utc_now
from qaeval_tui.core.store.domains import DomainTables
from qaeval_tui.core.store.rows import OutOfRangeError, StoredLabel, StoredVerdict
from qaeval_tui.core.store.schema import APPEND_ONLY, SCHEMA_VERSION
from qaeval_tui.core.store.sqlite.connection import BUSY_TIMEOUT_MS, SQLiteConnection

__all__ = [
    "APPEND_ONLY",
    "BUSY_TIMEOUT_MS",
    "SCHEMA_VERSION",
    "OutOfRangeError",
    "Store",
    "StoredLabel",
    "StoredVerdict",
    "utc_now",
]


class Store(DomainTables, SQLiteConnection):
    """One open SQLite database. Use `Store.open(path)`; close with `close()` or a `with` block."""


if TYPE_CHECKING:  # mypy checks here that the SQLite store offers the whole interface, typed alike
    from qaeval_tui.core.store.backend import StoreBackend

    _SQLITE_IS_A_BACKEND: type[StoreBackend] = Store
