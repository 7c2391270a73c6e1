"""Opening a PostgreSQL store by URL, its transactions, the schema bookkeeping and the seam's hooks.

One psycopg connection in autocommit mode: each write method is one transaction of its own
(`psycopg`'s `transaction()`, a savepoint when nested); each read is one statement, so it sees one
committed state (SQLite's backend reads twice, checking rows first; here the column types and
CHECKs did the checking on the way in). Writers that must not interleave (one person's label
revisions, numbered inside the transaction, in commit order; the inbox's first decision) hold a row
of `writer_locks` until their commit, taken by `qaeval_hold`, which lets a login lock only its own
row (and a curator the inbox's): no login can stall another's writes, as any could with an advisory
lock, and none needs a right on the table (row-level security grants reviewers INSERT on their own
labels only).

Every wait is bounded: the session's `lock_timeout` and `statement_timeout` turn a wait for another
session (or a statement that runs away) into a StoreBusyError naming what was waited for.

`path` is the URL with its password masked: it names the store in every message.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import lru_cache
from typing import Any, Self

import psycopg
from psycopg import errors, pq

from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.store.codec import utc_now
from qaeval_tui.core.store.rows import BadRow, CorruptRowError, StoreConflictError, StoreUnavailableError
from qaeval_tui.core.store.schema import PG_MIGRATIONS, SCHEMA_VERSION
from qaeval_tui.core.store.seam import Driver, Row, no_lock
from qaeval_tui.core.store.urls import redacted, refuse_server_options, scrubbed

CONNECT_TIMEOUT_S = 10

LOCK_TIMEOUT_S = 20
"""Longest wait for a lock another session holds (a writer ahead, a migration) before the call fails."""
STATEMENT_TIMEOUT_S = 600
"""Longest any one statement may run (a bulk copy's included)."""

# Advisory lock key of a migration (the owner's alone: the tables do not exist yet for a row lock).
LOCK_MIGRATE = 0x71A0_0001


Params = Sequence[Any] | dict[str, Any]


@lru_cache(maxsize=512)
def pg_sql(statement: str) -> str:
    """A statement of the seam's (`?` placeholders) in psycopg's (`%s`, a literal `%` doubled)."""
    return statement.replace("%", "%%").replace("?", "%s")


def insert_sql(table: str, row: Mapping[str, Any], suffix: str = "") -> str:
    """An INSERT of `row`'s columns with named placeholders (for executemany over rows like it)."""
    columns = ", ".join(row)
    values = ", ".join(f"%({column})s" for column in row)
    return f"INSERT INTO {table} ({columns}) VALUES ({values}) {suffix}"


class StoreRefusedError(UsageError):
    """The login may not read or write that (a team store's grants and row-level security): exit 2."""


class StoreSettingsError(UsageError):
    """The server could not place a statement (no schema to create in, a table off the search path): exit 2."""


class StoreBusyError(StoreUnavailableError):
    """A wait for another session (its lock) or a statement ran past its bound; nothing was changed."""


class StoreValueError(UsageError):
    """A value PostgreSQL cannot hold (text with a NUL character, a number out of its column's range): exit 2."""


class PgConnection(Driver):
    """The PostgreSQL driver: one open store; the domain modules add their reads and writes to it."""

    conn: psycopg.Connection[tuple[Any, ...]]

    def __init__(self, connection: psycopg.Connection[tuple[Any, ...]], url: str) -> None:
        self.conn = connection
        self.url = url
        self.path = redacted(url)
        self._own_xids = 0
        self._groups: tuple[bool, bool] | None = None
        self._salted = False
        self._may_read_quarantine: bool | None = None

    # -- opening and closing ------------------------------------------------------------------

    @classmethod
    def open(cls, location: str, *, one_thread: bool = False) -> Self:
        """Connect to the store at `location`, a URL, creating and migrating its schema as needed.

        `one_thread` is accepted for the SQLite backend's signature: a psycopg connection may be
        used from any thread."""
        store = cls(cls._connect(location), location)
        try:
            store.migrate()
        except BaseException:
            store.close()
            raise
        return store

    @classmethod
    def _connect(cls, url: str) -> psycopg.Connection[tuple[Any, ...]]:
        refuse_server_options(url)
        try:
            conn = psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S)
            conn.execute(f"SET lock_timeout = '{LOCK_TIMEOUT_S}s'")
            conn.execute(f"SET statement_timeout = '{STATEMENT_TIMEOUT_S}s'")
            return conn
        except psycopg.Error as exc:
            raise StoreUnavailableError(f"{redacted(url)}: cannot connect to the store: {cls._why(url, exc)}") from None

    @staticmethod
    def _why(url: str, exc: BaseException) -> str:
        """The driver's reason on one line, never the password."""
        return scrubbed(" ".join(str(exc).split()) or type(exc).__name__, url)

    # -- statements ---------------------------------------------------------------------------

    def _unavailable(self, exc: BaseException) -> StoreUnavailableError:
        if isinstance(exc, errors.LockNotAvailable):
            return StoreBusyError(
                f"{self.path}: waited {LOCK_TIMEOUT_S} s for another session's lock (a write ahead of this one, "
                f"or a migration) and gave up; nothing was changed ({self._why(self.url, exc)})"
            )
        if isinstance(exc, errors.QueryCanceled):
            return StoreBusyError(
                f"{self.path}: a statement ran longer than {STATEMENT_TIMEOUT_S} s and was stopped; "
                f"nothing was changed ({self._why(self.url, exc)})"
            )
        return StoreUnavailableError(f"{self.path}: the store is unavailable: {self._why(self.url, exc)}")

    def _ready(self) -> None:
        """Reconnect a connection the server dropped (a restart), outside any transaction."""
        if self.conn.broken:
            self.conn = self._connect(self.url)

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return self._q(pg_sql(sql), tuple(params)).fetchall()

    def _row(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        return self._q(pg_sql(sql), tuple(params)).fetchone()

    def _keyed_rows(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        cursor = self._q(pg_sql(sql), tuple(params))
        keys = [column.name for column in cursor.description or ()]
        return [dict(zip(keys, row, strict=True)) for row in cursor]

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        return max(self._q(pg_sql(sql), tuple(params)).rowcount, 0)

    def _column(self, sql: str, params: Sequence[Any] = ()) -> Iterable[Any]:
        return [row[0] for row in self._q(pg_sql(sql), tuple(params))]

    def _review_item_row(self, item_id: str, query: str) -> Row | None:
        """A team reviewer's login reads the item through `qaeval_review_item`, which redacts the case to what
        the review screen shows before a submit until the gold lock (then the reveal) is on record."""
        if not self.team_reviewer:
            return self._row(query, (item_id,))
        try:
            return self._q("SELECT * FROM qaeval_review_item(%s)", (item_id,)).fetchone()
        except errors.DataError:  # the redacting read parses the case on the server: one that is not JSON
            raise CorruptRowError(self.path, "cases", f"of item {item_id}", "case_json", "not JSON") from None

    def _many(self, sql: str, rows: Iterable[Sequence[Any]]) -> int:
        params = [tuple(row) for row in rows]
        if not params:
            return 0
        with self._statement(), self.conn.cursor() as cursor:
            cursor.executemany(pg_sql(sql), params)
            return max(cursor.rowcount, 0)

    def _insert_all(self, table: str, rows: Iterable[Mapping[str, Any]], *, ignore: bool = False) -> int:
        """Insert rows of one shape; returns how many were written (`ignore` skips a stored key)."""
        rows = list(rows)
        if not rows:
            return 0
        with self._write() as conn, conn.cursor() as cursor:
            cursor.executemany(insert_sql(table, rows[0], "ON CONFLICT DO NOTHING" if ignore else ""), rows)
            return max(cursor.rowcount, 0)

    def _verdict_fields(self, where: str, params: Sequence[Any]) -> list[Row] | None:
        """The json operators over each document, parsed once on the server."""
        try:
            # Inside a caller's transaction, a savepoint: a document that is not JSON fails it alone.
            with self.conn.transaction() if self._in_transaction() else contextlib.nullcontext():
                return self._q(
                    pg_sql(
                        f"""SELECT CASE WHEN json_typeof(d->'item_id') = 'string' THEN d->>'item_id' END,
                                   json_build_array(d->'status', d->'judge', d->'scores')::text
                            FROM (SELECT id, verdict_json::json AS d FROM judge_verdicts {where}) v ORDER BY id"""
                    ),
                    tuple(params),
                ).fetchall()
        except errors.DataError:  # a verdict_json that is not JSON: the caller finds it
            return None

    def _quarantine_readable(self) -> bool:
        """A curator's login and the owner's may read the quarantine; a reviewer's may not (asked once)."""
        if self._may_read_quarantine is None:
            row = self._q("SELECT has_table_privilege('label_quarantine', 'SELECT')").fetchone()
            self._may_read_quarantine = bool(row and row[0])
        return self._may_read_quarantine

    def _bad_rows(
        self, table: str, where: str, params: Sequence[Any], checks: Mapping[str, tuple[str, str]]
    ) -> list[BadRow]:
        """None: the columns' types and CHECK constraints refused such values on the way in."""
        return []

    @contextmanager
    def _snapshot(self) -> Iterator[None]:
        """Several reads that see one state of the store: a read-only repeatable-read transaction (it
        takes no transaction id and blocks no writer), or the transaction already open."""
        if self._in_transaction():
            yield
            return
        with self._statement(), self.conn.transaction():
            self.conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            yield

    def _first_mistyped(self, table: str, types: Mapping[str, tuple[str, ...]]) -> tuple[Any, str] | None:
        """None: the columns' types refused any other value on the way in."""
        return None

    def _q(self, query: str, params: Params | None = None) -> psycopg.Cursor[tuple[Any, ...]]:
        """Run one statement; a lost server is a StoreUnavailableError naming the store."""
        with self._statement():
            return self.conn.execute(query, params)

    @contextmanager
    def _statement(self) -> Iterator[None]:
        """Around one statement: a dropped connection renewed first (outside a transaction), the driver's
        errors mapped to the store's."""
        if not self._in_transaction():
            self._ready()
        try:
            yield
        except psycopg.Error as exc:
            error = self._store_error(exc)
            if error is None:
                raise
            raise error from exc

    def _store_error(self, exc: psycopg.Error) -> UsageError | None:
        """The store's error for the driver's, or None for one the caller names (a stored value the server
        cannot read) or that is no store condition at all."""
        if isinstance(exc, psycopg.OperationalError):
            return self._unavailable(exc)
        if isinstance(exc, errors.InsufficientPrivilege):
            return self._refused(exc)
        if isinstance(exc, psycopg.ProgrammingError):
            return self._misplaced(exc)
        if isinstance(exc, psycopg.DataError) and exc.sqlstate is None:  # the driver refused to send a value
            return self._unstorable(exc)
        return None

    def _misplaced(self, exc: psycopg.Error) -> StoreSettingsError:
        """A statement the server could not place (no schema to create in, a table not on the search
        path: settings of the login, the database or `PGOPTIONS` moved the store out of reach)."""
        return StoreSettingsError(
            f"{self.path}: the server refused a statement of qaeval's ({self._why(self.url, exc)}); the login's "
            "settings (its search_path, from the database, the role or PGOPTIONS) may hide the store's tables; "
            "nothing was changed"
        )

    def _unstorable(self, exc: psycopg.DataError) -> StoreValueError:
        """A value the driver refused to send (text with a NUL character): nothing reached the server."""
        return StoreValueError(
            f"{self.path}: the store cannot hold a value given ({self._why(self.url, exc)}); nothing was changed"
        )

    def _refused(self, exc: errors.InsufficientPrivilege) -> StoreRefusedError:
        return StoreRefusedError(
            f"{self.path}: this login may not do that on the team store ({self._why(self.url, exc)}); "
            "nothing was changed"
        )

    def _in_transaction(self) -> bool:
        return self.conn.info.transaction_status in (pq.TransactionStatus.INTRANS, pq.TransactionStatus.INERROR)

    def _lock(self, key: int) -> None:
        """Hold an advisory lock until this transaction ends: writers of `key` queue, readers do not.

        On a team store the key is salted with its secret (`qaeval_lock_key`), which no reviewer reads."""
        if self._salted_keys():
            self._q("SELECT pg_advisory_xact_lock(qaeval_lock_key(%s))", (f"lock:{key}",))
        else:
            self._q("SELECT pg_advisory_xact_lock(%s)", (key,))

    def _salted_keys(self) -> bool:
        """`team init` made this store's advisory lock keys secret (asked again until it has)."""
        if not self._salted:
            row = self._q("SELECT to_regprocedure('qaeval_lock_key(text)') IS NOT NULL").fetchone()
            self._salted = bool(row and row[0])
        return self._salted

    def _hold(self, *writers: str) -> None:
        """Hold the writer locks `writers` until this transaction ends: their other writers queue, readers do not."""
        self._q("SELECT qaeval_hold(%s::text[])", (sorted(set(writers)),))

    @property
    def team_reviewer(self) -> bool:
        """The session's login is in the team's reviewer group: the database withholds its own items' case
        and output but through `qaeval_review_item`, which the item reads then take."""
        return self._team_groups()[0]

    @property
    def reviewer_columns_only(self) -> bool:
        """The session's login is a reviewer and not a curator: it may not read the columns naming an item's
        case or run (a label's `case_id`, a review item's case, hash and run), so its reads leave them ''."""
        reviewer, curator = self._team_groups()
        return reviewer and not curator

    def _team_groups(self) -> tuple[bool, bool]:
        """Whether the session's login is in the reviewer group, and in the curator group (asked once)."""
        if self._groups is None:
            row = self._q(
                """SELECT coalesce(bool_or(g.rolname = 'qaeval_reviewer'), false),
                          coalesce(bool_or(g.rolname = 'qaeval_curator'), false)
                   FROM pg_catalog.pg_auth_members m
                   JOIN pg_catalog.pg_roles g ON g.oid = m.roleid
                   JOIN pg_catalog.pg_roles u ON u.oid = m.member
                   WHERE u.rolname = session_user"""
            ).fetchone()
            self._groups = (bool(row[0]), bool(row[1])) if row else (False, False)
        return self._groups

    def _take_exclusive(self, name: str) -> Callable[[], None]:
        """A session-level advisory lock named `name` (released too when the connection drops).

        A team reviewer's login (not a curator's too) takes none: it may not run the system nor build
        queues, so nothing it prepares needs one process at a time, and waiting on a key any login can
        hold would let another reviewer stall its start."""
        if self.reviewer_columns_only:
            return no_lock
        key, arg = ("qaeval_lock_key(%s)", name) if self._salted_keys() else ("hashtext(%s)", f"qaeval:{name}")
        self._q(f"SELECT pg_advisory_lock({key})", (arg,))

        def release() -> None:
            if not self.conn.broken:
                self._q(f"SELECT pg_advisory_unlock({key})", (arg,))

        return release

    # -- transactions -------------------------------------------------------------------------

    @contextmanager
    def _write(self) -> Iterator[psycopg.Connection[tuple[Any, ...]]]:
        outer = not self._in_transaction()
        if outer:
            self._ready()
        try:
            with self.conn.transaction():
                yield self.conn
                if outer:  # the change token leaves this connection's own transaction ids out
                    self._own_xids += self._q("SELECT pg_current_xact_id_if_assigned() IS NOT NULL").fetchone() == (
                        True,
                    )
        except errors.IntegrityError as exc:
            raise StoreConflictError(self._why(self.url, exc)) from exc
        except psycopg.Error as exc:
            error = self._store_error(exc)
            if error is None:
                raise
            raise error from exc
        if outer:
            self._own_commits += 1

    # -- schema -------------------------------------------------------------------------------

    @property
    def schema_version(self) -> int:
        """The newest migration this store has (0 for an empty database)."""
        exists = self._q("SELECT to_regclass('schema_version') IS NOT NULL").fetchone()
        if not exists or not exists[0]:
            return 0
        row = self._q("SELECT coalesce(max(version), 0) FROM schema_version").fetchone()
        return int(row[0]) if row else 0

    def migrate(self) -> None:
        """Run the missing migrations, each in one transaction; a store already current is only read."""
        current = self.schema_version
        if current > SCHEMA_VERSION:
            raise UsageError(
                f"{self.path}: store schema version {current} is newer than this qaeval ({SCHEMA_VERSION}); "
                "upgrade qaeval"
            )
        if current == SCHEMA_VERSION:
            return
        try:
            with self._write():
                self._lock(LOCK_MIGRATE)  # two processes opening a new store at once: one migrates
                self._q("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at TEXT)")
                for version in range(self.schema_version + 1, SCHEMA_VERSION + 1):
                    for statement in PG_MIGRATIONS[version - 1]:
                        self._q(statement)
                    self._q("INSERT INTO schema_version (version, applied_at) VALUES (%s, %s)", (version, utc_now()))
        except StoreRefusedError as exc:
            raise UsageError(
                f"{self.path}: the store's schema is at version {current}, and this login may not upgrade it "
                f"to {SCHEMA_VERSION} ({self._why(self.url, exc.__cause__ or exc)}); "
                "ask its owner to open it once with this qaeval"
            ) from None

    def table_names(self) -> list[str]:
        rows = self._q("SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename")
        return [name for (name,) in rows]

    def _data_version(self) -> int:
        """The server's current snapshot (`xmin:xmax:in-progress ids`), digested, with this connection's
        own transaction ids counted out of `xmax`: it changes whenever another writing transaction takes
        its id or ends, anywhere on the server (reads take no transaction id), and this connection's own
        commits move only `_own_commits` (each write transaction asks whether it took an id before it
        commits). An id it could not count (a rolled-back write, a savepoint's) moves it too, which only
        makes a caller read again."""
        row = self._q("SELECT pg_current_snapshot()::text").fetchone()
        _, xmax, running = str(row[0] if row else "0:0:").split(":")
        state = f"{int(xmax) - self._own_xids}:{running}"
        return int.from_bytes(hashlib.blake2b(state.encode(), digest_size=8).digest(), "big")
