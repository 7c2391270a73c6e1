"""The names the team store's security is written in: its two group roles and its tables."""

from __future__ import annotations

from qaeval_tui.core.store.tables import TABLES as TABLE_SPECS

REVIEWER_GROUP = "qaeval_reviewer"
CURATOR_GROUP = "qaeval_curator"
GROUPS = {"reviewer": REVIEWER_GROUP, "curator": CURATOR_GROUP}

TABLES = (*(spec.name for spec in TABLE_SPECS), "writer_locks")
"""Every table of the store (schema.STEPS): the tables a copy moves, and the writer locks; row security is
enabled on each."""
