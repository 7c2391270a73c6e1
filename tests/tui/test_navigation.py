"""Every screen of the curator app is reachable: from home by its key, from anywhere by the palette, and back.

The app is the one the CLI builds, on a private workspace: a copy of the demo golden folder (inbox
included) and a store holding the demo run, the queues and the synthetic labels of ana, ben and
chloe. The curator is dana (`qaeval curate`); the reviewer app offers none of these screens
(test_blindness_app.py).
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.command import CommandPalette
from textual.screen import Screen

from qaeval_tui.core.config import Config, ReviewConfig, RosterMember
from qaeval_tui.core.curation.inbox import import_misses
from qaeval_tui.tui.app import ReviewApp
from qaeval_tui.tui.commands import SCOPE_TITLES, commands_for
from qaeval_tui.tui.destinations import offered
from qaeval_tui.tui.screens.adjudicate import AdjudicationScreen
from qaeval_tui.tui.screens.base import AppScreen
from qaeval_tui.tui.screens.browse import BrowseScreen
from qaeval_tui.tui.screens.case_detail import CaseDetailScreen
from qaeval_tui.tui.screens.dashboard import DashboardScreen
from qaeval_tui.tui.screens.drilldown import DrilldownScreen
from qaeval_tui.tui.screens.help import HelpScreen
from qaeval_tui.tui.screens.home import HomeScreen
from qaeval_tui.tui.screens.inbox import InboxScreen
from qaeval_tui.tui.screens.promote import PromoteScreen
from tests.tui.conftest import flat, make_app, screen_text
from tests.tui.oversight_host import Workspace, oversight_template, workspace
from tests.tui.scenes.review import AnyPilot, wait_until

__all__ = ["oversight_template", "workspace"]  # fixtures

HOME_KEYS: list[tuple[str, type[AppScreen[None]], str]] = [
    ("i", InboxScreen, "Open inbox"),
    ("a", AdjudicationScreen, "Open adjudication"),
    ("c", DashboardScreen, "Open calibration dashboard"),
    ("b", BrowseScreen, "Open golden browser"),
]


def app_on(workspace: Workspace, config: Config | None = None) -> ReviewApp:
    config = config or workspace.config
    team = (RosterMember(name="dana", roles=("curator",)),)
    config = config.model_copy(update={"review": config.review.model_copy(update={"roster": team})})
    return make_app(workspace.db, "dana", config=config, data=workspace.golden, role="curator")


def settled(app: ReviewApp, kind: type[Screen[Any]]) -> bool:
    """`kind` is on top and nothing it started is still running."""
    return isinstance(app.screen, kind) and not getattr(app.screen, "busy", "") and workers_done(app)


def workers_done(app: ReviewApp) -> bool:
    return all(worker.is_finished for worker in app.workers)


async def reach(pilot: AnyPilot, kind: type[Screen[Any]]) -> Any:
    app = pilot.app
    assert isinstance(app, ReviewApp)
    await wait_until(pilot, lambda: settled(app, kind))
    await pilot.pause()
    return app.screen


async def go_home(pilot: AnyPilot) -> HomeScreen:
    """Home, which the curator app opens on once the store is prepared."""
    home = await reach(pilot, HomeScreen)
    await wait_until(pilot, lambda: home.loaded)
    return home  # type: ignore[no-any-return]


async def from_palette(pilot: AnyPilot, query: str, title: str) -> None:
    """Open the palette, type `query`, check `title` is offered, and run the first hit."""
    app = pilot.app
    await pilot.press("ctrl+p")
    await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
    await pilot.press(*query)
    await wait_until(pilot, lambda: title in screen_text(app), timeout=5)  # type: ignore[arg-type]
    await pilot.press("enter")
    await wait_until(pilot, lambda: not isinstance(app.screen, CommandPalette))


def palette_titles(app: ReviewApp) -> list[str]:
    return [command.title for command in app.get_system_commands(app.screen)]


async def test_home_lists_every_screen_with_the_key_that_opens_it(workspace: Workspace) -> None:
    app = app_on(workspace)
    async with app.run_test(size=(100, 32)) as pilot:
        await go_home(pilot)
        text = flat(screen_text(app))
    assert "qaeval curate" in text and "Review blind-label" not in text  # labeling is the reviewer app's
    for key, _, _ in HOME_KEYS:
        opener = next(e.opener for e in offered("curator") if e.opener and e.opener.key == key)
        assert f"{key} {opener.entry} {opener.purpose}" in text
    assert "coming" not in text


@pytest.mark.parametrize(("key", "kind", "title"), HOME_KEYS, ids=[kind.__name__ for _, kind, _ in HOME_KEYS])
async def test_a_home_key_opens_its_screen_on_the_apps_store_and_escape_comes_back(
    workspace: Workspace, key: str, kind: type[AppScreen[None]], title: str
) -> None:
    app = app_on(workspace)
    async with app.run_test(size=(100, 32)) as pilot:
        await go_home(pilot)
        await pilot.press(key)
        screen = await reach(pilot, kind)
        assert screen.context.services.db_path == workspace.db and screen.context.curator == "dana"
        await pilot.press("escape")
        await reach(pilot, HomeScreen)
        assert title + f" ({key})" in palette_titles(app)  # the palette offers it on home by its key


async def test_a_remapped_home_key_is_shown_and_opens_the_screen(workspace: Workspace) -> None:
    config = workspace.config.model_copy(update={"review": ReviewConfig(keys={"open_inbox": "n"})})
    app = app_on(workspace, config)
    async with app.run_test(size=(100, 32)) as pilot:
        await go_home(pilot)
        assert "n Inbox production misses" in flat(screen_text(app))
        await pilot.press("i")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        await pilot.press("n")
        await reach(pilot, InboxScreen)


async def test_the_palette_opens_every_screen_from_anywhere(workspace: Workspace) -> None:
    app = app_on(workspace)
    async with app.run_test(size=(100, 32)) as pilot:
        await go_home(pilot)
        await pilot.press("b")
        await reach(pilot, BrowseScreen)
        for _, kind, title in HOME_KEYS:
            if kind is BrowseScreen:
                continue  # already open
            assert title in palette_titles(app)
            await from_palette(pilot, title.lower(), title)
            await reach(pilot, kind)
            await pilot.press("escape")
            await reach(pilot, BrowseScreen)  # back where it was opened


async def test_the_palette_offers_each_command_once_and_runs_screen_actions(workspace: Workspace) -> None:
    app = app_on(workspace)
    async with app.run_test(size=(100, 32)) as pilot:
        await go_home(pilot)
        await pilot.press("a")
        screen = await reach(pilot, AdjudicationScreen)
        titles = palette_titles(app)
        assert len(titles) == len(set(titles)), titles
        for command in commands_for("adjudicate"):
            assert any(title.startswith(f"{command.palette_title} (") for title in titles), command.name
        assert {"Rule as 0", "Rule as 2", "Open inbox", "Help (?)"} <= set(titles)
        assert "Open adjudication" not in titles  # it is already open
        assert not screen.show_settled
        await from_palette(pilot, "show settled", "Show settled (a)")
        await wait_until(pilot, lambda: screen.show_settled)


# Each curation and oversight screen, and the keys that reach it from home.
SCREEN_PATHS: list[tuple[type[AppScreen[None]], tuple[str, ...]]] = [
    (InboxScreen, ("i",)),
    (PromoteScreen, ("i", "enter")),
    (AdjudicationScreen, ("a",)),
    (DashboardScreen, ("c",)),
    (DrilldownScreen, ("c", "tab", "enter")),
    (BrowseScreen, ("b",)),
    (CaseDetailScreen, ("b", "enter")),
]


@pytest.mark.parametrize(("kind", "keys"), SCREEN_PATHS, ids=[kind.__name__ for kind, _ in SCREEN_PATHS])
async def test_help_from_the_palette_and_its_key_lists_the_screens_keys(
    workspace: Workspace, kind: type[AppScreen[None]], keys: tuple[str, ...]
) -> None:
    with workspace.store() as store:
        import_misses(store, workspace.inbox_file)
    app = app_on(workspace)
    async with app.run_test(size=(100, 40)) as pilot:
        await go_home(pilot)
        for key in keys:
            await pilot.press(key)
            await wait_until(pilot, lambda: workers_done(app))
        screen = await reach(pilot, kind)
        await from_palette(pilot, "help", "Help (?)")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        text = flat(screen_text(app))
        assert SCOPE_TITLES[kind.SCOPE] in text and "Everywhere" in text
        for command in commands_for(kind.SCOPE):
            assert command.help in text
        await pilot.press("escape")
        assert app.screen is screen
        if kind is PromoteScreen:
            return  # a form field has focus there: ? is part of the question, help is in the palette
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        assert flat(screen_text(app)) == text  # the key and the palette open the same list
