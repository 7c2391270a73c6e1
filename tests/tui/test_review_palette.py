"""The command palette lists the app's own commands and Textual's theme switcher, nothing else (issue 13).

Textual's Quit and Keys duplicated the app's quit and help (Keys docked a second key list), and
its Screenshot and Maximize are no command of the reviewer app.
"""

from __future__ import annotations

from pathlib import Path

from textual.command import CommandPalette

from qaeval_tui.tui.app import ReviewApp
from qaeval_tui.tui.screens.home import HomeScreen
from tests.tui.conftest import make_app, open_review, screen_text
from tests.tui.scenes.review import wait_until

REVIEW_TITLES = [
    "Theme",
    "Next axis (tab)",
    "Previous axis (shift+tab)",
    "Scale cursor left (←)",
    "Scale cursor right (→)",
    "Score here (space)",
    "Can't judge (x)",
    "Note (n)",
    "Flag (f)",
    "Guidelines (g)",
    "Skip (s)",
    "Submit (⏎)",
    "Undo (u)",
    "Reveal (r)",
    "Next citation (])",
    "Previous citation ([)",
    "Scroll sources down (pgdn)",
    "Scroll sources up (pgup)",
    "Back (esc)",
    "Score 0",
    "Score 1",
    "Score 2",
    "Help (?)",
    "Quit (^q)",
]
HOME_TITLES = ["Theme", "Review (⏎)", "Refresh (^r)", "Help (?)", "Quit (^q)"]


def titles(app: ReviewApp) -> list[str]:
    return [command.title for command in app.get_system_commands(app.screen)]


async def test_the_palette_shows_exactly_the_apps_commands_and_theme(demo_db: Path) -> None:
    app = make_app(demo_db)
    async with app.run_test(size=(100, 32)) as pilot:
        await open_review(pilot)
        assert titles(app) == REVIEW_TITLES
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
        assert titles(app) == HOME_TITLES

        await pilot.press("ctrl+p")  # what the reviewer sees when typing: one quit, the app's own
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"quit")
        await wait_until(pilot, lambda: "Quit (^q)" in screen_text(app), timeout=5)
        text = screen_text(app)
        assert "Quit the application as soon as possible" not in text
        assert "Every submitted label is already saved" in text


async def test_a_remapped_quit_key_is_the_one_the_palette_names(demo_db: Path) -> None:
    from qaeval_tui.core.config import Config

    config = Config()
    config = config.model_copy(update={"review": config.review.model_copy(update={"keys": {"quit": "ctrl+x"}})})
    app = make_app(demo_db, config=config)
    async with app.run_test(size=(100, 32)) as pilot:
        await open_review(pilot)
        assert titles(app)[-1] == "Quit (^x)"
        await pilot.press("ctrl+x")
        await wait_until(pilot, lambda: not app.is_running)
