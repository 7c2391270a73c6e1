"""Shown while the store is prepared (a fresh store runs the system and judge first)."""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from qaeval_tui.core.review.roster import roles_of
from qaeval_tui.core.usecases.prepare import PrepareReport
from qaeval_tui.tui.context import AppContext
from qaeval_tui.tui.literal import line, plain
from qaeval_tui.tui.messages import Prepared, PrepareStep
from qaeval_tui.tui.screens.base import AppScreen
from qaeval_tui.tui.widgets.key_bar import KeyBar


@dataclass(frozen=True)
class PrepareOutcome:
    """What the preparing screen returns: a report, or the error that stopped it."""

    report: PrepareReport | None
    error: Exception | None


class PreparingScreen(AppScreen[PrepareOutcome]):
    def __init__(self, context: AppContext) -> None:
        super().__init__(context)
        self.steps: list[str] = []
        self.error: Exception | None = None
        """What stopped preparation, set by the worker before it re-raises it."""

    def compose(self) -> ComposeResult:
        with Vertical(classes="page"):
            yield Static(line(f"Preparing the review for {self.context.reviewer}").stylize("bold $primary"))
            yield Static(Content.styled("Opening the store…", "$foreground-muted"), id="steps")
        yield KeyBar()

    def on_mount(self) -> None:
        services, reviewer = self.context.services, self.context.reviewer
        # A curator gets a review queue only when the roster makes them a reviewer too.
        enrol = self.context.role == "reviewer" or (
            bool(services.config.review.roster) and "reviewer" in roles_of(services.config, reviewer)
        )

        def work() -> None:
            try:
                report = services.prepare(reviewer, lambda text: self.post_message(PrepareStep(text)), enrol=enrol)
            except Exception as exc:
                self.error = exc  # kept for the CLI's report after exit; the app's handler shows it too
                raise
            self.post_message(Prepared(report))

        self.run_core(work, group="prepare", title="Not prepared")

    def on_prepare_step(self, message: PrepareStep) -> None:
        self.steps.append(message.text)
        self.query_one("#steps", Static).update(Content("\n").join(plain(step) for step in self.steps))

    def on_prepared(self, message: Prepared) -> None:
        self.dismiss(PrepareOutcome(message.report, None))

    def worker_failed(self, group: str, text: str) -> None:
        """Preparation failed (the app has shown why): hand the error to the app, which exits with it."""
        if self.is_attached and self.app.is_running:  # not when the app is already quitting
            self.dismiss(PrepareOutcome(None, self.error))
