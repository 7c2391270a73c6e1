"""First screen when no reviewer name is known: who is labeling?"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Input, Static

from qaeval_tui.core.review.prepare import reviewer_name_problem
from qaeval_tui.tui.context import AppContext
from qaeval_tui.tui.literal import line, styled
from qaeval_tui.tui.screens.base import AppScreen
from qaeval_tui.tui.widgets.key_bar import KeyBar


class ReviewerScreen(AppScreen[str]):
    """Returns the reviewer name. Labels are stored under it, so it is checked before use."""

    def __init__(self, context: AppContext) -> None:
        super().__init__(context)
        self.known = context.services.config.review.reviewers
        self.blink = not context.deterministic

    def compose(self) -> ComposeResult:
        with Vertical(classes="page"):
            yield Static(Content.styled("Who is reviewing?", "bold $primary"))
            yield Static(
                "Your labels are stored under this name. Set it for good with --reviewer, QAEVAL_REVIEWER "
                "or review.reviewer in qaeval.toml.",
                markup=False,
            )
            if self.known:
                known = line(", ".join(self.known))  # from the config: shown literally
                yield Static(Content.assemble(("Configured reviewers: ", "$foreground-muted"), known))
            yield Input(placeholder="your name (letters, digits, . _ -)", id="reviewer")
            yield Static("", id="problem", markup=False)
        yield KeyBar()

    def on_mount(self) -> None:
        name = self.query_one("#reviewer", Input)
        name.cursor_blink = self.blink
        name.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        name = event.value.strip()
        problem = reviewer_name_problem(name)
        if problem:
            self.query_one("#problem", Static).update(styled(problem, "$error"))  # quotes what was typed
            return
        self.dismiss(name)
