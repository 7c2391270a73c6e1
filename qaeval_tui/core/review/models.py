"""The model of blind review: one revision of a reviewer's label (DESIGN §3.5, §8.2)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from qaeval_tui.core.limits import MAX_REVISION


class Label(BaseModel):
    """One revision of one reviewer's label on one item (DESIGN §3.5, §8.2)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    item_id: str = Field(min_length=1)
    case_id: str
    reviewer: str = Field(min_length=1)
    scores: dict[str, int | None]
    note: str = ""
    flagged: bool = False
    skipped: bool = False
    rubric_version: str
    revealed: bool = False
    revision: int = Field(ge=1, le=MAX_REVISION)
    created_at: str
    seconds_spent: float = Field(default=0.0, ge=0, allow_inf_nan=False)
