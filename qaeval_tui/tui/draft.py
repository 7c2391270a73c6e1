"""The label being made on screen: view state only, nothing is decided or saved here.

Whether the label is valid, and what happens to it, is the core's call on submit.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from qaeval_tui.core.review.session import AxisView, BlindItemView

UNSCORED = object()
"""Marker for an axis with no value yet (None already means "can't judge")."""


@dataclass
class LabelDraft:
    """Scores, focus and cursor of the item on screen."""

    axes: tuple[AxisView, ...]
    scores: dict[str, int | None] = field(default_factory=dict)
    note: str = ""
    flagged: bool = False
    focus: int = 0
    cursors: dict[str, int] = field(default_factory=dict)

    @classmethod
    def for_item(cls, item: BlindItemView) -> LabelDraft:
        """A fresh draft, or the reviewer's own previous revision when the item was reopened."""
        known = {axis.name for axis in item.axes}
        scores = {name: value for name, value in item.previous_scores.items() if name in known}
        draft = cls(item.axes, scores, item.previous_note, item.previous_flagged)
        for axis in item.axes:
            value = scores.get(axis.name)
            draft.cursors[axis.name] = axis.scale.index(value) if value in axis.scale else 0
        return draft

    @property
    def axis(self) -> AxisView:
        return self.axes[self.focus]

    @property
    def cursor_value(self) -> int:
        return self.axis.scale[self.cursors.get(self.axis.name, 0)]

    def value_of(self, name: str) -> object:
        return self.scores.get(name, UNSCORED)

    def move_focus(self, step: int) -> None:
        self.focus = (self.focus + step) % len(self.axes)

    def move_cursor(self, step: int) -> None:
        scale = self.axis.scale
        self.cursors[self.axis.name] = max(0, min(len(scale) - 1, self.cursors.get(self.axis.name, 0) + step))

    def score(self, value: int | None) -> None:
        """Set the focused axis (None: can't judge) and move to the next axis, if any."""
        axis = self.axis
        self.scores[axis.name] = value
        if value is not None:
            self.cursors[axis.name] = axis.scale.index(value)
        if self.focus < len(self.axes) - 1:
            self.focus += 1

    def on_scale(self, value: int) -> bool:
        return value in self.axis.scale
