"""Every domain's statements, written once over the dialect seam: what both backends' store classes add
to their driver (`sqlite.Store`, `postgres.store.PgStore`). A new table's module is one more base here."""

from __future__ import annotations

from qaeval_tui.core.store.adjudications import AdjudicationTables
from qaeval_tui.core.store.exposures import ExposureTables
from qaeval_tui.core.store.flags import FlagTables
from qaeval_tui.core.store.inbox import InboxTables
from qaeval_tui.core.store.judge_cache import JudgeCacheTables
from qaeval_tui.core.store.labels import LabelTables
from qaeval_tui.core.store.review import ReviewTables
from qaeval_tui.core.store.rubrics import RubricTables
from qaeval_tui.core.store.runs import RunTables


class DomainTables(
    AdjudicationTables,
    ExposureTables,
    FlagTables,
    JudgeCacheTables,
    RubricTables,
    InboxTables,
    ReviewTables,
    LabelTables,
    RunTables,
):
    """The reads and writes of every table (but whole-table copies, which each driver does its own way)."""
