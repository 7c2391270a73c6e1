"""The PostgreSQL backend: one class over one psycopg connection, assembled from the domain modules."""

from __future__ import annotations

from typing import TYPE_CHECKING

from qaeval_tui.core.store.postgres.bulk import PgBulkTables
from qaeval_tui.core.store.postgres.curation import PgCurationTables
from qaeval_tui.core.store.postgres.judge_cache import PgJudgeCacheTables
from qaeval_tui.core.store.postgres.rubrics import PgRubricTables

__all__ = ["PgStore"]


class PgStore(PgCurationTables, PgBulkTables, PgJudgeCacheTables, PgRubricTables):
    """One open PostgreSQL store. Use `PgStore.open(url)`; close with `close()` or a `with` block."""


if TYPE_CHECKING:  # mypy checks here that the PostgreSQL store offers the whole interface, typed alike
    from qaeval_tui.core.store.backend import StoreBackend

    _POSTGRES_IS_A_BACKEND: type[StoreBackend] = PgStore
