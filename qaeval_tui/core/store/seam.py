"""The dialect seam: what every store statement needs of a database, and the hooks where two differ.

The domain modules (`runs`, `review`, `labels`, `inbox`, `adjudications`, `exposures`, `flags`,
`judge_cache`, `rubrics`) write each statement once, with `?` placeholders, over these methods;
a driver (`sqlite.connection.SQLiteConnection`, `postgres.connection.PgConnection`) implements them
for its database: running a statement (PostgreSQL's driver turns `?` into its own placeholder),
one write transaction, its errors mapped to the store's, and the hooks below for the few things
the two databases do differently (noticing another connection's commit, a lock held across
transactions, a faster way to write a whole table; SQLite checks the types of what it reads, since
its columns hold anything; a team store on PostgreSQL reads some rows through the database's own
functions, which enforce what a reviewer's login may see). Every method of the store's interface
(`backend.StoreBackend`) has one body, here or in a domain module.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from operator import itemgetter
from typing import Any, Protocol, Self

from qaeval_tui.core.store.codec import parse_object
from qaeval_tui.core.store.rows import BadRow, ChangeToken
from qaeval_tui.core.store.tables import TABLE_SPECS, TableRows

Row = tuple[Any, ...]
Params = Sequence[Any]

INBOX_WRITER = "inbox"
"""The writer lock an inbox import or decision holds (`Driver._hold`)."""


def no_lock() -> None:
    """Nothing to release: what `Driver._take_exclusive` returns where no lock is needed."""


def label_writer(reviewer: str) -> str:
    """The writer lock a label revision of `reviewer` holds (on a team store a login may take only its own)."""
    return f"labels:{reviewer}"


class Connection(Protocol):
    """What the seam itself asks of a driver's database connection (sqlite3's, psycopg's)."""

    def close(self) -> None: ...


class Driver:
    """One open store as the domain modules see it; a backend's driver class implements every method."""

    path: str
    """How messages name the store: its file path, or its URL with the password masked."""

    conn: Connection
    """The driver's connection to its database."""

    _own_commits = 0
    """Write transactions this connection committed (each driver's `_write` counts its outer ones)."""

    # -- the store's life, the same on every backend -------------------------------------------

    def close(self) -> None:
        """Release the connection, once every commit is on disk (`durable`)."""
        try:
            self._before_close()
        finally:
            self.conn.close()

    def durable(self) -> None:
        """Wait until every commit made so far is on disk; a UsageError naming the store if one could not
        be written there. Safe from any thread: it waits and touches no connection."""
        self._until_durable()

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

    def change_token(self) -> ChangeToken:
        """Differs from an earlier token once anything was committed since, by this connection or another."""
        return ChangeToken(others=self._data_version(), own=self._own_commits)

    @contextmanager
    def exclusive(self, name: str) -> Iterator[None]:
        """One process at a time, across transactions (two reviewers preparing one fresh store): the lock
        named `name` (`_take_exclusive`), held until the block is left."""
        release = self._take_exclusive(name)
        try:
            yield
        finally:
            release()

    def parsed(self, text: object, table: str, row_id: object, field: str) -> Any:
        """A JSON column's document; text that is not a JSON object is a CorruptRowError naming the row."""
        return parse_object(self.path, text, table, row_id, field)

    # -- whole tables, as stored (ids included): `qaeval store copy` --------------------------------

    def table_rows(self, table: str) -> TableRows:
        """Every row of `table`, columns in `TABLE_SPECS[table]` order, as written or sorted by its key.

        Sorted here, not by the database, whose text collation may differ from the byte order a copy
        hashes rows in (`copy.table_digest`)."""
        spec = TABLE_SPECS[table]
        query = f"SELECT {', '.join(spec.columns)} FROM {spec.name}"
        if spec.in_insertion_order:  # SQLite's implicit rowid, the PostgreSQL schema's `rowid` column
            return TableRows(spec, self._rows(f"{query} ORDER BY rowid"))
        rows = self._rows(query)
        rows.sort(key=itemgetter(*(spec.columns.index(column) for column in spec.key)))
        return TableRows(spec, rows)

    def insert_table_rows(self, rows: TableRows) -> int:
        """Insert the rows as they are (ids included) in one transaction; a clash is a StoreConflictError."""
        with self._write():
            return self._copy_in(rows)

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

    def _data_version(self) -> int:
        """A number that differs once another connection committed anything (it may move on this
        connection's own commits too, which `_own_commits` counts either way)."""
        raise NotImplementedError

    def _before_close(self) -> None:
        """What must finish before the connection closes (nothing where a commit waits for the disk)."""

    def _until_durable(self) -> None:
        """Wait for the commits made so far to reach the disk (PostgreSQL's commit returns once they have:
        `synchronous_commit`)."""

    def _take_exclusive(self, name: str) -> Callable[[], None]:
        """Wait for and take the lock `exclusive(name)` holds across transactions; returns what releases it."""
        raise NotImplementedError

    def _copy_in(self, rows: TableRows) -> int:
        """Write whole-table rows as they are, ids included, inside `_write()`; returns how many were written.

        One INSERT per row here; a database with a faster way in (and identity counters to move past
        the ids copied) overrides it."""
        spec = rows.spec
        columns = ", ".join(spec.columns)
        return self._many(
            f"INSERT INTO {spec.name} ({columns}) VALUES ({', '.join('?' * len(spec.columns))})", rows.rows
        )

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
