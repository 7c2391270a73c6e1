"""The backends the contract suite runs on: SQLite today; a PostgreSQL backend adds one entry here.

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
    opened: list[StoreBackend] = field(default_factory=list)

    def open(self) -> StoreBackend:
        store = self.connect()
        self.opened.append(store)
        return store


def _sqlite(tmp_path: Path) -> Backend:
    import sqlite3

    def execute_raw(store: StoreBackend, sql: str) -> object:
        assert isinstance(store, Store)
        return store.conn.execute(sql)

    return Backend("sqlite", lambda: Store.open(tmp_path / "contract.db"), execute_raw, sqlite3.IntegrityError)


BACKENDS: dict[str, Callable[[Path], Backend]] = {"sqlite": _sqlite}


@pytest.fixture(params=sorted(BACKENDS))
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    chosen = BACKENDS[request.param](tmp_path)
    yield chosen
    for store in chosen.opened:
        store.close()


@pytest.fixture
def store(backend: Backend) -> StoreBackend:
    return backend.open()
