"""The items behind one confusion-matrix cell, opened read-only with the judge and every label visible."""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.content import Content
from textual.message import Message
from textual.widgets import DataTable, Static

from qaeval_tui.core.curation.dossier import ItemDossier
from qaeval_tui.core.usecases.dashboard import CellItem, Dashboard
from qaeval_tui.tui.commands import bindings
from qaeval_tui.tui.context import AppContext
from qaeval_tui.tui.literal import cell, line
from qaeval_tui.tui.screens.base import AppScreen
from qaeval_tui.tui.widgets.dossier_view import DossierView
from qaeval_tui.tui.widgets.key_bar import KeyBar
from qaeval_tui.tui.widgets.pick_table import PickTable


@dataclass
class CellDossier(Message):
    dossier: ItemDossier


class DrilldownScreen(AppScreen[None]):
    """Read-only: nothing here writes to the store."""

    SCOPE = "drilldown"
    BINDINGS = bindings("drilldown")

    def __init__(self, context: AppContext, dashboard: Dashboard, axis: str, human: int, judge: int) -> None:
        super().__init__(context)
        self.dashboard = dashboard
        self.axis = axis
        self.human = human
        self.judge = judge
        self.items: list[CellItem] = dashboard.items_in_cell(axis, judge, human)
        self.dossier: ItemDossier | None = None

    def compose(self) -> ComposeResult:
        agree = self.human == self.judge
        yield Static(
            Content.assemble(
                line(self.axis).stylize("bold $accent"),
                f"  human {self.human} · judge {self.judge} · ",
                (f"{len(self.items)} item(s)", "bold"),
                ("  agree" if agree else "  disagree", "bold $success" if agree else "bold $error"),
                ("  · read-only", "$foreground-muted"),
            ),
            id="drill-title",
        )
        yield PickTable(id="drill-list")
        yield DossierView()
        yield KeyBar()

    def on_mount(self) -> None:
        table = self.query_one(PickTable)
        for title, width in (("case", max(20, self.app.size.width - 40)), ("human consensus", 16), ("judge", 6)):
            table.add_column(title, width=width)
        for item in self.items:
            table.add_row(cell(item.case_id), cell(f"{item.human} {item.consensus_source}"), cell(str(item.judge)))
        table.focus()
        self._load()

    def selected(self) -> CellItem | None:
        row = self.query_one(PickTable).cursor_row
        return self.items[row] if self.items and 0 <= row < len(self.items) else None

    def on_data_table_row_highlighted(self, _event: DataTable.RowHighlighted) -> None:
        self._load()

    def _load(self) -> None:
        item = self.selected()
        if item is None:
            self.call_later(self.query_one(DossierView).clear, "No item in this cell.")
            return
        services, item_id, viewer = self.context.services, item.item_id, self.context.reviewer
        report = self.dashboard.calibration
        judge_hash = report.judge_config_hash if report is not None else None

        def work() -> None:
            dossier = services.dossier(
                item_id, with_judge=True, judge_config_hash=judge_hash, viewer=viewer, view="dashboard drill-down"
            )
            self.post_message(CellDossier(dossier))

        self.run_core(work, group="dossier", title="Not loaded", exclusive=True)

    async def on_cell_dossier(self, message: CellDossier) -> None:
        item = self.selected()
        if item is None or item.item_id != message.dossier.item_id:
            return
        self.dossier = message.dossier
        axes = self.context.services.config.rubric.axis_names
        await self.query_one(DossierView).show(message.dossier, axes, self.axis)

    def action_detail_down(self) -> None:
        self.query_one(DossierView).scroll_page_down(animate=False)

    def action_detail_up(self) -> None:
        self.query_one(DossierView).scroll_page_up(animate=False)

    def action_back(self) -> None:
        self.dismiss(None)
