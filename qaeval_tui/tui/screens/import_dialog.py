"""Ask which production-miss file to import; enter imports, escape cancels."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from qaeval_tui.tui.literal import editable


class ImportDialog(ModalScreen[str | None]):
    """Returns the path as typed (stripped), or None when cancelled."""

    BINDINGS = [Binding("escape", "cancel", "cancel")]  # noqa: RUF012 (Textual's own type)

    def __init__(self, default_path: str, *, blink: bool = True) -> None:
        super().__init__()
        self.default_path = default_path
        self.blink = blink

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Import production misses", classes="title", markup=False)
            yield Input(editable(self.default_path), placeholder="path to a JSONL file of production misses", id="path")
            yield Static(
                "Every line is checked first: one bad line imports nothing. Lines already in the inbox "
                "are left as they are.  enter import · escape cancel",
                classes="hint",
                markup=False,
            )

    def on_mount(self) -> None:
        field = self.query_one("#path", Input)
        field.cursor_blink = self.blink
        field.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        path = event.value.strip()
        if path == editable(self.default_path).strip():  # shown with hidden characters escaped; kept as it was
            path = self.default_path
        if path:
            self.dismiss(path)
        else:
            self.notify("Type the path of the file to import.", severity="warning")

    def action_cancel(self) -> None:
        self.dismiss(None)
