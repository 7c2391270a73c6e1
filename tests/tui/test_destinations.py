"""Each destination is declared once, and a reviewer reaches no curator destination by any route.

The routes, each driven with Pilot in the reviewer app (`qaeval review`): home's keys (default and
remapped), the command palette on every screen the reviewer can stand on, the `navigate` action
of home's bindings, a screen asking for a destination (`Navigate`, with a selection), the app's own
`open_destination`, and the factory itself (refused before the screen's module is imported). The
curator app opens every one of its home destinations by its declared key.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from textual.command import CommandPalette

from qaeval_tui.core.config import Config, ReviewConfig
from qaeval_tui.tui.app import ReviewApp
from qaeval_tui.tui.commands import SCOPE_TITLES, binding_id, commands_for
from qaeval_tui.tui.destinations import DESTINATIONS, Destination
from qaeval_tui.tui.navigation import Navigate
from qaeval_tui.tui.screens.base import AppScreen
from qaeval_tui.tui.screens.home import HomeScreen
from tests.conftest import DEMO_GOLDEN
from tests.curation_fixtures import RESTOCKING
from tests.tui.conftest import flat, make_app, open_review, screen_text
from tests.tui.oversight_host import Workspace, oversight_app, oversight_template, workspace
from tests.tui.scenes.review import AnyPilot, wait_until
from tests.tui.test_navigation import app_on, go_home, reach

__all__ = ["oversight_template", "workspace"]  # fixtures

CURATOR = [entry for entry in DESTINATIONS if entry.role == "curator"]
OPENED_FROM_HOME = [entry for entry in CURATOR if entry.opener is not None]


def screen_class(entry: Destination) -> type[AppScreen[Any]]:
    module, _, name = entry.screen.partition(":")
    kind: type[AppScreen[Any]] = getattr(__import__(module, fromlist=[name]), name)
    return kind


def on_curator_screen(app: ReviewApp) -> bool:
    return any(getattr(screen, "SCOPE", "") in {entry.scope for entry in CURATOR} for screen in app.screen_stack)


def palette_titles(app: ReviewApp) -> list[str]:
    return [command.title for command in app.get_system_commands(app.screen)]


async def idle(pilot: AnyPilot) -> None:
    app = pilot.app
    await wait_until(pilot, lambda: all(worker.is_finished for worker in app.workers))
    await pilot.pause()


@pytest.mark.parametrize("entry", DESTINATIONS, ids=[entry.scope for entry in DESTINATIONS])
def test_a_destinations_screen_carries_its_declared_name_and_keys(entry: Destination) -> None:
    kind = screen_class(entry)
    assert entry.scope == kind.SCOPE and SCOPE_TITLES[entry.scope] == entry.title
    bound = {binding.id for binding in kind.BINDINGS if getattr(binding, "id", None)}  # type: ignore[union-attr]
    assert bound == {binding_id(command.name) for command in commands_for(entry.scope)}
    assert commands_for(entry.scope), "a screen with no key of its own cannot even go back"


def test_each_destination_and_each_opener_is_declared_once() -> None:
    scopes = [entry.scope for entry in DESTINATIONS]
    assert len(scopes) == len(set(scopes))
    openers = [entry.opener for entry in DESTINATIONS if entry.opener]
    assert len({o.name for o in openers}) == len(openers) and len({o.key for o in openers if o.anywhere}) == len(
        [o for o in openers if o.anywhere]
    )
    home = [command.name for command in commands_for("home")]
    assert home == [o.name for o in openers] + ["refresh"]  # home's keys, in the table's order


def test_the_factory_refuses_a_reviewer_before_it_imports_the_screen(demo_db: Path) -> None:
    """Every curator destination, those opened with a selection included."""
    code = f"""
import json, sys
from pathlib import Path
from qaeval_tui.core.config import Config
from qaeval_tui.core.review.views import CuratorOnly
from qaeval_tui.tui.app import create_app
from qaeval_tui.tui.destinations import DESTINATIONS
from qaeval_tui.tui.navigation import build_screen

app = create_app(Config(), db_path=Path({str(demo_db)!r}), data_paths=[], reviewer="ana")
refused = []
for entry in (entry for entry in DESTINATIONS if entry.role == "curator"):
    try:
        build_screen(entry, app.context, "a selection")
    except CuratorOnly:
        refused.append(entry.scope)
