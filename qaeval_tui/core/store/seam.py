"""The dialect seam: what every store statement needs of a database, and the hooks where two differ.

The domain modules (`runs`, `review`, `labels`, `inbox`, `adjudications`, `exposures`, `flags`,
`judge_cache`, `rubrics`) write each statement once, with `?` placeholders, over these methods;
a driver (`sqlite.connection.SQLiteConnection`, `postgres.connection.PgConnection`) implements them
for its database: running a statement (PostgreSQL's driver turns `?` into its own placeholder),
one write transaction, its errors mapped to the store's, and the hooks below for the few things
the two databases do differently (SQLite checks the types of what it reads, since its columns
hold anything; a team store on PostgreSQL reads some rows through the database's own functions,
which enforce what a reviewer's login may see).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any

Row = tuple[Any, ...]
Params = Sequence[Any]


class Driver:
    """One open store as the domain modules see it; a backend's driver class implements every method."""

    path: str
    """How messages name the store: its file path, or its URL with the password masked."""

    # -- statements -----------------------------------------------------------------------------

    def _rows(self, sql: str, params: Params = ()) -> list[Row]:
        """Every row `sql` returns (`?` placeholders)."""
        raise NotImplementedError

    def _row(self, sql: str, params: Params = ()) -> Row | None:
        """The first row `sql` returns, or None (an INSERT ... RETURNING included)."""
        raise NotImplementedError

    def _keyed_rows(self, sql: str, params: Params = ()) -> list[dict[str, Any]]:
        """Every row `sql` returns as a mapping from column name to value."""
        raise NotImplementedError

    def _many(self, sql: str, rows: Iterable[Params]) -> int:
        """Run `sql` once per row of parameters (inside `_write()`); returns how many rows it changed."""
        raise NotImplementedError

    def _write(self) -> AbstractContextManager[Any]:
        """One write transaction (a savepoint inside another), the database's errors mapped to the store's."""
        raise NotImplementedError

    def _snapshot(self) -> AbstractContextManager[None]:
        """Several reads that see one state of the store."""
        raise NotImplementedError

    def parsed(self, text: object, table: str, row_id: object, field: str) -> Any:
        """A JSON column's document; text that is not a JSON object is a CorruptRowError naming the row."""
        raise NotImplementedError

    # -- dialect hooks --------------------------------------------------------------------------

    def _insert_all(self, table: str, rows: Iterable[Mapping[str, Any]], *, ignore: bool = False) -> int:
        """Insert rows of one shape in one transaction; `ignore` keeps a row whose key is stored already.
        Returns how many rows were written."""
        raise NotImplementedError

    def _hold(self, *writers: str) -> None:
        """Hold the writer locks `writers` until this transaction ends (SQLite's one writer holds them all)."""
        raise NotImplementedError

    def _first_mistyped(self, table: str, types: Mapping[str, tuple[str, ...]]) -> tuple[Any, str] | None:
        """The id and field of the first row of `table` whose column holds a type outside `types[column]`
        (SQLite type names), or None: a database with typed columns refused such a value on the way in."""
        raise NotImplementedError
