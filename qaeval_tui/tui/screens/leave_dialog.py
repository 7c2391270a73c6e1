"""Leaving an item with unsaved scores asks once: the key that left, pressed again, leaves.

Opened by the review screen's escape and by the app's quit when the item on screen has scores,
a note or a flag not yet submitted. Nothing is written either way: a partly scored item is never
stored as a label.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static


class LeaveDialog(ModalScreen[bool]):
    """True: leave without saving. False: stay on the item.

    `by_escape`: escape opened it, so escape again leaves (and `n` stays); opened by quit, escape
    stays and quit again leaves (the app's quit sees this dialog and does not ask twice)."""

    BINDINGS = [  # noqa: RUF012 (Textual's own type)
        Binding("enter,y", "leave", "leave"),
        Binding("n", "stay", "stay"),
        Binding("escape", "escape", "escape"),
    ]

    def __init__(self, going: str, unsaved: str, *, by_escape: bool, quit_key: str) -> None:
        super().__init__()
        self.going = going
        self.unsaved = unsaved
        self.by_escape = by_escape
        self.quit_key = quit_key

    def compose(self) -> ComposeResult:
        hint = (
            "escape or enter leave · n stay" if self.by_escape else f"{self.quit_key} or enter leave · escape or n stay"
        )
        with Vertical(classes="dialog"):
            yield Static(f"{self.going} without saving this item?", classes="dialog-title", markup=False)
            yield Static(f"{self.unsaved} Leaving drops it: no label is written.", markup=False)
            yield Static(hint, classes="dialog-hint", markup=False)

    def action_leave(self) -> None:
        self.dismiss(True)

    def action_stay(self) -> None:
        self.dismiss(False)

    def action_escape(self) -> None:
        self.dismiss(self.by_escape)
