"""End of the queue: what this session did, and what to do next."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from qaeval_tui.core.review.session import BlindItemView, SessionSummary
from qaeval_tui.tui.commands import bindings
from qaeval_tui.tui.context import AppContext
from qaeval_tui.tui.messages import CallFailed, ItemArrived
from qaeval_tui.tui.screens.base import AppScreen
from qaeval_tui.tui.widgets.key_bar import KeyBar
from qaeval_tui.tui.widgets.status_line import clock_text

NEXT_STEPS = (
    ("qaeval agreement", "inter-rater agreement per axis, from every reviewer's labels"),
    ("qaeval calibrate", "judge vs human per axis: can the judge be trusted?"),
    ("qaeval labels export", "write labels/<reviewer>.jsonl to share or commit"),
)


def summary_content(summary: SessionSummary) -> Content:
    lines = [
        Content.styled("Your queue is done.", "bold $success"),
        Content(""),
        Content.assemble(("Labeled this session  ", "$foreground-muted"), (str(summary.labeled), "bold")),
        Content.assemble(("Flagged               ", "$foreground-muted"), (str(summary.flagged), "bold")),
        Content.assemble(("Skipped               ", "$foreground-muted"), (str(summary.skipped), "bold")),
        Content.assemble(("Time spent            ", "$foreground-muted"), (clock_text(summary.seconds_spent), "bold")),
        Content.assemble(("Left in your queue    ", "$foreground-muted"), (str(summary.remaining), "bold")),
        Content(""),
        Content.styled("What next", "bold $primary"),
        Content("Every label is saved. Press u to reopen the last one, escape for home, ctrl+q to quit."),
        Content("From a shell:"),
    ]
    lines.extend(Content.assemble((f"  {command:<22}", "bold $accent"), text) for command, text in NEXT_STEPS)
    return Content("\n").join(lines)


class SummaryScreen(AppScreen[BlindItemView | None]):
    """Dismissed with the item reopened by undo (to review it again), or None for home."""

    SCOPE = "summary"
    BINDINGS = bindings("summary")

    def __init__(self, context: AppContext, summary: SessionSummary) -> None:
        super().__init__(context)
        self.summary = summary

    def compose(self) -> ComposeResult:
        with Vertical(id="summary", classes="page"):
            yield Static(summary_content(self.summary))
        yield KeyBar()

    def action_undo_last(self) -> None:
        if self.defer("undo_last"):
            return
        services = self.context.services

        def work() -> Message:
            item = services.undo()
            if item is None:
                return CallFailed("You have not submitted a label yet.", "Nothing to undo")
            return ItemArrived(item, services.progress())

        self.call("reopening…", work, "Not reopened")

    def on_item_arrived(self, message: ItemArrived) -> None:
        self.settle()
        if message.item is not None:
            self.dismiss(message.item)

    def action_home(self) -> None:
        self.dismiss(None)
