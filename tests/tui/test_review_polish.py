"""The review screen for an all-day tool (issue 13): the gold lock, problems said in words, honest time."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from qaeval_tui.core.config import Config
from qaeval_tui.core.models.label import Label
from qaeval_tui.core.store.sqlite import Store
from qaeval_tui.tui.app import create_app
from qaeval_tui.tui.screens.help import HelpScreen
from qaeval_tui.tui.widgets.status_line import StatusLine
from tests.conftest import DEMO_GOLDEN
from tests.tui.conftest import make_app, open_review, screen_text, settle
from tests.tui.scenes.review import FixedClock, wait_until


def labels(db: Path, reviewer: str = "ana") -> list[Label]:
    with Store.open(db) as store:
        return [row.label for row in store.labels(reviewer=reviewer)]


def notices(app: object) -> str:
    return " ".join(str(n.message) for n in app._notifications)  # type: ignore[attr-defined]


async def test_gold_shows_only_after_the_blind_axes_and_then_locks_them(demo_db: Path) -> None:
    app = make_app(demo_db)
    async with app.run_test(size=(100, 32)) as pilot:
        screen = await open_review(pilot)
        await settle(pilot, "x")
        assert screen.gold is None and "Gold answer:" not in screen_text(app).replace("Gold answer: shown once", "")
        await settle(pilot, "x")  # `x x`: both blind axes are "can't judge", the gold shows
        await wait_until(pilot, lambda: screen.gold is not None)
        await settle(pilot, "shift+tab", "2")  # back to citation_correctness: refused, said why
        assert screen.draft is not None and screen.draft.scores["citation_correctness"] is None
        assert "citation_correctness is locked: the gold answer was shown" in notices(app)
        await settle(pilot, "shift+tab", "space")
        assert screen.draft.scores["faithfulness"] is None
        await settle(pilot, "tab", "tab", "1", "enter")
    [label] = labels(demo_db)
    assert label.scores == {"faithfulness": None, "citation_correctness": None, "answer_correctness": 1}
    assert not label.revealed


async def test_a_missing_score_is_said_in_words_and_cleared_with_the_next_item(demo_db: Path) -> None:
    app = make_app(demo_db)
    async with app.run_test(size=(100, 32)) as pilot:
        screen = await open_review(pilot)
        await settle(pilot, "2", "1", "enter")
        message = "answer correctness is not scored: press 0–2, or x for can't judge"
        assert message in screen_text(app)
        assert labels(demo_db) == []
        await settle(pilot, "0", "enter")
        assert screen.item is not None and screen.item.position == 2
        assert message not in screen_text(app)
        assert "saved" not in str(screen.query_one(StatusLine).render())  # the next item is not "saved"


async def test_resubmitting_an_unchanged_item_writes_nothing(demo_db: Path) -> None:
    app = make_app(demo_db)
    async with app.run_test(size=(100, 32)) as pilot:
        await open_review(pilot)
        await settle(pilot, "2", "1", "0", "enter")
        await settle(pilot, "u")
        await settle(pilot, "enter")
    assert [label.revision for label in labels(demo_db)] == [1]


async def test_time_on_other_screens_and_idle_time_past_the_cutoff_is_not_counted(demo_db: Path) -> None:
    clock = FixedClock()
    app = make_app(demo_db, clock=clock)
    async with app.run_test(size=(100, 32)) as pilot:
        screen = await open_review(pilot)
        clock.advance(10)
        await settle(pilot, "2")
        await pilot.press("question_mark")  # help on top: the item's clock stops
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        clock.advance(100)
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen)
        clock.advance(5)
        await settle(pilot, "1")
        clock.advance(3600)  # an hour away from the keyboard counts as the cut-off (300 s by default)
        await settle(pilot, "0", "enter")
    [label] = labels(demo_db)
    assert label.seconds_spent == 10 + 5 + 300


async def test_saved_is_said_only_once_the_label_is_on_disk(demo_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A slow disk: the WAL flush after each commit waits until the test lets it go. The next item
    # shows at once; "saved" waits for the flush, so a power cut before it never loses a "saved" label.
    from qaeval_tui.core.store.sqlite import connection

    real_fsync, disk = connection._fsync, threading.Event()

    def slow_fsync(path: str) -> OSError | None:
        disk.wait(timeout=30)
        return real_fsync(path)

    monkeypatch.setattr(connection, "_fsync", slow_fsync)
    app = create_app(Config(), db_path=demo_db, data_paths=[DEMO_GOLDEN], reviewer="ana", clock=FixedClock())
    async with app.run_test(size=(100, 32)) as pilot:
        screen = await open_review(pilot)
        await settle(pilot, "2", "1", "2")
        await pilot.press("enter")  # the next item does not wait for the disk
        await wait_until(pilot, lambda: screen.item is not None and screen.item.position == 2 and not screen.busy)
        assert len(labels(demo_db)) == 1  # committed: another connection reads it
        await pilot.pause(0.2)
        assert "saved" not in notices(app)  # not on disk yet: not said
        disk.set()
        await wait_until(pilot, lambda: "✓ item 1 saved" in notices(app))
