"""Oversight from the keyboard: adjudicate a disagreement, read the dashboard, drill into a cell, browse.

The host app runs each screen on a private copy of the demo store holding the committed
synthetic labels of ana, ben and chloe, and the demo golden set.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.binding import Binding

from qaeval_tui.core.config import Config
from qaeval_tui.core.statistics.sources import calibration_from_store
from qaeval_tui.core.store.sqlite import Store
from qaeval_tui.tui.commands import COMMANDS, RULE_HELP, commands_for
from qaeval_tui.tui.context import AppContext
from qaeval_tui.tui.destinations import DESTINATIONS, offered
from qaeval_tui.tui.navigation import build_screen
from qaeval_tui.tui.screens.adjudicate import AdjudicationScreen
from qaeval_tui.tui.screens.browse import BrowseScreen
from qaeval_tui.tui.screens.case_detail import CaseDetailScreen
from qaeval_tui.tui.screens.consensus_dialog import ConsensusDialog
from qaeval_tui.tui.screens.dashboard import DashboardScreen
from qaeval_tui.tui.screens.drilldown import DrilldownScreen
from qaeval_tui.tui.screens.help import HelpScreen
from qaeval_tui.tui.screens.inbox import InboxScreen
from qaeval_tui.tui.screens.promote import PromoteScreen
from qaeval_tui.tui.services import Services
from qaeval_tui.tui.widgets.confusion_grid import ConfusionGrid
from tests.tui.conftest import flat
from tests.tui.oversight_host import Workspace, host_text, oversight_app, oversight_template, workspace
from tests.tui.scenes.review import AnyPilot, FixedClock, wait_until

__all__ = ["oversight_template", "workspace"]  # fixtures


async def adjudication_ready(pilot: AnyPilot) -> AdjudicationScreen:
    app = pilot.app

    def ready() -> bool:
        screen = app.screen
        return (
            isinstance(screen, AdjudicationScreen) and screen.loaded and not screen.busy and screen.dossier is not None
        )

    await wait_until(pilot, ready)
    await pilot.pause()
    assert isinstance(app.screen, AdjudicationScreen)
    return app.screen


async def dashboard_ready(pilot: AnyPilot) -> DashboardScreen:
    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, DashboardScreen) and app.screen.dashboard is not None)
    await pilot.pause()
    assert isinstance(app.screen, DashboardScreen)
    return app.screen


def store_counts(ws: Workspace) -> dict[str, int]:
    with ws.store() as store:
        return {table: store.count(table) for table in ("labels", "adjudications", "inbox_decisions", "judge_verdicts")}


async def test_adjudication_lists_disagreements_worst_first_with_blind_labels_and_no_judge(
    workspace: Workspace,
) -> None:
    app = oversight_app(workspace, AdjudicationScreen)
    async with app.run_test(size=(100, 32)) as pilot:
        screen = await adjudication_ready(pilot)
        spreads = [entry.spread for entry in screen.shown]
        assert spreads == sorted(spreads, reverse=True) and spreads[0] == 2
        first = screen.shown[0]
        assert screen.dossier is not None and screen.dossier.item_id == first.item_id
        assert screen.dossier.judge is None  # a consensus is settled without the judge in view
        text = flat(host_text(app))
        assert f"{len(screen.shown)} open disagreement(s)" in text
        for score in first.scores:
            assert score.reviewer in text
        assert "Blind labels" in text and "consensus" in text
        lines = [line.strip() for line in host_text(app).splitlines()]
        assert not any(line.startswith(("judge ", "judge on")) for line in lines)


async def test_a_recorded_consensus_is_appended_and_calibration_uses_it(workspace: Workspace) -> None:
    with workspace.store() as store:
        before = calibration_from_store(store, workspace.config)
    app = oversight_app(workspace, AdjudicationScreen)
    async with app.run_test(size=(100, 32)) as pilot:
        screen = await adjudication_ready(pilot)
        # The second entry is unresolved: left out of calibration until someone rules on it.
        await pilot.press("down")
        await wait_until(
            pilot, lambda: screen.dossier is not None and screen.dossier.item_id == screen.shown[1].item_id
        )
        entry = screen.shown[1]
        assert entry.consensus_source == "unresolved"
        value = entry.scores[0].value
        assert value is not None
        await pilot.press(str(value))
        assert isinstance(app.screen, ConsensusDialog)
        await pilot.press("enter")  # no reason: refused, nothing written
        assert isinstance(app.screen, ConsensusDialog) and "a reason is required" in flat(host_text(app))
        await pilot.press(*"the anchor fits the first reading", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, AdjudicationScreen) and not screen.busy)
        await pilot.pause()
        assert all((e.item_id, e.axis) != (entry.item_id, entry.axis) for e in screen.shown)  # settled: hidden
        await pilot.press("a")  # show settled ones too
        assert any((e.item_id, e.axis, e.adjudicated) == (entry.item_id, entry.axis, True) for e in screen.shown)
    with workspace.store() as store:
        assert store.adjudications() == {(entry.item_id, entry.axis): value}
        after = calibration_from_store(store, workspace.config)
    axis_before, axis_after = before.axes[entry.axis], after.axes[entry.axis]
    assert axis_after.consensus_counts["adjudicated"] == 1
    assert axis_after.consensus_counts["unresolved"] == axis_before.consensus_counts["unresolved"] - 1
    assert entry.item_id not in axis_after.unresolved_items
    assert axis_after.n in (axis_before.n, axis_before.n + 1)  # + 1 when the judge scored that item


async def test_the_dashboard_shows_verdicts_and_drills_into_a_cell_read_only(workspace: Workspace) -> None:
    counts = store_counts(workspace)
    app = oversight_app(workspace, DashboardScreen)
    async with app.run_test(size=(100, 90)) as pilot:  # every section and its figure on screen at once
        screen = await dashboard_ready(pilot)
        dashboard = screen.dashboard
        assert dashboard is not None and dashboard.calibration is not None
        text = flat(host_text(app))
        assert "citation_correctness RETUNE" in text and "overall RETUNE" in text
        assert "Inter-rater agreement" in text and "Reviewer progress" in text
        grids = screen.grids()
        assert [grid.view.axis for grid in grids] == list(workspace.config.rubric.axis_names)
        await pilot.press("tab")  # to the citation_correctness grid
        grid = screen.focused
        assert isinstance(grid, ConfusionGrid) and grid.view.axis == "citation_correctness"
        await pilot.press("up", "up", "up", "left", "left", "left", "down", "right", "right")  # human 1, judge 2
        assert (grid.human, grid.judge) == (1, 2)
        expected = dashboard.items_in_cell("citation_correctness", 2, 1)
        assert len(expected) == grid.view.count(1, 2) > 0
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, DrilldownScreen) and app.screen.dossier is not None)
        drill = app.screen
        assert isinstance(drill, DrilldownScreen)
        assert [item.item_id for item in drill.items] == [item.item_id for item in expected]
        assert drill.dossier is not None and drill.dossier.judge is not None  # judge and labels visible
        assert drill.dossier.judge.scores["citation_correctness"] == 2
        text = flat(host_text(app))
        assert f"{len(expected)} item(s)" in text and "read-only" in text and "judge" in text
        await pilot.press("escape")
        await dashboard_ready(pilot)
    assert store_counts(workspace) == counts


async def test_the_dashboard_recomputes_and_explains_what_is_missing(tmp_path: Path) -> None:
    empty = Workspace(tmp_path, Config(base_dir=str(tmp_path)), tmp_path / "empty.db")
    Store.open(empty.db).close()
    (tmp_path / "golden").mkdir()
    app = oversight_app(empty, DashboardScreen)
    async with app.run_test(size=(100, 32)) as pilot:
        screen = await dashboard_ready(pilot)
        assert "no usable labels" in flat(host_text(app)) and screen.grids() == []
        assert screen.check_action("drill", ()) is None  # no cell to open
        await pilot.press("r")
        await dashboard_ready(pilot)


async def test_the_browser_filters_searches_and_opens_a_case_read_only(workspace: Workspace) -> None:
    app = oversight_app(workspace, BrowseScreen)
    async with app.run_test(size=(100, 32)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, BrowseScreen) and app.screen.golden is not None)
        screen = app.screen
        assert isinstance(screen, BrowseScreen) and screen.golden is not None
        assert len(screen.shown) == len(screen.golden.cases) == 39
        await pilot.press("s")  # split: frozen
        assert screen.criteria.split == "frozen" and {c.split for c in screen.shown} == {"frozen"}
        await pilot.press("s")  # split: living
        assert {c.split for c in screen.shown} == {"living"} and len(screen.shown) == 9
        await pilot.press("c", "d", "d")  # clear, then difficulty: multi_hop
        assert {c.case.difficulty for c in screen.shown} == {"multi_hop"}
        await pilot.press("c", "t", "t")  # tag: the first real tag after "none"
        assert screen.criteria.tag not in (None, "none") and all(
            c.case.adversarial == screen.criteria.tag for c in screen.shown
        )
        await pilot.press("c", "b", "b")  # behaviour: abstain
        assert {c.case.expected_behavior for c in screen.shown} == {"abstain"}
        await pilot.press("c", "slash", *"error-E204", "enter")
        assert [c.case.id for c in screen.shown] == ["error-e204-meaning-01"]
        await pilot.press("enter")
        assert isinstance(app.screen, CaseDetailScreen)
        text = flat(host_text(app))
        assert "read-only: frozen cases are never changed" in text and "★ gold" in text
        await pilot.press("escape")
        assert isinstance(app.screen, BrowseScreen)


CURATOR_SCOPES = [entry.scope for entry in DESTINATIONS if entry.role == "curator"]
SCREENS: list[type[Any]] = [
    InboxScreen, PromoteScreen, AdjudicationScreen, DashboardScreen, DrilldownScreen, BrowseScreen, CaseDetailScreen,
]  # fmt: skip


@pytest.mark.parametrize("screen", SCREENS, ids=[s.__name__ for s in SCREENS])
def test_every_binding_has_a_description_and_a_declared_command(screen: type[Any]) -> None:
    declared = {command.name for command in commands_for(screen.SCOPE)}
    bindings = [binding for binding in screen.BINDINGS if isinstance(binding, Binding)]
    assert bindings and all(binding.description for binding in bindings)
    for binding in bindings:
        assert binding.action in declared | {"help"} or binding.action.startswith("rule_with(")
        assert hasattr(screen, f"action_{binding.action.split('(')[0]}")


def test_every_command_has_a_label_and_a_one_sentence_help() -> None:
    for scope in CURATOR_SCOPES:
        for command in commands_for(scope):
            assert command.label and command.help.endswith(".") and command.key


def test_no_key_does_two_things_on_one_screen_or_shadows_an_app_key() -> None:
    app_keys = {command.key for command in COMMANDS if command.scope == "app"}
    for scope in CURATOR_SCOPES:
        keys = [command.key for command in commands_for(scope)]
        assert keys and len(keys) == len(set(keys)), scope
        assert not set(keys) & app_keys, scope


async def test_the_home_entries_open_their_screens_on_the_apps_own_services(workspace: Workspace) -> None:
    services = Services(workspace.config, workspace.db, [workspace.golden])
    context = AppContext(services, FixedClock(), deterministic=True, reviewer="dana", role="curator")
    for entry in offered("curator"):
        screen = build_screen(entry, context)
        # The very object the app holds: no screen opens a second connection to the store.
        assert screen.context.services is services and screen.context.curator == "dana"  # type: ignore[attr-defined]
    services.close()
    assert [e.opener.entry for e in offered("curator") if e.opener] == [
        "Inbox",
        "Adjudication",
        "Calibration",
        "Browse",
        "Flags",
        "Runs",
    ]


async def test_help_lists_every_key_of_the_screen_with_its_rule_digits(workspace: Workspace) -> None:
    app = oversight_app(workspace, AdjudicationScreen)
    async with app.run_test(size=(100, 40)) as pilot:
        await adjudication_ready(pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = flat(host_text(app))
        assert text.index("Adjudication") < text.index("0-2 " + RULE_HELP)  # the demo scales are 0-2
        for command in commands_for("adjudicate"):
            assert command.help in text
        assert "Command palette" in text
        await pilot.press("escape")
        assert isinstance(app.screen, AdjudicationScreen)


async def test_the_consensus_dialog_labels_its_fields_and_its_hint_follows_the_focus(workspace: Workspace) -> None:
    app = oversight_app(workspace, AdjudicationScreen)
    async with app.run_test(size=(100, 40)) as pilot:
        await adjudication_ready(pilot)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ConsensusDialog))
        text = flat(host_text(app))
        assert "Value" in text and "Reason" in text and "Adjudicator" in text
        dialog = app.screen

        def hint() -> str:
            return str(dialog.query_one("#consensus-hint").render())

        await pilot.press("down", "enter")  # a value chosen: focus moves to the reason
        await wait_until(pilot, lambda: "type the reason" in hint())
        await pilot.press("tab")
        await wait_until(pilot, lambda: "guideline section" in hint())
        await pilot.press("tab")
        await wait_until(pilot, lambda: "your name" in hint())
