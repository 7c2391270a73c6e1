"""The model of blind review: one revision of a reviewer's label (DESIGN §3.5, §8.2), and the rule a
reviewer's name meets (typed at the door, configured, or the name of a label file)."""

from __future__ import annotations

import re
from collections.abc import Collection

from pydantic import BaseModel, ConfigDict, Field

from qaeval_tui.core.limits import MAX_AXES, MAX_NAME_CHARS, MAX_NOTE_CHARS, MAX_REVISION
from qaeval_tui.core.models.golden import CASE_ID_PATTERN, LIVING_SPLIT

VERDICTS_FILENAME = "judge-verdicts.jsonl"
SPLIT_NAMES = ("frozen", LIVING_SPLIT)
_DEVICE_NAME = re.compile(r"^(con|prn|aux|nul|com[0-9]|lpt[0-9])$", re.IGNORECASE)


class Label(BaseModel):
    """One revision of one reviewer's label on one item (DESIGN §3.5, §8.2)."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    item_id: str = Field(min_length=1, max_length=MAX_NAME_CHARS)
    case_id: str = Field(max_length=MAX_NAME_CHARS)
    reviewer: str = Field(min_length=1)
    scores: dict[str, int | None] = Field(max_length=MAX_AXES)
    note: str = Field(default="", max_length=MAX_NOTE_CHARS)
    flagged: bool = False
    skipped: bool = False
    rubric_version: str = Field(max_length=MAX_NAME_CHARS)
    revealed: bool = False
    revision: int = Field(ge=1, le=MAX_REVISION)
    created_at: str
    seconds_spent: float = Field(default=0.0, ge=0, allow_inf_nan=False)


def reviewer_file_problem(name: str, splits: Collection[str] = SPLIT_NAMES) -> str | None:
    """Why `<name>.jsonl` cannot be a reviewer's label file, or None. `splits`: golden split names, lower case."""
    if not name:
        return "an empty name cannot be a file name"
    if not CASE_ID_PATTERN.match(name):
        return "a file name takes letters, digits, '.', '_' and '-' only (no '/', spaces or control characters)"
    if name.startswith("."):
        return f"{name}.jsonl would be a hidden file"
    folded = name.casefold()
    if f"{folded}.jsonl" == VERDICTS_FILENAME:
        return f"{name}.jsonl is the name of the judge-verdict export"
    if folded in splits:
        return f"{name}.jsonl would be taken for the golden split {folded!r}"
    if _DEVICE_NAME.match(name):
        return f"{name} is a device name on Windows, not a file"
    return None


def reviewer_name_problem(name: str) -> str | None:
    """Why `name` cannot be a reviewer name (typed at the door, configured or given), or None when it can."""
    if not name.strip():
        return "a reviewer name is required"
    if not CASE_ID_PATTERN.match(name):
        return "use letters, digits, '.', '_' and '-' only"
    # Refused at the door, not only at export: a reviewer named `frozen` could label for a week
    # and then find that their labels can never be exported (their file would pass for a split).
    problem = reviewer_file_problem(name)
    return None if problem is None else f"{problem}; choose another name"
