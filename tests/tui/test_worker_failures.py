"""A core call that raises anything at all is shown as a notice by the one handler, and nothing is dropped.

The services is patched to fail with an error the project never raises itself (a RuntimeError),
in a background read (the gold answer), a load (home's overview) and a save (submit), after which the
app keeps running, and in preparing the store, after which the app exits with the error.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from qaeval_tui.core.review.session import Advance
from qaeval_tui.core.usecases.prepare import StoreOverview
from qaeval_tui.tui.app import ReviewApp
from qaeval_tui.tui.screens.home import HomeScreen
from qaeval_tui.tui.screens.review import ReviewScreen
from qaeval_tui.tui.services import Services
from tests.tui.conftest import make_app, screen_text
from tests.tui.scenes.review import review_ready, wait_until


def broken(*_args: object, **_kwargs: object) -> None:
    raise RuntimeError("disk [b]on[/b] fire")


def toasts(app: ReviewApp) -> str:
    """The text of the notices on screen (right of each toast's edge), lines joined."""
    lines = screen_text(app).splitlines()
    return " ".join(line.split("▌", 1)[1].strip() for line in lines if "▌" in line)


def labels_of(db: Path, reviewer: str) -> int:
    with closing(sqlite3.connect(db)) as connection:
        return int(connection.execute("SELECT count(*) FROM labels WHERE reviewer = ?", [reviewer]).fetchone()[0])


async def test_a_failing_background_read_is_shown_and_the_reviewer_keeps_labeling(
    demo_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Services, "gold", broken)
    app = make_app(demo_db)
    async with app.run_test(size=(100, 32), notifications=True) as pilot:
        await wait_until(pilot, lambda: review_ready(app), timeout=10)
        await pilot.press("2")  # a score: the screen asks the core about the gold answer
        await wait_until(pilot, lambda: "RuntimeError" in screen_text(app), timeout=10)
        assert "gold not updated unexpected error: RuntimeError: disk [b]on[/b] fire" in toasts(app)  # literal
        assert isinstance(app.screen, ReviewScreen) and app.screen.background.get("gold", 0) == 0
        await pilot.press("1", "2", "enter")
        await wait_until(pilot, lambda: review_ready(app) and labels_of(demo_db, "ana") == 1, timeout=10)
        assert app.is_running


async def test_a_failing_load_on_home_is_shown_and_home_stays_usable(
    demo_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def overview(_self: Services) -> StoreOverview:
        raise RuntimeError("the overview broke")

    monkeypatch.setattr(Services, "overview", overview)
    app = make_app(demo_db)
    async with app.run_test(size=(100, 32), notifications=True) as pilot:
        await wait_until(pilot, lambda: review_ready(app))
        await pilot.press("escape")
        await wait_until(pilot, lambda: "the overview broke" in toasts(app), timeout=10)
        assert isinstance(app.screen, HomeScreen)
        assert "Not loaded unexpected error: RuntimeError: the overview broke" in toasts(app)
        await pilot.press("enter")  # home still opens the review
        await wait_until(pilot, lambda: review_ready(app), timeout=10)
        assert app.is_running


async def test_a_failing_save_is_shown_the_item_stays_and_nothing_is_stored(
    demo_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def submit_and_next(_self: Services, *_args: object) -> Advance:
        raise RuntimeError("write failed")

    monkeypatch.setattr(Services, "submit_and_next", submit_and_next)
    app = make_app(demo_db)
    async with app.run_test(size=(100, 32), notifications=True) as pilot:
        await wait_until(pilot, lambda: review_ready(app))
        assert isinstance(app.screen, ReviewScreen)
        shown = app.screen.item
        await pilot.press("2", "1", "2", "enter")
        await wait_until(pilot, lambda: "write failed" in toasts(app), timeout=10)
        await wait_until(pilot, lambda: review_ready(app), timeout=10)  # settled: keys work again
        assert "Not saved unexpected error: RuntimeError: write failed" in toasts(app)
        assert app.screen.item == shown
        assert app.is_running
    assert labels_of(demo_db, "ana") == 0


async def test_a_preparation_that_breaks_unexpectedly_is_named_by_the_one_handler_and_ends_the_app(
    demo_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def prepare(_self: Services, _reviewer: str, _step: object, *, enrol: bool = True) -> None:
        raise RuntimeError("the judge fell over")

    monkeypatch.setattr(Services, "prepare", prepare)
    app = make_app(demo_db)
    shown: list[str] = []
    notify = app.notify

    def keep(message: str, **options: Any) -> None:
        shown.append(f"{options.get('title', '')}: {message}")
        notify(message, **options)

    app.notify = keep  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.failure is not None or not app.is_running)
    assert isinstance(app.failure, RuntimeError) and app.return_code == 1  # the CLI reports it after exit
    assert shown == ["Not prepared: unexpected error: RuntimeError: the judge fell over"]
