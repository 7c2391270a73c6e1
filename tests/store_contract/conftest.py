"""The backends the contract suite runs on: SQLite and PostgreSQL (a throwaway server, `tests/pg/server.py`).

A backend entry opens connections to one fresh store (several connections to the same store, for
the tests of two writers) and runs a raw statement on one of them (to check that the database
itself, not only the store's API, refuses to rewrite history, and to write a row by hand).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.sqlite import Store


@dataclass
class Backend:
    """One backend under test: `open()` connects to this test's store (call it again for a second writer)."""

    name: str
    connect: Callable[[], StoreBackend]
    execute_raw: Callable[[StoreBackend, str], object]
    rewrite_refused: type[BaseException]
    # A database with typed columns refuses a value of the wrong type itself (SQLite stores it).
    bad_value_refused: tuple[type[BaseException], ...] = ()
    # SQLite's TEXT columns hold a blob written by hand; PostgreSQL's hold only text (a bytea is cast to its text).
    text_holds_blobs: bool = True
    opened: list[StoreBackend] = field(default_factory=list)

    def open(self) -> StoreBackend:
        store = self.connect()
        self.opened.append(store)
        return store


def _sqlite(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    import sqlite3

    def execute_raw(store: StoreBackend, sql: str) -> object:
        assert isinstance(store, Store)
        return store.conn.execute(sql)

    return Backend("sqlite", lambda: Store.open(tmp_path / "contract.db"), execute_raw, sqlite3.IntegrityError)


def _postgresql(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    import psycopg

    from qaeval_tui.core.store.postgres.store import PgStore

    url: str = request.getfixturevalue("pg_url")  # a fresh migrated database; starts the server once

    def execute_raw(store: StoreBackend, sql: str) -> object:
        assert isinstance(store, PgStore)
        return store.conn.execute(sql.encode())  # raw text: no placeholders, as a psql session would send it

    # Typed columns and CHECKs refuse a value of the wrong type or range outright.
    refused = (psycopg.errors.DataError, psycopg.errors.IntegrityError, psycopg.errors.DatatypeMismatch)
    return Backend(
        "postgresql",
        lambda: PgStore.open(url),
        execute_raw,
        psycopg.errors.RaiseException,
        bad_value_refused=refused,
        text_holds_blobs=False,
    )


BACKENDS: dict[str, Callable[[pytest.FixtureRequest, Path], Backend]] = {"sqlite": _sqlite, "postgresql": _postgresql}


@pytest.fixture(params=sorted(BACKENDS))
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    chosen = BACKENDS[request.param](request, tmp_path)
    yield chosen
    for store in chosen.opened:
        store.close()


@pytest.fixture
def store(backend: Backend) -> StoreBackend:
    return backend.open()
