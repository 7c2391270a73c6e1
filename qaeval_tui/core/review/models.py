"""The model of blind review: one revision of a reviewer's label (DESIGN §3.5, §8.2)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from qaeval_tui.core.limits import MAX_AXES, MAX_NAME_CHARS, MAX_NOTE_CHARS, MAX_REVISION


class Label(BaseModel):
    """One revision of one reviewer's label on one item (DESIGN §3.5, §8.2)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

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
