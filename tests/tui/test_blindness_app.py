"""Blindness app-wide (DESIGN §4, issue 13): nothing a reviewer can reach in `qaeval review` leaks.

Sentinels are planted in what a reviewer must not see before submitting: the judge's name and
evidence, the system's name, another reviewer's labels and notes, an adjudicated consensus with
its reason and adjudicator, and every golden case id. The walk then visits every screen of the
reviewer app (review, its help and palette, home and the keys home has in the curator app, the
summary) and runs every palette entry on each, at 80x24 and 160x48; after each step no sentinel
may be on screen. Before this change `ctrl+p` -> "calib" opened the calibration dashboard, whose
drill-down showed the judge's scores and evidence and the other reviewers' labels for the item
being labelled; the curator app (`qaeval curate`) is where those screens live now.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.app import SystemCommand
from textual.command import CommandPalette

from qaeval_tui.core.config import Config, RosterMember
from qaeval_tui.core.golden.loader import load_golden
from qaeval_tui.core.review.views import CuratorOnly
from qaeval_tui.core.store.sqlite import Store
from qaeval_tui.tui.app import ReviewApp, hidden_commands
from qaeval_tui.tui.commands import commands_for
from qaeval_tui.tui.destinations import DESTINATIONS, destination
from qaeval_tui.tui.navigation import build_screen
from qaeval_tui.tui.screens.dashboard import DashboardScreen
from qaeval_tui.tui.screens.home import HomeScreen
from qaeval_tui.tui.screens.reveal import RevealDialog
from qaeval_tui.tui.screens.review import ReviewScreen
from qaeval_tui.tui.screens.summary import SummaryScreen
from tests.conftest import DEMO_GOLDEN
from tests.tui.conftest import flat, make_app, open_review, screen_text, settle
from tests.tui.scenes.review import AnyPilot, wait_until
from tests.tui.test_blindness import EVIDENCE, JUDGE, OTHER_NOTE, SYSTEM, plant_sentinels

CONSENSUS = "SENTINEL-CONSENSUS-REASON"
ADJUDICATOR = "SENTINEL-ADJUDICATOR"
VERDICT_WORDS = (JUDGE, EVIDENCE)
"""Shown, after submit, by the reveal dialog for the item just submitted (the reviewer's own)."""
ALWAYS_HIDDEN = (SYSTEM, OTHER_NOTE, CONSENSUS, ADJUDICATOR, "zoe", "reference-hub", "mechanical")
OTHER_LABEL_WORDS = (OTHER_NOTE, "zoe")
"""Shown, after submit, by the reveal dialog too: the other reviewers' labels and notes on that item."""
SIZES = [(80, 24), (160, 48)]
CURATOR_WORDS = ("Calibration", "Adjudication", "Inbox", "golden browser", "Browse")
"""Titles of the curator app's screens: not one is offered in the reviewer app."""
CURATOR_HELP = [command.help for command in commands_for("home") if command.name in hidden_commands("reviewer")]
"""What help says of the keys that open them."""


def plant(db: Path) -> list[str]:
    """The sentinels of test_blindness, plus an adjudicated consensus on every item; the case ids."""
    plant_sentinels(db)
    with Store.open(db) as store:
        for item in store.review_items():
            store.insert_adjudication(item.item_id, "faithfulness", 1, CONSENSUS, ADJUDICATOR)
    return [loaded.case.id for loaded in load_golden([DEMO_GOLDEN]).cases]


def submitted_cases(app: ReviewApp) -> set[str]:
    """Case ids of the items this reviewer has submitted: these it may see (after submit)."""
    db = app.context.services.db_path
    with Store.open(db) as store:
        items = {item.item_id: item.case_id for item in store.review_items()}
        return {items[row.label.item_id] for row in store.labels(reviewer=app.context.reviewer)}


def leaks(app: ReviewApp, text: str, case_ids: list[str]) -> list[str]:
    allowed = submitted_cases(app)
    if isinstance(app.screen, RevealDialog):  # after one's own submit: the judge and the others' labels
        words = tuple(word for word in ALWAYS_HIDDEN if word not in OTHER_LABEL_WORDS)
    else:
        words = ALWAYS_HIDDEN + VERDICT_WORDS
    found = [word for word in words if word in text]
    return found + [case_id for case_id in case_ids if case_id not in allowed and case_id in text]


def palette_text(app: ReviewApp) -> str:
    return "\n".join(f"{command.title} {command.help}" for command in app.get_system_commands(app.screen))


async def check(pilot: AnyPilot, case_ids: list[str], where: str) -> None:
    app = pilot.app
    assert isinstance(app, ReviewApp)
    await pilot.pause()
    assert leaks(app, screen_text(app), case_ids) == [], where
    assert leaks(app, palette_text(app), case_ids) == [], f"palette of {where}"
    offered = [command.title for command in app.get_system_commands(app.screen)]
    assert not [title for title in offered if any(word in title for word in CURATOR_WORDS)], where
    shown = flat(screen_text(app))
    assert not [text for text in CURATOR_HELP if text in shown], where  # not on home, in help or the key bar


async def idle(pilot: AnyPilot) -> None:
    app = pilot.app
    await wait_until(
        pilot,
        lambda: not getattr(app.screen, "busy", "") and all(worker.is_finished for worker in app.workers),
    )
    await pilot.pause()


async def back_to(pilot: AnyPilot, kind: type[Any]) -> None:
    """Escape out of whatever a command opened, until `kind` is on top again (review via home's enter)."""
    app = pilot.app
    for _ in range(4):
        if isinstance(app.screen, kind):
            return
        if kind is ReviewScreen and isinstance(app.screen, HomeScreen):
            await pilot.press("enter")
        elif kind is SummaryScreen and isinstance(app.screen, ReviewScreen):
            await pilot.press("enter")  # undo reopened the last item, its scores kept: submit it again
        elif isinstance(app.screen, ReviewScreen):
            await pilot.press("escape", "escape")  # unsaved scores: leaving asks once
        else:
            await pilot.press("escape")
        await idle(pilot)
    assert isinstance(app.screen, kind), app.screen


def commands(app: ReviewApp) -> list[SystemCommand]:
    """Every palette entry on the screen on top, but quit (it ends the walk)."""
    return [command for command in app.get_system_commands(app.screen) if not command.title.startswith("Quit")]


async def walk_palette(pilot: AnyPilot, case_ids: list[str], kind: type[Any]) -> int:
    """Run each palette entry of the `kind` screen on top, check what it shows, and come back."""
    app = pilot.app
    assert isinstance(app, ReviewApp)
    titles = sorted((command.title for command in commands(app)), key=lambda title: title.startswith("Home"))
    for title in titles:
        callback: Callable[[], object] = next(c.callback for c in commands(app) if c.title == title)
        result = callback()
        if hasattr(result, "__await__"):
            await result
        await idle(pilot)
        await check(pilot, case_ids, f"{kind.__name__} -> {title!r}")
        if not (kind is SummaryScreen and title.startswith("Home")):  # the summary's way out, run last
            await back_to(pilot, kind)
    return len(titles)


async def label_every_item(pilot: AnyPilot, case_ids: list[str]) -> None:
    """Score and submit each item left until the summary shows, checking each; an item that does not
    go away on submit fails the walk, saying why, instead of looping on it."""
    app = pilot.app
    assert isinstance(app, ReviewApp)
    with Store.open(app.context.services.db_path) as store:
        steps = store.queue_length(app.context.reviewer) + 1
    for _ in range(steps):
        if isinstance(app.screen, SummaryScreen):
            return
        screen = app.screen
        assert isinstance(screen, ReviewScreen), screen
        item = screen.item
        await check(pilot, case_ids, "an item")
        await settle(pilot, "2", "1")
        await check(pilot, case_ids, "an item, blind axes scored")
        await settle(pilot, "1", "enter")
        if app.screen is screen and screen.item is item:
            pytest.fail(f"submit did not leave the item; on screen:\n{screen_text(app)}\nnotices: {notices(app)}")
    pytest.fail(f"the queue did not end after {steps} submits; on screen:\n{screen_text(app)}")


def notices(app: ReviewApp) -> str:
    return " | ".join(str(notification.message) for notification in app._notifications)


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
async def test_no_sentinel_on_any_screen_or_palette_entry_of_the_reviewer_app(
    demo_db: Path, tmp_path: Path, size: tuple[int, int]
) -> None:
    case_ids = plant(demo_db)
    app = make_app(demo_db)
    async with app.run_test(size=size) as pilot:
        await open_review(pilot)
        await check(pilot, case_ids, "review")
        assert await walk_palette(pilot, case_ids, ReviewScreen) >= 20

        # Home: no curator screen listed, bound or offered; its keys in the curator app do nothing here.
        await back_to(pilot, ReviewScreen)
        await pilot.press("escape", "escape")  # scores typed by the walk: leaving asks once
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
        await check(pilot, case_ids, "home")
        for key in ("i", "a", "c", "b"):
            await pilot.press(key)
            await idle(pilot)
            assert isinstance(app.screen, HomeScreen), key
            await check(pilot, case_ids, f"home -> {key}")
        await walk_palette(pilot, case_ids, HomeScreen)

        # The route that leaked: ctrl+p, "calib", enter.
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"calib")
        await pilot.pause(0.3)
        await check(pilot, case_ids, "palette searching 'calib'")
        await pilot.press("enter")
        await idle(pilot)
        assert not isinstance(app.screen, DashboardScreen)
        await check(pilot, case_ids, "palette 'calib' -> enter")
        await back_to(pilot, HomeScreen)

        # The whole queue, each item checked after the blind axes too, then the summary.
        await pilot.press("enter")
        await idle(pilot)
        await label_every_item(pilot, case_ids)
        await check(pilot, case_ids, "summary")
        await walk_palette(pilot, case_ids, SummaryScreen)

        # The reviewer app offers no export, not even Textual's screenshot; a capture of the terminal
        # holds what the screen does.
        assert not [c.title for c in app.get_system_commands(app.screen) if "screenshot" in c.title.lower()]
        saved = app.save_screenshot("shot.svg", str(tmp_path))
        shot = Path(saved).read_text(encoding="utf-8")
        assert leaks(app, shot, case_ids) == []
        assert "qaeval" in shot


