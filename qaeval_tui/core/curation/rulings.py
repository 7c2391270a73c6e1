"""A curator's ruling as the curator screens show it: the value, the reason, who ruled, and the
guideline section it cites, by its title (`core.guideline_sections`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from qaeval_tui.core.guideline_sections import section_label
from qaeval_tui.core.rubric import Rubric
from qaeval_tui.core.store.adjudications import RulingRow
from qaeval_tui.core.store.rows import ItemAxis

__all__ = ["RulingView", "ruling_views"]


@dataclass(frozen=True)
class RulingView:
    """The latest ruling on one (item, axis)."""

    axis: str
    score: int | None
    """None: the curator ruled "can't judge"."""
    reason: str
    adjudicator: str
    created_at: str
    cites: str | None
    """The cited section's id, or None."""
    cites_title: str | None
    """The cited section as it reads beside the ruling: `Partly supported answers (general guidelines)`."""

    @property
    def value_text(self) -> str:
        return "can't judge" if self.score is None else str(self.score)

    def text(self) -> str:
        """One line: `ruled 1 by dana: "the reason" · cites Partly supported answers (general guidelines)`."""
        cites = f" · cites {self.cites_title}" if self.cites_title else ""
        return f"ruled {self.value_text} by {self.adjudicator}: “{self.reason}”{cites}"


def ruling_views(rubric: Rubric, rows: Mapping[ItemAxis, RulingRow]) -> dict[ItemAxis, RulingView]:
    """Each stored ruling, its cited section named by the rubric's current guidelines."""
    return {
        key: RulingView(
            row.axis,
            row.score,
            row.reason,
            row.adjudicator,
            row.created_at,
            row.cites,
            None if row.cites is None else section_label(rubric, row.cites),
        )
        for key, row in rows.items()
    }