app.context.services.close()
print(json.dumps([refused, sorted(name for name in sys.modules if name.startswith("qaeval_tui.tui.screens."))]))
"""
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=dict(os.environ), timeout=120
    )
    refused, imported = json.loads(result.stdout.strip().splitlines()[-1])
    assert refused == [entry.scope for entry in CURATOR]
    curator_modules = {entry.screen.partition(":")[0] for entry in CURATOR}
    assert sorted(curator_modules & set(imported)) == []


async def test_no_route_takes_a_reviewer_to_a_curator_destination(demo_db: Path) -> None:
    config = Config().model_copy(update={"review": ReviewConfig(keys={"open_inbox": "n", "open_runs": "o"})})
    app = make_app(demo_db, config=config)
    async with app.run_test(size=(100, 32)) as pilot:
        review = await open_review(pilot)
        curator_titles = {e.opener_command().palette_title for e in OPENED_FROM_HOME}  # type: ignore[union-attr]
        assert "Open inbox" in curator_titles and not [t for t in palette_titles(app) if t in curator_titles]

        # A screen asking for any curator destination, on a selection: the app refuses it.
        for entry in CURATOR:
            review.post_message(Navigate(entry.scope, ("a selection",)))
            await idle(pilot)
            assert app.screen is review and not on_curator_screen(app), entry.scope
            app.open_destination(entry, "a selection")
            await idle(pilot)
            assert app.screen is review, entry.scope

        # Home: every curator key (remapped ones too), and the action its bindings would run.
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
        home = app.screen
        keys = [entry.opener.key for entry in OPENED_FROM_HOME if entry.opener] + ["n", "o"]
        for key in keys:
            await pilot.press(key)
            await idle(pilot)
            assert app.screen is home and not on_curator_screen(app), key
        for entry in OPENED_FROM_HOME:
            await home.run_action(f"navigate({entry.scope!r})")
            await idle(pilot)
            assert app.screen is home, entry.scope
        text = flat(screen_text(app))
        assert not [e.opener.help for e in OPENED_FROM_HOME if e.opener and e.opener.help in text]

        # The palette, on home and on the review screen: no entry, and typing one's title opens nothing.
        assert not [title for title in palette_titles(app) if title in curator_titles]
        for entry in OPENED_FROM_HOME:
            await pilot.press("ctrl+p")
            await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
            await pilot.press(*entry.title.lower())
            await pilot.pause(0.3)
            await pilot.press("enter")
            await idle(pilot)
            if isinstance(app.screen, CommandPalette):
                await pilot.press("escape")
                await idle(pilot)
            assert not on_curator_screen(app), entry.scope
            while not isinstance(app.screen, HomeScreen):  # whatever the hit opened (help, the review)
                await pilot.press("escape")
                await idle(pilot)


@pytest.mark.parametrize("entry", OPENED_FROM_HOME, ids=[entry.scope for entry in OPENED_FROM_HOME])
async def test_the_curator_app_opens_each_home_destination_by_its_declared_key(
    workspace: Workspace, entry: Destination
) -> None:
    assert entry.opener is not None
    app = app_on(workspace)
    async with app.run_test(size=(100, 32)) as pilot:
        await go_home(pilot)
        assert f"{entry.opener.key} {entry.opener.entry} {entry.opener.purpose}" in flat(screen_text(app))
        await pilot.press(entry.opener.key)
        screen = await reach(pilot, screen_class(entry))
        assert entry.scope == screen.SCOPE
        await pilot.press("escape")
        await reach(pilot, HomeScreen)


def test_a_new_screen_reaches_a_core_use_case_through_the_one_store_door(demo_db: Path) -> None:
    """`Services.on_store`: a use case of the core runs on the app's store thread, no services method needed."""
    from qaeval_tui.core.runs.views import RunSummary, list_runs
    from qaeval_tui.core.store.backend import StoreBackend
    from qaeval_tui.tui.services import Services

    services = Services(Config(), demo_db, [DEMO_GOLDEN])
    caller = threading.get_ident()
    try:
        threads: list[int] = []

        def use_case(store: StoreBackend) -> list[RunSummary]:
            threads.append(threading.get_ident())
            return list_runs(store)

        runs = services.on_store(use_case)
        assert [run.run_id for run in runs] == [run.run_id for run in services.runs()[0]] and len(runs) == 1
        assert threads and threads[0] != caller  # on the store thread, where the connection lives
    finally:
        services.close()


async def test_a_screen_that_asks_for_a_destination_gets_its_result(workspace: Workspace) -> None:
    """The promote form returns the rejection it recorded to the screen that asked for it."""
    from qaeval_tui.core.curation.inbox import InboxDecision
    from qaeval_tui.tui.screens.inbox import InboxScreen
    from tests.tui.test_curation_screens import form_ready, import_demo_inbox, inbox_ready

    import_demo_inbox(workspace)
    app = oversight_app(workspace, InboxScreen)
    results: list[object] = []
    async with app.run_test(size=(100, 32)) as pilot:
        inbox = await inbox_ready(pilot)
        inbox.navigate("promote", RESTOCKING, then=results.append)
        await form_ready(pilot)
        await pilot.press("ctrl+r", *"The answer was right.", "enter")
        await wait_until(pilot, lambda: app.screen is inbox)
    assert len(results) == 1 and isinstance(results[0], InboxDecision)
    assert (results[0].decision, results[0].reason, results[0].curator) == ("rejected", "The answer was right.", "dana")