async def test_a_curator_screen_is_not_built_for_a_reviewer_seat(demo_db: Path) -> None:
    """The factory refuses (CuratorOnly) and the app ignores a curator destination: no accident leaks."""
    app = make_app(demo_db)
    async with app.run_test(size=(100, 32)) as pilot:
        await open_review(pilot)
        curator_entries = [entry for entry in DESTINATIONS if entry.role == "curator"]
        assert {entry.opener.name for entry in curator_entries if entry.opener} == {
            "open_inbox",
            "open_adjudication",
            "open_dashboard",
            "open_browse",
            "open_flags",
            "open_runs",
        }
        for entry in curator_entries:
            with pytest.raises(CuratorOnly, match="for curators"):
                build_screen(entry, app.context)
            app.open_destination(entry)
            await pilot.pause()
            assert isinstance(app.screen, ReviewScreen), entry.name


async def test_the_curator_app_reaches_the_calibration_dashboard_by_the_same_route(demo_db: Path) -> None:
    case_ids = plant(demo_db)
    team = (RosterMember(name="cleo", roles=("curator",)),)
    config = Config().model_copy(update={"review": Config().review.model_copy(update={"roster": team})})
    app = make_app(demo_db, "cleo", config=config, role="curator")
    async with app.run_test(size=(100, 32)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
        text = screen_text(app)
        assert "qaeval curate" in text and "Calibration" in text
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"calib")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, DashboardScreen))
        assert build_screen(destination("dashboard"), app.context) is not None  # a curator seat builds it
    assert case_ids


def test_the_curator_app_refuses_a_name_that_is_not_a_curator(demo_db: Path) -> None:
    from qaeval_tui.core.errors import UsageError

    team = (RosterMember(name="ana", roles=("reviewer", "curator")), RosterMember(name="ben"))
    config = Config().model_copy(update={"review": Config().review.model_copy(update={"roster": team})})
    with pytest.raises(UsageError, match=r"review\.roster: 'ben' is not a curator \(curators: ana\)"):
        make_app(demo_db, "ben", config=config, role="curator")
