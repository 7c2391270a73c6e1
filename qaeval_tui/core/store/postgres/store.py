"""The PostgreSQL backend: the domain modules' statements over the PostgreSQL driver (`connection`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from qaeval_tui.core.store.domains import DomainTables
from qaeval_tui.core.store.postgres.bulk import PgBulkTables

__all__ = ["PgStore"]


class PgStore(DomainTables, PgBulkTables):
    """One open PostgreSQL store. Use `PgStore.open(url)`; close with `close()` or a `with` block."""


if TYPE_CHECKING:  # mypy checks here that the PostgreSQL store offers the whole interface, typed alike
    from qaeval_tui.core.store.backend import StoreBackend

    _POSTGRES_IS_A_BACKEND: type[StoreBackend] = PgStore
