"""The label being made on screen: view state only, nothing is decided or saved here.

Whether the label is valid, and what happens to it, is the core's call on submit.
"""

from __future__ import annotations

from collections.abc import Callable
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
    locked: frozenset[str] = frozenset()
    """Blind axes that may not change: the gold answer was shown for this item (the core enforces it)."""
    saved: tuple[tuple[tuple[str, int | None], ...], str, bool] = ((), "", False)
    """Scores, note and flag as loaded (the item's last revision, or nothing): leaving anything else asks."""

    @classmethod
    def for_item(cls, item: BlindItemView) -> LabelDraft:
        """A fresh draft, or the reviewer's own previous revision when the item was reopened, with the
        blind scores the core locked (the gold answer was shown) given and locked; focus on the first
        axis left to score."""
        known = {axis.name for axis in item.axes}
        scores = {name: value for name, value in item.previous_scores.items() if name in known}
        draft = cls(item.axes, scores, item.previous_note, item.previous_flagged)
        draft.lock({name: value for name, value in item.gold_lock.items() if name in known})
        open_axes = [i for i, axis in enumerate(item.axes) if axis.name not in draft.scores] or [
            i for i, axis in enumerate(item.axes) if axis.name not in draft.locked
        ]
        draft.focus = open_axes[0] if open_axes else 0
        draft.saved = draft._state()
        return draft

    def _state(self) -> tuple[tuple[tuple[str, int | None], ...], str, bool]:
        return tuple(sorted(self.scores.items())), self.note, self.flagged

    @property
    def unsaved(self) -> bool:
        """Scores, a note or a flag given on screen and not submitted."""
        return self._state() != self.saved

    def unsaved_summary(self) -> str:
        """What leaving now would drop, in words."""
        scored = sum(1 for axis in self.axes if axis.name in self.scores)
        parts = [f"{scored} of {len(self.axes)} axes scored"]
        _, note, flagged = self.saved
        if self.note != note:
            parts.append("a note")
        if self.flagged != flagged:
            parts.append("a flag" if self.flagged else "a flag removed")
        return f"This item has {', '.join(parts)}, not submitted."

    def lock(self, scores: dict[str, int | None]) -> None:
        """Take the blind scores the core locked for this item: they are the scores, and may not change."""
        self.scores.update(scores)
        self.locked = frozenset(scores)
        for axis in self.axes:
            value = self.scores.get(axis.name)
            self.cursors[axis.name] = axis.scale.index(value) if value in axis.scale else self.cursors.get(axis.name, 0)

    @property
    def missing(self) -> tuple[AxisView, ...]:
        """Axes with no value yet (can't judge is a value)."""
        return tuple(axis for axis in self.axes if axis.name not in self.scores)

    def missing_message(self) -> str:
        """What is left to score, in words, with the keys that score it ("" when nothing is)."""
        missing = self.missing
        if not missing:
            return ""
        names = [axis.name.replace("_", " ") for axis in missing]
        scale = missing[0].scale
        listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        verb = "is" if len(names) == 1 else "are"
        return f"{listed} {verb} not scored: press {scale[0]}–{scale[-1]}, or x for can't judge"

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


class ItemTimer:
    """Time on the item on screen: paused while another screen is on top, idle gaps capped.

    A gap between two keys longer than `idle_cutoff` seconds counts as `idle_cutoff`: the reviewer
    went for coffee, and a label's `seconds_spent` should not say the item took twenty minutes.
    """

    def __init__(self, clock: Callable[[], float], idle_cutoff: float) -> None:
        self._clock, self._cutoff = clock, idle_cutoff
        self._total, self._last, self._running = 0.0, clock(), True

    def start(self) -> None:
        self._total, self._last, self._running = 0.0, self._clock(), True

    def _gap(self, now: float) -> float:
        return min(max(0.0, now - self._last), self._cutoff) if self._running else 0.0

    def touch(self) -> None:
        now = self._clock()
        self._total += self._gap(now)
        self._last = now

    def pause(self) -> None:
        self.touch()
        self._running = False

    def resume(self) -> None:
        self._last, self._running = self._clock(), True

    def seconds(self) -> float:
        return self._total + self._gap(self._clock())
