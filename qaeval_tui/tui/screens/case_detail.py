"""One golden case with every field and its sources. Read-only, but opening it records the viewer's exposure."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from qaeval_tui.core.models.golden import LoadedCase
from qaeval_tui.tui.commands import bindings
from qaeval_tui.tui.context import AppContext
from qaeval_tui.tui.screens.base import AppScreen
from qaeval_tui.tui.widgets.case_view import case_content
from qaeval_tui.tui.widgets.key_bar import KeyBar


class CaseDetailScreen(AppScreen[None]):
    SCOPE = "case"
    BINDINGS = bindings("case")

    def __init__(self, context: AppContext, loaded: LoadedCase) -> None:
        super().__init__(context)
        self.loaded = loaded

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="case-body"):
            yield Static(case_content(self.loaded), id="case")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#case-body", VerticalScroll).focus()
        services, case_id, viewer = self.context.services, self.loaded.case.id, self.context.reviewer
        if viewer:  # the gold of a case whose item the viewer still labels: their later label is not blind
            self.run_core(lambda: services.record_case_view(case_id, viewer), group="exposure", title="Not recorded")

    def action_back(self) -> None:
        self.dismiss(None)
