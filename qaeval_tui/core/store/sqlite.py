"""The SQLite backend: one class over one connection, assembled from the domain modules.

Every SQL statement of the project lives in this package. Runs, verdicts, labels, adjudications
and inbox decisions are append-only: triggers refuse UPDATE and DELETE, so a changed mind is a new
revision and history is never erased.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from qaeval_tui.core.store.adjudications import AdjudicationTables
from qaeval_tui.core.store.bulk import BulkTables
from qaeval_tui.core.store.codec import utc_now
from qaeval_tui.core.store.connection import BUSY_TIMEOUT_MS
from qaeval_tui.core.store.exposures import ExposureTables
from qaeval_tui.core.store.flags import FlagTables
from qaeval_tui.core.store.inbox import InboxTables
from qaeval_tui.core.store.judge_cache import JudgeCacheTables
from qaeval_tui.core.store.labels import LabelTables
from qaeval_tui.core.store.review import ReviewTables
from qaeval_tui.core.store.rows import OutOfRangeError, StoredLabel, StoredVerdict
from qaeval_tui.core.store.rubrics import RubricTables
from qaeval_tui.core.store.runs import RunTables
from qaeval_tui.core.store.schema import APPEND_ONLY, SCHEMA_VERSION

__all__ = [
    "APPEND_ONLY",
    "BUSY_TIMEOUT_MS",
    "SCHEMA_VERSION",
    "OutOfRangeError",
    "Store",
    "StoredLabel",
    "StoredVerdict",
    "utc_now",
]


class Store(
    RunTables,
    ReviewTables,
    LabelTables,
    InboxTables,
    AdjudicationTables,
    ExposureTables,
    FlagTables,
    BulkTables,
    JudgeCacheTables,
    RubricTables,
):
    """One open SQLite database. Use `Store.open(path)`; close with `close()` or a `with` block."""


if TYPE_CHECKING:  # mypy checks here that the SQLite store offers the whole interface, typed alike
    from qaeval_tui.core.store.backend import StoreBackend

    _SQLITE_IS_A_BACKEND: type[StoreBackend] = Store
