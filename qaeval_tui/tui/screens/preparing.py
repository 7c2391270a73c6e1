"""Shown while the store is prepared (a fresh store runs the system and judge first)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from qaeval_tui.tui.context import AppContext
from qaeval_tui.tui.literal import line, plain
from qaeval_tui.tui.screens.base import AppScreen
from qaeval_tui.tui.widgets.key_bar import KeyBar


class PreparingScreen(AppScreen[None]):
    """What preparing the store has done so far; the app runs the preparation (app.py) and shows this
    screen only once it takes a while, then closes it."""

    def __init__(self, context: AppContext, steps: list[str]) -> None:
        super().__init__(context)
        self.steps = steps
        """The app's list of steps, appended to as they come."""

    def compose(self) -> ComposeResult:
        with Vertical(classes="page"):
            yield Static(line(f"Preparing the review for {self.context.reviewer}").stylize("bold $primary"))
            yield Static(Content.styled("Opening the store…", "$foreground-muted"), id="steps")
        yield KeyBar()

    def on_mount(self) -> None:
        if self.steps:
            self.show_steps()

    def show_steps(self) -> None:
        self.query_one("#steps", Static).update(Content("\n").join(plain(step) for step in self.steps))
