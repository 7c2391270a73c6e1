"""The note dialog: one line of free text on the item; enter keeps it, escape drops the edit."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from qaeval_tui.tui.literal import editable


class NoteDialog(ModalScreen[str | None]):
    """Returns the edited note, or None when cancelled."""

    BINDINGS = [Binding("escape", "cancel", "cancel")]  # noqa: RUF012 (Textual's own type)

    def __init__(self, note: str, *, blink: bool = True) -> None:
        super().__init__()
        self.note = note
        self.blink = blink

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("Note on this item", classes="dialog-title", markup=False)
            yield Input(editable(self.note), placeholder="What should a curator know about this item?", id="note")
            yield Static("enter keep · escape cancel", classes="dialog-hint", markup=False)

    def on_mount(self) -> None:
        note = self.query_one("#note", Input)
        note.cursor_blink = self.blink
        note.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        # The field shows hidden characters escaped; a note kept as shown is the note as it was.
        self.dismiss(self.note if event.value == editable(self.note) else event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)
