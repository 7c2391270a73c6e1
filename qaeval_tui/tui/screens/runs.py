"""The stored runs: one line each (system, judge, suite, when, headline metrics), and each gated
metric's history over the runs comparable with the newest, drawn with its drift band.

Enter opens a run's case table; m marks a run as A and d compares the selected run (B) with it
(no mark: with the run before it). Everything shown is the core's (`core.runs`, `core.statistics.figures`).
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from qaeval_tui.core.runs.views import HEADLINE_METRICS, SHORT_NAMES, RunSummary
from qaeval_tui.core.statistics.figures import BandedSeries
from qaeval_tui.tui.commands import bindings
from qaeval_tui.tui.context import AppContext
from qaeval_tui.tui.literal import cell, line
from qaeval_tui.tui.screens.base import AppScreen
from qaeval_tui.tui.widgets.charts import history_block
from qaeval_tui.tui.widgets.key_bar import KeyBar
from qaeval_tui.tui.widgets.pick_table import PickTable

MUTED = "$foreground-muted"


@dataclass
class RunsLoaded(Message):
    runs: list[RunSummary]
    histories: tuple[BandedSeries, ...]


def _value(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


class RunsScreen(AppScreen[None]):
    SCOPE = "runs"
    BINDINGS = bindings("runs")

    def __init__(self, context: AppContext) -> None:
        super().__init__(context)
        self.runs: list[RunSummary] | None = None
        self.marked: str | None = None

    def compose(self) -> ComposeResult:
        yield Static(Content.styled("Stored runs · loading…", "bold"), id="runs-title")
        yield PickTable(id="runs-list")
        with VerticalScroll(id="runs-history-box"):
            yield Static("", id="runs-history")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one(PickTable).focus()
        services = self.context.services
        self.call("loading…", lambda: RunsLoaded(*services.runs()), "Not loaded")

    def on_runs_loaded(self, message: RunsLoaded) -> None:
        self.settle()
        self.runs = message.runs
        self._fill()
        gated = Content.assemble(
            ("Gated metrics over the runs comparable with the newest", "bold $primary"),
            ("  (same suite and judge; the band is `qaeval drift`'s for the newest run)", MUTED),
        )
        self.query_one("#runs-history", Static).update(gated + Content("\n") + history_block(message.histories))

    def _fill(self) -> None:
        runs = self.runs or []
        table = self.query_one(PickTable)
        keep = table.cursor_row
        table.clear(columns=True)
        for title, width in (("", 1), ("run", 28), ("system", 13), ("judge", 10), ("suite", 6), ("finished", 11)):
            table.add_column(title, width=width)
        for name in HEADLINE_METRICS:
            table.add_column(SHORT_NAMES[name][:5], width=5)
        for run in runs:
            table.add_row(
                cell("A" if run.run_id == self.marked else "", "bold $accent"),
                cell(run.run_id), cell(run.adapter), cell(run.judge), cell(run.suite_hash[:6]),
                cell(run.finished_at[5:16].replace("T", " ")),
                *(cell(_value(run.metrics[name])) for name in HEADLINE_METRICS),
            )  # fmt: skip
        if runs:
            table.move_cursor(row=min(keep, len(runs) - 1), animate=False)
        marked = f" · A = {self.marked}" if self.marked else ""
        self.query_one("#runs-title", Static).update(
            Content.assemble(
                ("Stored runs  ", "bold"),
                line(f"{len(runs)} run(s), newest first{marked}"),
                ("  · enter opens a run · m marks A · d compares the selected run with A", MUTED),
            )
        )

    def selected(self) -> RunSummary | None:
        row = self.query_one(PickTable).cursor_row
        return self.runs[row] if self.runs and 0 <= row < len(self.runs) else None

    def on_data_table_row_selected(self, event: PickTable.RowSelected) -> None:
        event.stop()
        self.action_open_run()

    def action_open_run(self) -> None:
        run = self.selected()
        if run is None:
            self.notify("No run stored yet: `qaeval run` stores one.", severity="warning")
            return
        self.navigate("run", run.run_id)

    def action_mark_run(self) -> None:
        run = self.selected()
        if run is not None:
            self.marked = None if self.marked == run.run_id else run.run_id
            self._fill()

    def action_compare_runs(self) -> None:
        run, runs = self.selected(), self.runs or []
        if run is None:
            return
        base = self.marked
        if base is None:
            older = runs.index(run) + 1
            if older >= len(runs):
                self.notify("No earlier run to compare with: mark one as A (m).", severity="warning")
                return
            base = runs[older].run_id
        if base == run.run_id:
            self.notify("That is run A itself: select another run.", severity="warning")
            return
        self.navigate("run_diff", base, run.run_id)

    def action_back(self) -> None:
        self.dismiss(None)
