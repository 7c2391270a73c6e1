"""The names the team store's security is written in: its two group roles and its tables."""

from __future__ import annotations

REVIEWER_GROUP = "qaeval_reviewer"
CURATOR_GROUP = "qaeval_curator"
GROUPS = {"reviewer": REVIEWER_GROUP, "curator": CURATOR_GROUP}

TABLES = (
    "cases",
    "runs",
    "run_outputs",
    "judge_verdicts",
    "review_items",
    "assignments",
    "labels",
    "reveals",
    "adjudications",
    "inbox",
    "inbox_decisions",
    "exposures",
    "flag_resolutions",
    "gold_shown",
    "judge_cache",
    "label_quarantine",
    "rubrics",
    "writer_locks",
    "run_ends",
)
"""Every table of the store (schema.STEPS); row security is enabled on each."""
