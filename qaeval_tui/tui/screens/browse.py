"""The golden browser: every case, filtered by split, difficulty, behaviour and tag, and searched.

The set loads in a worker; filtering is the core's `select_cases` (the same one `qaeval cases`
uses). Enter opens a case with its sources.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from textual.app import ComposeResult
from textual.content import Content
from textual.message import Message
from textual.widgets import DataTable, Input, Static

from qaeval_tui.core.golden.loader import GoldenSet
from qaeval_tui.core.golden.selection import BEHAVIORS, DIFFICULTIES, CaseFilter, select_cases
from qaeval_tui.core.models.golden import LoadedCase
from qaeval_tui.core.text import one_line
from qaeval_tui.tui.commands import bindings
from qaeval_tui.tui.context import AppContext
from qaeval_tui.tui.literal import cell, plain
from qaeval_tui.tui.screens.base import AppScreen
from qaeval_tui.tui.widgets.case_view import case_summary
from qaeval_tui.tui.widgets.key_bar import KeyBar
from qaeval_tui.tui.widgets.pick_table import PickTable

MUTED = "$foreground-muted"


@dataclass
class GoldenLoaded(Message):
    golden: GoldenSet


def _next(options: tuple[str | None, ...], current: str | None) -> str | None:
    return options[(options.index(current) + 1) % len(options)] if current in options else options[0]


class BrowseScreen(AppScreen[None]):
    SCOPE = "browse"
    BINDINGS = bindings("browse")

    def __init__(self, context: AppContext) -> None:
        super().__init__(context)
        self.golden: GoldenSet | None = None
        self.criteria = CaseFilter()
        self.shown: list[LoadedCase] = []

    def compose(self) -> ComposeResult:
        yield Static(Content.styled("Golden set · loading…", "bold"), id="browse-title")
        yield Input(placeholder="/ search id, question, gold answer, sources", id="browse-search", compact=True)
        yield PickTable(id="browse-list")
        yield Static("", id="browse-preview")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#browse-search", Input).cursor_blink = not self.context.deterministic
        self.query_one(PickTable).focus()
        services = self.context.services
        self.call("loading…", lambda: GoldenLoaded(services.golden()), "Not loaded")

    def worker_failed(self, group: str, text: str) -> None:
        super().worker_failed(group, text)
        if self.golden is None:
            first = text.splitlines()[0] if text else "the golden set could not be loaded"
            self.query_one("#browse-title", Static).update(plain(first).stylize("bold $error"))

    def on_golden_loaded(self, message: GoldenLoaded) -> None:
        self.settle()
        self.golden = message.golden
        self._apply()

    def on_resize(self) -> None:
        self._fill(self.selected())

    # -- filters ----------------------------------------------------------------------------------

    def _options(self, name: str) -> tuple[str | None, ...]:
        cases = self.golden.cases if self.golden else ()
        if name == "split":
            return (None, *sorted({loaded.split for loaded in cases}))
        if name == "difficulty":
            return (None, *DIFFICULTIES)
        if name == "behavior":
            return (None, *BEHAVIORS)
        return (None, "none", *sorted({loaded.case.adversarial for loaded in cases if loaded.case.adversarial}))

    def _cycle(self, name: str) -> None:
        current = getattr(self.criteria, name)
        self.criteria = replace(self.criteria, **{name: _next(self._options(name), current)})
        self._apply()

    def action_cycle_split(self) -> None:
        self._cycle("split")

    def action_cycle_difficulty(self) -> None:
        self._cycle("difficulty")

    def action_cycle_behavior(self) -> None:
        self._cycle("behavior")

    def action_cycle_tag(self) -> None:
        self._cycle("tag")

    def action_clear_filters(self) -> None:
        self.criteria = CaseFilter()
        self.query_one("#browse-search", Input).value = ""
        self._apply()

    def on_input_changed(self, event: Input.Changed) -> None:
        self.criteria = replace(self.criteria, search=event.value or None)
        self._apply()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one(PickTable).focus()

    def action_search(self) -> None:
        self.query_one("#browse-search", Input).focus()

    # -- showing ----------------------------------------------------------------------------------

    def _apply(self) -> None:
        if self.golden is None:
            return
        keep = self.selected()
        self.shown = select_cases(self.golden.cases, self.criteria)
        self._fill(keep)

    def _fill(self, keep: LoadedCase | None) -> None:
        if self.golden is None:
            return
        table = self.query_one(PickTable)
        table.clear(columns=True)
        spare = self.size.width - 82  # the fixed columns, their padding, the margins and the scrollbar
        for title, width in (("id", 24), ("split", 7), ("difficulty", 11), ("behaviour", 9), ("tag", 14)):
            table.add_column(title, width=width)
        if spare >= 20:
            table.add_column("question", width=spare)
        for loaded in self.shown:
            case = loaded.case
            cells = [
                cell(case.id), cell(loaded.split), cell(case.difficulty),
                cell(case.expected_behavior), cell(case.adversarial or "-"),
            ]  # fmt: skip
            if spare >= 20:
                cells.append(cell(case.question))
            table.add_row(*cells)
        if keep is not None and keep in self.shown:
            table.move_cursor(row=self.shown.index(keep), animate=False)
        self._title()
        self._preview()

    def _title(self) -> None:
        if self.golden is None:
            return
        splits = " · ".join(f"{one_line(name, 30)} {count}" for name, count in self.golden.summary()["split"].items())
        c = self.criteria
        filters = (
            f"split: {one_line(c.split or 'any', 30)} · difficulty: {c.difficulty or 'any'} · "
            f"behaviour: {c.behavior or 'any'} · tag: {one_line(c.tag or 'any', 30)}"
        )
        self.query_one("#browse-title", Static).update(
            Content.assemble(
                ("Golden set  ", "bold"),
                (f"{len(self.golden.cases)} cases ({splits}) · showing {len(self.shown)}", "bold"),
                "\n",
                (filters, MUTED),
            )
        )

    def selected(self) -> LoadedCase | None:
        row = self.query_one(PickTable).cursor_row
        return self.shown[row] if self.shown and 0 <= row < len(self.shown) else None

    def _preview(self) -> None:
        loaded = self.selected()
        preview = self.query_one("#browse-preview", Static)
        preview.update(case_summary(loaded) if loaded else Content.styled("No case matches the filters.", MUTED))

    def on_data_table_row_highlighted(self, _event: DataTable.RowHighlighted) -> None:
        self._preview()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open_case()

    def action_open_case(self) -> None:
        loaded = self.selected()
        if loaded is None:
            self.notify("No case to open: clear the filters (c).", severity="warning")
            return
        self.navigate("case", loaded)

    def action_back(self) -> None:
        if self.focused is self.query_one("#browse-search", Input):
            self.query_one(PickTable).focus()
            return
        self.dismiss(None)
