"""The PostgreSQL backend: the domain modules' statements over the PostgreSQL driver (`connection`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from qaeval_tui.core.store.adjudications import AdjudicationTables
from qaeval_tui.core.store.exposures import ExposureTables
from qaeval_tui.core.store.flags import FlagTables
from qaeval_tui.core.store.judge_cache import JudgeCacheTables
from qaeval_tui.core.store.postgres.bulk import PgBulkTables
from qaeval_tui.core.store.postgres.curation import PgCurationTables
from qaeval_tui.core.store.rubrics import RubricTables

__all__ = ["PgStore"]


class PgStore(
    AdjudicationTables,
    ExposureTables,
    FlagTables,
    JudgeCacheTables,
    RubricTables,
    PgCurationTables,
    PgBulkTables,
):
    """One open PostgreSQL store. Use `PgStore.open(url)`; close with `close()` or a `with` block."""


if TYPE_CHECKING:  # mypy checks here that the PostgreSQL store offers the whole interface, typed alike
    from qaeval_tui.core.store.backend import StoreBackend

    _POSTGRES_IS_A_BACKEND: type[StoreBackend] = PgStore
