"""One run as a case × check/metric table: pass/fail, the checks that failed, the headline metrics,
the judge's scores and verdict outcome; filtered by slice, failing cases or judge errors.

The run loads once in a worker (`core.runs.views.run_table`); a filter is the core's `CaseFilter`.
Enter opens a case.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from textual.app import ComposeResult
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from qaeval_tui.core.runs.views import (
    HEADLINE_METRICS,
    SHORT_NAMES,
    SLICE_KINDS,
    CaseFilter,
    CaseRow,
    RunTable,
    status_counts,
)
from qaeval_tui.tui.commands import bindings
from qaeval_tui.tui.context import AppContext
from qaeval_tui.tui.literal import cell, line, plain
from qaeval_tui.tui.screens.base import AppScreen
from qaeval_tui.tui.widgets.key_bar import KeyBar
from qaeval_tui.tui.widgets.pick_table import PickTable

MUTED = "$foreground-muted"
STATUS_STYLES = {"pass": "$success", "fail": "bold $error", "judge error": "bold $warning"}


@dataclass
class RunTableLoaded(Message):
    table: RunTable


def _value(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


class RunTableScreen(AppScreen[None]):
    SCOPE = "run"
    BINDINGS = bindings("run")

    def __init__(self, context: AppContext, run_id: str) -> None:
        super().__init__(context)
        self.run_id = run_id
        self.table: RunTable | None = None
        self.criteria = CaseFilter()
        self.shown: list[CaseRow] = []

    def compose(self) -> ComposeResult:
        yield Static(line(f"Run {self.run_id} · loading…").stylize("bold"), id="run-title")
        yield PickTable(id="run-cases")
        yield Static("", id="run-preview")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one(PickTable).focus()
        services, run_id = self.context.services, self.run_id
        self.call("loading…", lambda: RunTableLoaded(services.run_table(run_id, CaseFilter())), "Not loaded")

    def on_run_table_loaded(self, message: RunTableLoaded) -> None:
        self.settle()
        self.table = message.table
        self._apply()

    # -- filters ----------------------------------------------------------------------------------

    def _slices(self) -> list[tuple[str, str] | None]:
        values = self.table.slice_values if self.table else {}
        return [None, *((kind, value) for kind in SLICE_KINDS for value in values.get(kind, ()))]

    def action_cycle_slice(self) -> None:
        options = self._slices()
        current = options.index(self.criteria.slice) if self.criteria.slice in options else 0
        self.criteria = replace(self.criteria, slice=options[(current + 1) % len(options)])
        self._apply()

    def action_toggle_failing(self) -> None:
        self.criteria = replace(self.criteria, failing=not self.criteria.failing)
        self._apply()

    def action_toggle_judge_errors(self) -> None:
        self.criteria = replace(self.criteria, judge_errors=not self.criteria.judge_errors)
        self._apply()

    def action_clear_filters(self) -> None:
        self.criteria = CaseFilter()
        self._apply()

    # -- showing ----------------------------------------------------------------------------------

    def _apply(self) -> None:
        if self.table is None:
            return
        self.shown = [row for row in self.table.rows if self.criteria.keeps(row)]
        table = self.query_one(PickTable)
        table.clear(columns=True)
        axes = self.table.axes
        columns = [("case", 28), ("difficulty", 10), ("status", 11), ("failed", 22)]
        columns += [(SHORT_NAMES[name], 7) for name in HEADLINE_METRICS]
        columns += [(axis[:5], 5) for axis in axes] + [("outcome", 10)]
        for title, width in columns:
            table.add_column(cell(title), width=width)
        for row in self.shown:
            failed = ", ".join([name for name, status in row.checks.items() if status == "fail"] +
                               [f for f in row.failures if not f.startswith("check:")])  # fmt: skip
            table.add_row(
                cell(row.case_id), cell(row.slices["difficulty"]), cell(row.status, STATUS_STYLES[row.status]),
                cell(failed or "-"), *(cell(_value(row.values.get(name))) for name in HEADLINE_METRICS),
                *(cell("-" if row.scores.get(axis) is None else str(row.scores[axis])) for axis in axes),
                cell(row.outcome or row.verdict_status),
            )  # fmt: skip
        self._title()
        self._preview()

    def _title(self) -> None:
        if self.table is None:
            return
        run = self.table.run
        counts = status_counts(self.shown)
        self.query_one("#run-title", Static).update(
            Content.assemble(
                line(f"Run {run.run_id}").stylize("bold"),
                Content.assemble(" · ", line(f"{run.adapter} · judge {run.judge} · suite {run.suite_hash[:12]}")),
                "\n",
                line(
                    f"showing {len(self.shown)} of {self.table.total} ({self.criteria.words()}): "
                    f"{counts['pass']} pass, {counts['fail']} fail, {counts['judge error']} judge error"
                ).stylize(MUTED),
            )
        )

    def selected(self) -> CaseRow | None:
        row = self.query_one(PickTable).cursor_row
        return self.shown[row] if self.shown and 0 <= row < len(self.shown) else None

    def _preview(self) -> None:
        row = self.selected()
        preview = self.query_one("#run-preview", Static)
        if row is None:
            preview.update(Content.styled("No case matches the filters (c clears them).", MUTED))
            return
        parts = [
            Content.assemble(
                line(row.case_id).stylize("bold"), "  ", Content.styled(row.status, STATUS_STYLES[row.status])
            ),
            line(" · ".join(f"{kind} {value}" for kind, value in row.slices.items())).stylize(MUTED),
        ]
        if row.failures:
            parts.append(Content.assemble(("failed: ", MUTED), line(", ".join(row.failures))))
        if row.judge_error:
            parts.append(Content.assemble(("judge: ", MUTED), plain(row.judge_error).stylize("$warning")))
        preview.update(Content("\n").join(parts))

    def on_data_table_row_highlighted(self, _event: PickTable.RowHighlighted) -> None:
        self._preview()

    def on_data_table_row_selected(self, event: PickTable.RowSelected) -> None:
        event.stop()
        self.action_open_run_case()

    def action_open_run_case(self) -> None:
        row = self.selected()
        if row is None:
            self.notify("No case to open: clear the filters (c).", severity="warning")
            return
        self.navigate("run_case", self.run_id, row.case_id)

    def action_back(self) -> None:
        self.dismiss(None)
