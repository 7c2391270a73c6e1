"""Each store statement is written once: the two drivers share every interface method but their own few.

A method of `StoreBackend` defined by both the SQLite and the PostgreSQL driver is a second body to
keep in step; the domain modules over the dialect seam (`core.store.seam`) hold the rest once.
"""

from __future__ import annotations

import inspect

from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.domains import DomainTables
from qaeval_tui.core.store.postgres.store import PgStore
from qaeval_tui.core.store.seam import Driver
from qaeval_tui.core.store.sqlite import Store

DRIVERS_OWN = {"close", "change_token", "exclusive", "table_rows", "insert_table_rows"}
"""What each database does its own way: closing its connection, noticing another's commit, one process
at a time across transactions (a lock file, an advisory lock), and whole-table copies (COPY and
identity sequences on PostgreSQL)."""


def _interface() -> set[str]:
    return {name for name, _ in inspect.getmembers(StoreBackend, inspect.isfunction) if not name.startswith("_")}


def _where(store: type, name: str) -> type:
    return next(klass for klass in store.__mro__ if name in vars(klass))


def test_every_interface_method_but_the_drivers_own_has_one_body_for_both_backends() -> None:
    twice = {name for name in _interface() if _where(Store, name) is not _where(PgStore, name)}
    assert twice == DRIVERS_OWN
    for name in _interface() - DRIVERS_OWN:
        assert issubclass(DomainTables, _where(Store, name)) or _where(Store, name) is Driver, name
