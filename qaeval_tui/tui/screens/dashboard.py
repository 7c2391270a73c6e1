"""The calibration dashboard: can the judge be trusted, on which axis, with what uncertainty?

Everything shown is one call of the core's `compute_dashboard`, run in a worker with a progress
bar (the agreement bootstrap takes a while on a big store). Each axis's confusion matrix is a
grid with a cursor; enter opens the items behind the cell under it, read-only.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import LoadingIndicator, ProgressBar, Static

from qaeval_tui.core.usecases.dashboard import STEPS, Dashboard
from qaeval_tui.tui.commands import bindings
from qaeval_tui.tui.context import AppContext
from qaeval_tui.tui.literal import line, plain
from qaeval_tui.tui.screens.base import AppScreen
from qaeval_tui.tui.widgets.confusion_grid import ConfusionGrid
from qaeval_tui.tui.widgets.dashboard_figures import (
    VERDICT_STYLES,
    Section,
    agreement_section,
    calibration_section,
    progress_section,
)
from qaeval_tui.tui.widgets.key_bar import KeyBar

SECTIONS = ("agreement", "calibration", "reviewers")


@dataclass
class DashboardStep(Message):
    index: int
    text: str


@dataclass
class DashboardReady(Message):
    dashboard: Dashboard


class DashboardScreen(AppScreen[None]):
    """Agreement, judge vs human, confusion grids and reviewer progress, all from the store."""

    SCOPE = "dashboard"
    BINDINGS = bindings("dashboard")

    def __init__(self, context: AppContext) -> None:
        super().__init__(context)
        self.dashboard: Dashboard | None = None

    def compose(self) -> ComposeResult:
        yield Static(Content.styled("Calibration dashboard", "bold"), id="dash-title")
        with Vertical(id="dash-loading"):
            yield LoadingIndicator()
            yield ProgressBar(total=len(STEPS), show_eta=False, id="dash-progress")
            yield Static("", id="dash-step")
        with VerticalScroll(id="dash-body"):
            for name in SECTIONS:
                yield Static(id=f"{name}-title")
                yield Static(id=f"{name}-table", classes="figures")
                yield Static(id=f"{name}-plot", classes="plot")
                yield Static(id=f"{name}-notes", classes="notes")
                if name == "calibration":
                    yield Static(id="grids-title")
                    yield Horizontal(id="grids")
        yield KeyBar()

    def on_mount(self) -> None:
        self.action_recompute()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "drill":
            return True if self.grids() else None
        if action == "recompute":
            return None if self.busy else True
        return True

    def grids(self) -> list[ConfusionGrid]:
        return list(self.query(ConfusionGrid))

    def action_recompute(self) -> None:
        if self.busy:
            return
        services = self.context.services
        self.query_one("#dash-loading").display = True
        self.query_one(LoadingIndicator).display = True
        self.query_one("#dash-body").display = False
        self.query_one("#dash-progress", ProgressBar).update(progress=0)

        def work() -> DashboardReady:
            return DashboardReady(services.dashboard(lambda index, text: self.post_message(DashboardStep(index, text))))

        self.call("computing…", work, "Not computed")
        self.refresh_bindings()

    def worker_failed(self, group: str, text: str) -> None:
        super().worker_failed(group, text)
        self.query_one(LoadingIndicator).display = False
        self.query_one("#dash-step", Static).update(plain(text).stylize("$error"))

    def on_dashboard_step(self, message: DashboardStep) -> None:
        self.query_one("#dash-progress", ProgressBar).update(progress=message.index)
        self.query_one("#dash-step", Static).update(
            line(f"{message.text}… ({message.index + 1} of {len(STEPS)})").stylize("$foreground-muted")
        )

    async def on_dashboard_ready(self, message: DashboardReady) -> None:
        self.settle()
        self.dashboard = dashboard = message.dashboard
        report = dashboard.calibration
        title = [Content.styled("Calibration dashboard", "bold")]
        if report is not None:
            title += [Content("  overall "), Content.styled(report.verdict, VERDICT_STYLES[report.verdict])]
        if dashboard.open_flags:
            title.append(Content.styled(f"  · {dashboard.open_flags} open flag(s)", "bold $warning"))
        self.query_one("#dash-title", Static).update(Content.assemble(*title))
        for name, section in zip(
            SECTIONS,
            (agreement_section(dashboard), calibration_section(dashboard), progress_section(dashboard)),
            strict=True,
        ):
            self._show(name, section)
        grids = self.query_one("#grids", Horizontal)
        await grids.remove_children()
        views = [view for axis in self.context.services.config.rubric.axis_names if (view := dashboard.confusion(axis))]
        if report is not None and views:
            await grids.mount_all(
                ConfusionGrid(
                    view, Content.styled(report.axes[view.axis].verdict, VERDICT_STYLES[report.axes[view.axis].verdict])
                )
                for view in views
            )
        self.query_one("#grids-title", Static).update(
            Content.assemble(
                ("Confusion matrices", "bold $primary"),
                (
                    "  rows: human consensus · columns: judge · arrows move · enter opens the items in a cell",
                    "$foreground-muted",
                ),
            )
            if views
            else Content.styled("No confusion matrices without a calibration.", "$foreground-muted")
        )
        self.query_one("#dash-loading").display = False
        self.query_one("#dash-body").display = True
        if self.grids():
            self.grids()[0].focus(scroll_visible=False)  # the figures open at the top: agreement first
        self.refresh_bindings()

    def _show(self, name: str, section: Section) -> None:
        self.query_one(f"#{name}-title", Static).update(section.title)
        self.query_one(f"#{name}-table", Static).update(section.table)
        plot = self.query_one(f"#{name}-plot", Static)
        plot.update(section.plot)
        plot.set_class(not section.plot.plain, "-empty")
        notes = self.query_one(f"#{name}-notes", Static)
        notes.update(section.notes)
        notes.set_class(not section.notes.plain, "-empty")

    def action_drill(self) -> None:
        grids = self.grids()
        if self.dashboard is None or not grids:
            return
        grid = self.focused if isinstance(self.focused, ConfusionGrid) else grids[0]
        self.navigate("drilldown", self.dashboard, grid.view.axis, grid.human, grid.judge)

    def action_back(self) -> None:
        self.dismiss(None)
