"""Reject a production miss: why it does not become a golden case, and who decided."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from qaeval_tui.tui.literal import editable, plain


class RejectDialog(ModalScreen[tuple[str, str] | None]):
    """Returns (reason, curator), both non-empty, or None when cancelled."""

    BINDINGS = [Binding("escape", "cancel", "cancel")]  # noqa: RUF012 (Textual's own type)

    def __init__(self, trace_id: str, curator: str, *, blink: bool = True) -> None:
        super().__init__()
        self.trace_id = trace_id
        self.curator = curator
        self.blink = blink

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content.assemble("Reject ", plain(self.trace_id)), classes="title")
            yield Input(placeholder="why this miss does not become a golden case", id="reject-reason")
            yield Input(editable(self.curator), placeholder="your name", id="reject-curator")
            yield Static("", id="reject-problem")
            yield Static(
                "A rejection is recorded once and never changed.  enter reject · tab next field · escape cancel",
                classes="hint",
                markup=False,
            )

    def on_mount(self) -> None:
        for field in self.query(Input):
            field.cursor_blink = self.blink
        self.query_one("#reject-reason", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        reason = self.query_one("#reject-reason", Input).value.strip()
        curator = self.query_one("#reject-curator", Input).value.strip()
        problem = self.query_one("#reject-problem", Static)
        if not reason:
            problem.update("✗ a reason is required")
            self.query_one("#reject-reason", Input).focus()
        elif not curator:
            problem.update("✗ your name is required")
            self.query_one("#reject-curator", Input).focus()
        else:
            self.dismiss((reason, curator))

    def action_cancel(self) -> None:
        self.dismiss(None)
