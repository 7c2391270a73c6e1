"""Leaving an item with unsaved scores asks once (issue 13), and never writes a partial label.

Quit (ctrl+q, or the palette's Quit) and escape on the review screen open one confirm dialog when
the item on screen has scores, a note or a flag not submitted; confirming, or the same key again,
leaves. An item as it was loaded (nothing typed, or reopened and unchanged) leaves at once.
"""

from __future__ import annotations

from pathlib import Path

from textual.command import CommandPalette

from qaeval_tui.core.models.label import Label
from qaeval_tui.core.store.sqlite import Store
from qaeval_tui.tui.screens.help import HelpScreen
from qaeval_tui.tui.screens.home import HomeScreen
from qaeval_tui.tui.screens.leave_dialog import LeaveDialog
from qaeval_tui.tui.screens.review import ReviewScreen
from tests.tui.conftest import make_app, open_review, screen_text, settle
from tests.tui.scenes.review import wait_until


def labels(db: Path) -> list[Label]:
    with Store.open(db) as store:
        return [row.label for row in store.labels(reviewer="ana")]


async def test_escape_on_a_partly_scored_item_asks_once_and_stays_or_goes_home(demo_db: Path) -> None:
    app = make_app(demo_db)
    async with app.run_test(size=(100, 32)) as pilot:
        screen = await open_review(pilot)
        await settle(pilot, "2")
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, LeaveDialog))
        text = screen_text(app)
        assert "Go home without saving this item?" in text and "1 of 3 axes scored" in text
        await pilot.press("n")  # stay: the score typed is still there
        await wait_until(pilot, lambda: app.screen is screen)
        assert screen.draft is not None and screen.draft.scores == {"faithfulness": 2}
        await pilot.press("escape", "escape")  # asks, and the same key again leaves
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen))
    assert labels(demo_db) == []


async def test_quit_on_a_partly_scored_item_asks_once_then_a_second_quit_quits(demo_db: Path) -> None:
    app = make_app(demo_db)
    async with app.run_test(size=(100, 32)) as pilot:
        await open_review(pilot)
        await settle(pilot, "2", "1")
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: isinstance(app.screen, LeaveDialog))
        assert "Quit without saving this item?" in screen_text(app)
        await pilot.press("escape")  # opened by quit: escape stays
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen))
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: isinstance(app.screen, LeaveDialog))
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: not app.is_running)
    assert labels(demo_db) == []


async def test_quit_from_the_palette_or_under_help_asks_too_and_enter_confirms(demo_db: Path) -> None:
    app = make_app(demo_db)
    async with app.run_test(size=(100, 32)) as pilot:
        await open_review(pilot)
        await settle(pilot, "2", "1", "0")  # every axis scored, not submitted: still unsaved
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"quit")
        await wait_until(pilot, lambda: "Quit (^q)" in screen_text(app), timeout=5)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, LeaveDialog))
        await pilot.pause()
        assert "3 of 3 axes scored" in screen_text(app)
        await pilot.press("enter")
        await wait_until(pilot, lambda: not app.is_running)
    assert labels(demo_db) == []


async def test_an_item_as_loaded_leaves_at_once_and_a_changed_note_asks(demo_db: Path) -> None:
    app = make_app(demo_db)
    async with app.run_test(size=(100, 32)) as pilot:
        await open_review(pilot)
        await pilot.press("escape")  # nothing typed: straight home
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
        await pilot.press("enter")
        screen = await open_review(pilot)
        await settle(pilot, "2", "1", "0", "enter", "u")  # reopened as saved: leaving drops nothing
        assert screen.draft is not None and not screen.draft.unsaved
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
        await pilot.press("enter")
        screen = await open_review(pilot)
        await settle(pilot, "f")  # a flag is an unsaved change
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: isinstance(app.screen, LeaveDialog))
        assert "0 of 3 axes scored, a flag" in screen_text(app)
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: not app.is_running)
    [label] = labels(demo_db)  # the one submitted before; nothing from the flagged item
    assert not label.flagged


async def test_quit_with_nothing_unsaved_quits_at_once(demo_db: Path) -> None:
    app = make_app(demo_db)
    async with app.run_test(size=(100, 32)) as pilot:
        await open_review(pilot)
        await settle(pilot, "2", "1", "0", "enter")
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: not app.is_running)
    assert len(labels(demo_db)) == 1
