"""Opening a SQLite store, its pragmas, explicit transactions and the schema bookkeeping.

WAL mode and a busy timeout let two reviewers label one database at once; each write is one
transaction taken up front (BEGIN IMMEDIATE), so concurrent writers queue instead of deadlocking.
A commit does not wait for the disk (`synchronous = NORMAL`): it is in the operating system's hands
at once, so it survives the process being killed, and a thread of its own flushes the WAL to disk
right after (`fsync`, what `synchronous = FULL` would do before returning), waited for only when the
store closes. A power cut or an operating system crash can so lose only the commits of the last few
milliseconds, never a corrupt store (SQLite's WAL recovery); a flush that fails is the next write's
(or the close's) error.
Raw SQL here: the pragmas (WAL included), BEGIN/SAVEPOINT, `user_version` and the table counts
run while a store opens or the review TUI starts, and sqlite-utils (whose `enable_wal`,
`table_names` and `count` would do) must stay unimported there: it slows the TUI's cold start.
`db` is sqlite-utils over the same connection, for the bulk inserts (`_insert_all`) of the seam.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.store.rows import BadRow, StoreConflictError
from qaeval_tui.core.store.schema import MIGRATIONS, SCHEMA_VERSION
from qaeval_tui.core.store.seam import Driver, Params, Row, no_lock

if TYPE_CHECKING:
    import sqlite_utils

BUSY_TIMEOUT_MS = 10_000


def store_error(path: str, exc: OSError | sqlite3.Error) -> UsageError | None:
    """The one-line error for a store that cannot be opened or written, or None for any other failure."""
    if isinstance(exc, OSError):
        from qaeval_tui.core.atomic_file import why_not_written

        return UsageError(f"{path}: cannot open the store: {why_not_written(Path(path), exc)}")
    reason = {
        sqlite3.SQLITE_READONLY: "the store is read-only (the file, its folder or its disk); qaeval writes it "
        "and the -wal and -shm files beside it",
        sqlite3.SQLITE_CANTOPEN: "cannot open the store (is it a folder, or in a folder qaeval may not write?)",
        sqlite3.SQLITE_PERM: "no permission to write the store",
        sqlite3.SQLITE_FULL: "the disk is full: the store could not be written",
        sqlite3.SQLITE_IOERR: f"the store could not be written to disk ({exc})",
    }.get(getattr(exc, "sqlite_errorcode", 0) & 0xFF)  # the primary code of an extended one
    return None if reason is None else UsageError(f"{path}: {reason}; nothing was changed")


class _Flusher:
    """Flushes a store's WAL file to disk (`fsync`) after its commits, on a thread of its own.

    A commit asks (`committed`) and returns at once; the thread flushes, and once more if commits
    came meanwhile, so every commit is on disk within about two flushes of it. Nothing waits for it
    but `close` and `wait` (the review app says "saved" once a label is on disk). The WAL's
    checksums chain its frames, so a later commit never survives a power cut without the earlier
    ones. `failure` is the first flush that failed, if any."""

    def __init__(self, wal: str) -> None:
        self.wal = wal
        self.failure: OSError | None = None
        self._asked = self._flushed = 0
        self._closing = False
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None

    def committed(self) -> None:
        with self._changed:
            self._asked += 1
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="qaeval-wal-flush", daemon=True)
                self._thread.start()
            self._changed.notify_all()

    def close(self) -> None:
        """Wait until every commit so far is flushed, and end the thread."""
        with self._changed:
            self._closing = True
            self._changed.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join()

    def _run(self) -> None:
        while True:
            with self._changed:
                while self._flushed == self._asked and not self._closing:
                    self._changed.wait()
                if self._flushed == self._asked:
                    return
                asked = self._asked
            failure = _fsync(self.wal)
            with self._changed:
                self.failure = self.failure or failure
                self._flushed = asked
                self._changed.notify_all()

    def wait(self) -> OSError | None:
        """Wait until every commit asked so far is flushed (or a flush failed); returns the failure, if any."""
        with self._changed:
            target = self._asked
            while self._flushed < target and self.failure is None:
                self._changed.wait()
            return self.failure

    def take_failure(self) -> OSError | None:
        """The flush that failed, if any, cleared so it is reported once."""
        with self._changed:
            failure, self.failure = self.failure, None
            return failure


def _fsync(path: str) -> OSError | None:
    try:
        descriptor = os.open(path, os.O_RDONLY)
    except FileNotFoundError:  # checkpointed and removed: its frames are in the database, synced
        return None
    except OSError as exc:
        return exc
    try:
        os.fsync(descriptor)
    except OSError as exc:
        return exc
    finally:
        os.close(descriptor)
    return None


def _first_column(_cursor: sqlite3.Cursor, row: tuple[Any, ...]) -> Any:
    return row[0]


class SQLiteConnection(Driver):
    """The SQLite driver: one open database; the domain modules add their reads and writes to it."""

    conn: sqlite3.Connection

    def __init__(self, connection: sqlite3.Connection, path: str) -> None:
        self.conn = connection
        self.path = path
        self._flusher = _Flusher(f"{path}-wal")

    @cached_property
    def db(self) -> sqlite_utils.Database:
        """sqlite-utils over the same connection, imported on first use: importing it slows the TUI's cold start."""
        import sqlite_utils

        return sqlite_utils.Database(self.conn, execute_plugins=False)

    @classmethod
    def open(cls, location: str | Path, *, one_thread: bool = False) -> Self:
        """Open (creating and migrating as needed) the store at `location`, a file path; ':memory:' works too.

        `one_thread` pins the connection to the opening thread (sqlite3 refuses a use from any
        other): for a caller that owns a thread for its store, as the TUI does."""
        text = str(location)
        connection = None
        try:
            if text != ":memory:":
                Path(text).parent.mkdir(parents=True, exist_ok=True)
            # Autocommit mode: transactions are explicit (BEGIN IMMEDIATE) in `transaction()`.
            connection = sqlite3.connect(
                text, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=one_thread
            )
            connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            connection.execute("PRAGMA journal_mode = WAL")
            connection.execute("PRAGMA synchronous = NORMAL")  # the WAL is flushed by `_Flusher`
            connection.execute("PRAGMA foreign_keys = ON")
            store = cls(connection, text)
            store.migrate()
        except (OSError, sqlite3.Error) as exc:
            if connection is not None:
                connection.close()
            raise store_error(text, exc) or UsageError(f"{text}: not a usable SQLite database ({exc})") from exc
        return store

    def _before_close(self) -> None:
        self._flusher.close()
        self._check_flushed()

    def _until_durable(self) -> None:
        failure = self._flusher.wait()
        if failure is not None:
            raise self._flush_error(failure)

    def _check_flushed(self) -> None:
        """A WAL flush that failed is a UsageError naming the store (raised once)."""
        failure = self._flusher.take_failure()
        if failure is not None:
            raise self._flush_error(failure)

    def _flush_error(self, failure: OSError) -> UsageError:
        return UsageError(
            f"{self.path}: the store could not be flushed to disk ({failure}); "
            "the last changes may be lost to a power cut"
        )

    # -- the seam's statements -----------------------------------------------------------------

    def _rows(self, sql: str, params: Params = ()) -> list[Row]:
        return self.conn.execute(sql, params).fetchall()

    def _row(self, sql: str, params: Params = ()) -> Row | None:
        rows = self.conn.execute(sql, params).fetchall()  # whole: an INSERT ... RETURNING finishes its step
        return rows[0] if rows else None

    def _keyed_rows(self, sql: str, params: Params = ()) -> list[dict[str, Any]]:
        cursor = self.conn.execute(sql, params)
        keys = [column[0] for column in cursor.description]
        return [dict(zip(keys, row, strict=True)) for row in cursor]

    def _execute(self, sql: str, params: Params = ()) -> int:
        return int(self.conn.execute(sql, params).rowcount)

    def _column(self, sql: str, params: Params = ()) -> Iterable[Any]:
        cursor = self.conn.cursor()
        cursor.row_factory = _first_column  # each value straight out, no tuple per row
        return cursor.execute(sql, params)

    def _many(self, sql: str, rows: Iterable[Params]) -> int:
        before = self.conn.total_changes
        self.conn.executemany(sql, rows)
        return self.conn.total_changes - before

    def _insert_all(self, table: str, rows: Iterable[Mapping[str, Any]], *, ignore: bool = False) -> int:
        """sqlite-utils' `insert_all` (it batches under SQLite's bound-parameter limit)."""
        with self._write() as conn:
            before = conn.total_changes
            self.db.table(table).insert_all(map(dict, rows), ignore=ignore)
            return int(conn.total_changes - before)

    def _hold(self, *writers: str) -> None:
        """Nothing to take: BEGIN IMMEDIATE made this transaction the store's one writer."""

    @property
    def reviewer_columns_only(self) -> bool:
        """False: a SQLite file has no logins; whoever opens it reads every column."""
        return False

    def _review_item_row(self, item_id: str, query: str) -> Row | None:
        return self._row(query, (item_id,))

    def _verdict_fields(self, where: str, params: Params) -> list[Row] | None:
        """`json_extract` of several paths is a JSON array of them already."""
        try:
            return self.conn.execute(
                f"""SELECT json_extract(verdict_json, '$.item_id'),
                           json_extract(verdict_json, '$.status', '$.judge', '$.scores')
                    FROM judge_verdicts {where} ORDER BY id""",
                params,
            ).fetchall()
        except sqlite3.OperationalError:  # a verdict_json that is not JSON: the caller finds it
            return None

    def _quarantine_readable(self) -> bool:
        return True

    def _bad_rows(self, table: str, where: str, params: Params, checks: Mapping[str, tuple[str, str]]) -> list[BadRow]:
        """One pass in SQLite over the columns the read takes anyway, no Python per good row."""
        conditions = {name: condition for name, (condition, _) in checks.items()}
        bad = f"({' AND '.join(conditions.values())}) IS NOT 1"  # IS NOT: a NULL counts as a failure too
        found: list[BadRow] = []
        ids = self.conn.execute(f"SELECT id FROM {table} WHERE ({where}) AND {bad} ORDER BY id", tuple(params))
        for row in ids.fetchall():
            values = self.conn.execute(
                f"SELECT {', '.join(f'({test}) IS 1, {name}' for name, test in conditions.items())} FROM {table} "
                "WHERE id = ?",
                row,
            ).fetchone()
            for name, ok, value in zip(conditions, values[::2], values[1::2], strict=True):
                if not ok:
                    found.append(BadRow(table, row[0], name, f"holds {value!r}, not {checks[name][1]}"))
        return found

    def _first_mistyped(self, table: str, types: Mapping[str, tuple[str, ...]]) -> tuple[Any, str] | None:
        """SQLite's columns hold any type: `typeof` finds a value qaeval never writes there."""
        tests = {
            field: f"typeof({field}) NOT IN ({', '.join(repr(t) for t in allowed)})" for field, allowed in types.items()
        }
        case = " ".join(f"WHEN {test} THEN '{field}'" for field, test in tests.items())
        row = self.conn.execute(
            f"SELECT id, CASE {case} END FROM {table} WHERE {' OR '.join(tests.values())} ORDER BY id LIMIT 1"
        ).fetchone()
        return None if row is None else (row[0], str(row[1]))

    def _take_exclusive(self, name: str) -> Callable[[], None]:
        """A lock on the file `<store>.<name>.lock` beside the store; none for an in-memory store."""
        if self.path == ":memory:":
            return no_lock
        import fcntl

        handle = open(f"{self.path}.{name}.lock", "a", encoding="utf-8")  # noqa: SIM115  # closed by `release`
        try:
            fcntl.flock(handle, fcntl.LOCK_EX)
        except BaseException:
            handle.close()
            raise

        def release() -> None:
            with handle:
                fcntl.flock(handle, fcntl.LOCK_UN)

        return release

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """`transaction()` handing the connection to this package's own statements."""
        try:
            if self.conn.in_transaction:
                with self._savepoint():
                    yield self.conn
                return
            self._check_flushed()
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
                self.conn.execute("COMMIT")
                self._own_commits += 1
                if self.path != ":memory:":
                    self._flusher.committed()
            except BaseException:
                if self.conn.in_transaction:  # SQLite may have rolled back already
                    self.conn.execute("ROLLBACK")
                raise
        except sqlite3.IntegrityError as exc:
            raise StoreConflictError(str(exc)) from exc
        except sqlite3.OperationalError as exc:
            error = store_error(self.path, exc)
            if error is None:
                raise
            raise error from exc

    @contextmanager
    def _snapshot(self) -> Iterator[None]:
        """Several reads that see one state of the store: a read transaction, or the one already open."""
        if self.conn.in_transaction:
            yield
            return
        self.conn.execute("BEGIN")
        try:
            yield
        finally:
            if self.conn.in_transaction:
                self.conn.execute("COMMIT")

    @contextmanager
    def _savepoint(self) -> Iterator[None]:
        self.conn.execute("SAVEPOINT qaeval_nested")
        try:
            yield
        except BaseException:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK TO qaeval_nested")
                self.conn.execute("RELEASE qaeval_nested")
            raise
        self.conn.execute("RELEASE qaeval_nested")

    # -- schema -------------------------------------------------------------------------------

    @property
    def schema_version(self) -> int:
        return int(self.conn.execute("PRAGMA user_version").fetchone()[0])

    def journal_mode(self) -> str:
        return str(self.conn.execute("PRAGMA journal_mode").fetchone()[0])

    def migrate(self) -> None:
        current = self.schema_version
        if current > SCHEMA_VERSION:
            raise UsageError(
                f"{self.path}: store schema version {current} is newer than this qaeval "
                f"({SCHEMA_VERSION}); upgrade qaeval"
            )
        for version in range(current + 1, SCHEMA_VERSION + 1):
            with self._write() as conn:
                if conn.execute("PRAGMA user_version").fetchone()[0] >= version:
                    continue  # another process upgraded it while this one waited for the lock
                for statement in MIGRATIONS[version - 1]:
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {version}")

    def table_names(self) -> list[str]:
        return [name for (name,) in self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]

    def _data_version(self) -> int:
        """SQLite's own: it moves when another connection commits, never on this one's commits."""
        return int(self.conn.execute("PRAGMA data_version").fetchone()[0])
