"""Each store statement is written once: the two backends share every interface method.

A method of `StoreBackend` defined by both the SQLite and the PostgreSQL driver is a second body to
keep in step; the domain modules over the dialect seam (`core.store.seam`) and the seam itself hold
each one once, and what the databases do differently is a named hook of the seam that a driver fills.
"""

from __future__ import annotations

import inspect

from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.domains import DomainTables
from qaeval_tui.core.store.postgres.store import PgStore
from qaeval_tui.core.store.seam import Driver
from qaeval_tui.core.store.sqlite import Store


def _interface() -> set[str]:
    return {name for name, _ in inspect.getmembers(StoreBackend, inspect.isfunction) if not name.startswith("_")}


def _where(store: type, name: str) -> type:
    return next(klass for klass in store.__mro__ if name in vars(klass))


def test_every_interface_method_has_one_body_for_both_backends() -> None:
    twice = {name for name in _interface() if _where(Store, name) is not _where(PgStore, name)}
    assert twice == set()
    for name in _interface():
        assert issubclass(DomainTables, _where(Store, name)) or _where(Store, name) is Driver, name
