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

from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Self

from qaeval_tui.core.store.codec import parse_object
from qaeval_tui.core.store.rows import BadRow

Row = tuple[Any, ...]
Params = Sequence[Any]

INBOX_WRITER = "inbox"
"""The writer lock an inbox import or decision holds (`Driver._hold`)."""


def label_writer(reviewer: str) -> str:
    """The writer lock a label revision of `reviewer` holds (on a team store a login may take only its own)."""
    return f"labels:{reviewer}"


class Driver:
    """One open store as the domain modules see it; a backend's driver class implements every method."""

    path: str
    """How messages name the store: its file path, or its URL with the password masked."""

    # -- the store's life, the same on every backend -------------------------------------------

    def close(self) -> None:
        """Release the connection."""
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One write transaction: everything inside commits together or not at all.

        Nested inside another, it is a savepoint of the outer one: an error inside undoes only the
        nested block's writes, and the outer transaction goes on if the caller handles it. A write
        that collides with a stored row (a key or a uniqueness rule) is a StoreConflictError; a store
        that cannot be written (read-only, disk full) is a UsageError naming it, a server that cannot
        be reached a StoreUnavailableError.
        """
        with self._write():
            yield

    def table_names(self) -> list[str]:
        """The names of the store's tables."""
        raise NotImplementedError

    def count(self, table: str) -> int:
        """How many rows `table` holds; a KeyError for a table the store does not have."""
        if table not in self.table_names():
            raise KeyError(table)
        row = self._row(f'SELECT count(*) FROM "{table}"')
        return int(row[0]) if row else 0

    def parsed(self, text: object, table: str, row_id: object, field: str) -> Any:
        """A JSON column's document; text that is not a JSON object is a CorruptRowError naming the row."""
        return parse_object(self.path, text, table, row_id, field)

    # -- statements -----------------------------------------------------------------------------

    def _rows(self, sql: str, params: Params = ()) -> list[Row]:
        """Every row `sql` returns (`?` placeholders; a statement's text holds no other `?`: values go in
        as parameters)."""
        raise NotImplementedError

    def _row(self, sql: str, params: Params = ()) -> Row | None:
        """The first row `sql` returns, or None (an INSERT ... RETURNING included)."""
        raise NotImplementedError

    def _keyed_rows(self, sql: str, params: Params = ()) -> list[dict[str, Any]]:
        """Every row `sql` returns as a mapping from column name to value."""
        raise NotImplementedError

    def _execute(self, sql: str, params: Params = ()) -> int:
        """Run one statement that returns no rows (inside `_write()`); returns how many rows it changed."""
        raise NotImplementedError

    def _column(self, sql: str, params: Params = ()) -> Iterable[Any]:
        """The first column of every row `sql` returns (SQLite's driver builds no tuple per row)."""
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

    # -- dialect hooks --------------------------------------------------------------------------

    def _insert_all(self, table: str, rows: Iterable[Mapping[str, Any]], *, ignore: bool = False) -> int:
        """Insert rows of one shape in one transaction; `ignore` keeps a row whose key is stored already.
        Returns how many rows were written."""
        raise NotImplementedError

    def _hold(self, *writers: str) -> None:
        """Hold the writer locks `writers` until this transaction ends (SQLite's one writer holds them all)."""
        raise NotImplementedError

    @property
    def reviewer_columns_only(self) -> bool:
        """The login is a team reviewer and not a curator: it may not read the columns naming an item's
        case or run (a label's `case_id`, a review item's case, hash and run); its reads leave them ''."""
        raise NotImplementedError

    def _review_item_row(self, item_id: str, query: str) -> Row | None:
        """The row of `query` (`review.REVIEW_ITEM`) for `item_id`; a team reviewer's login reads it through
        the database's redacting function instead."""
        raise NotImplementedError

    def _verdict_fields(self, where: str, params: Params) -> list[Row] | None:
        """(item_id, JSON array [status, judge, scores]) of each verdict among `where` (`runs._filters`), in
        id order, taken out of its document by the database; an item id that is not text reads None, and
        None stands for the whole when a document is not JSON."""
        raise NotImplementedError

    def _quarantine_readable(self) -> bool:
        """The login may read `label_quarantine` (a team reviewer's may not: its label reads leave nothing out)."""
        raise NotImplementedError

    def _bad_rows(self, table: str, where: str, params: Params, checks: Mapping[str, tuple[str, str]]) -> list[BadRow]:
        """Every row of `table` among `where` failing a check (column: SQLite condition, what it wants),
        each failing column located; none on a database whose typed columns and CHECKs refused them."""
        raise NotImplementedError

    def _first_mistyped(self, table: str, types: Mapping[str, tuple[str, ...]]) -> tuple[Any, str] | None:
        """The id and field of the first row of `table` whose column holds a type outside `types[column]`
        (SQLite type names), or None: a database with typed columns refused such a value on the way in."""
        raise NotImplementedError
