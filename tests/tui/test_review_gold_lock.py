"""The gold lock is a fact the review screen reads from the core, not screen state (issue 13).

Once the gold answer has shown for an item, its blind axes are locked for that reviewer in the
store. An item loaded again (after going home, after `u`, in a new app on the same store) shows
the lock and the locked scores, and what the screen then lets the reviewer submit is what the core
accepts. Before this, an item left after `x x` came back unlocked and blank on screen while the
core refused any other blind score, so its submit failed forever (the sentinel walk hung on it).
"""

from __future__ import annotations

import threading
from pathlib import Path

from qaeval_tui.core.config import Config
from qaeval_tui.core.models.label import Label
from qaeval_tui.core.store.sqlite import Store
from qaeval_tui.tui.app import ReviewApp, create_app
from qaeval_tui.tui.screens.home import HomeScreen
from qaeval_tui.tui.screens.review import ReviewScreen
from qaeval_tui.tui.services import Services
from tests.conftest import DEMO_GOLDEN
from tests.tui.conftest import make_app, open_review, screen_text, settle
from tests.tui.scenes.review import AnyPilot, FixedClock, wait_until

BLIND_CANT_JUDGE = {"faithfulness": None, "citation_correctness": None}


def labels(db: Path) -> list[Label]:
    with Store.open(db) as store:
        return [row.label for row in store.labels(reviewer="ana")]


def notices(app: ReviewApp) -> str:
    return " ".join(str(notification.message) for notification in app._notifications)


async def gold_shown_after_x_x(pilot: AnyPilot) -> ReviewScreen:
    """`x x` on the first item: both blind axes "can't judge", so the gold answer shows."""
    screen = await open_review(pilot)
    await settle(pilot, "x", "x")
    await wait_until(pilot, lambda: screen.gold is not None)
    return screen


async def assert_shown_locked(pilot: AnyPilot, screen: ReviewScreen, item_id: str) -> None:
    """The item is on screen with its blind axes locked at the scores the gold answer was shown with."""
    app = pilot.app
    assert isinstance(app, ReviewApp)
    await wait_until(pilot, lambda: screen.gold is not None)
    assert screen.item is not None and screen.item.item_id == item_id
    assert screen.draft is not None
    assert screen.draft.locked == frozenset(BLIND_CANT_JUDGE)
    assert {name: screen.draft.scores.get(name) for name in BLIND_CANT_JUDGE} == BLIND_CANT_JUDGE
    assert screen.draft.axis.name == "answer_correctness"  # the one axis left to score
    text = screen_text(app)
    assert text.count("locked: gold shown") == 2 and "Gold answer: shown once" not in text


async def test_an_item_left_after_the_gold_showed_comes_back_locked_and_submits(demo_db: Path) -> None:
    app = make_app(demo_db)
    async with app.run_test(size=(100, 32)) as pilot:
        screen = await gold_shown_after_x_x(pilot)
        assert screen.item is not None
        item_id = screen.item.item_id
        await pilot.press("escape", "escape")  # partly scored: leaving asks once
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
        await pilot.press("enter")
        screen = await open_review(pilot)
        await assert_shown_locked(pilot, screen, item_id)

        await settle(pilot, "shift+tab", "2")  # a locked axis refuses, saying why
        assert "citation_correctness is locked: the gold answer was shown" in notices(app)
        assert screen.draft is not None and screen.draft.scores["citation_correctness"] is None
        await settle(pilot, "tab", "1", "enter")
        assert screen.item is not None and screen.item.item_id != item_id  # the core took it
    [label] = labels(demo_db)
    assert label.item_id == item_id and label.scores == {**BLIND_CANT_JUDGE, "answer_correctness": 1}


async def test_the_lock_survives_a_restart_and_the_locked_item_submits_as_shown(demo_db: Path) -> None:
    first = make_app(demo_db)
    async with first.run_test(size=(100, 32)) as pilot:
        screen = await gold_shown_after_x_x(pilot)
        assert screen.item is not None
        item_id = screen.item.item_id
        await pilot.press("ctrl+q", "ctrl+q")  # partly scored: quitting asks once
        await wait_until(pilot, lambda: not first.is_running)
    assert labels(demo_db) == []  # nothing partly scored was written

    again = make_app(demo_db)
    async with again.run_test(size=(100, 32)) as pilot:
        screen = await open_review(pilot)
        await assert_shown_locked(pilot, screen, item_id)
        await settle(pilot, "0", "enter")  # what the screen offers: score the open axis, submit
        assert screen.item is not None and screen.item.item_id != item_id
        assert "Not saved" not in notices(again)
    [label] = labels(demo_db)
    assert label.scores == {**BLIND_CANT_JUDGE, "answer_correctness": 0}


class HeldGold(Services):
    """The core's answer about the gold answer comes back only once `gate` is set (a slow store)."""

    def __init__(self, db: Path) -> None:
        super().__init__(Config(), db, [DEMO_GOLDEN])
        self.gate = threading.Event()
        self.gate.set()

    def gold(self, item_id: str, scores: dict[str, int | None]) -> tuple[str | None, dict[str, int | None]]:
        answer = super().gold(item_id, scores)  # recorded in the store now, answered later
        self.gate.wait(timeout=30)
        return answer


def gold_shown_in_store(db: Path, item_id: str) -> bool:
    with Store.open(db) as store:
        return store.gold_shown(item_id, "ana") is not None


async def test_a_blind_score_typed_while_the_gold_was_on_its_way_gives_way_to_the_lock(demo_db: Path) -> None:
    """Keys outrun the core: the screen takes the lock the core recorded, says so, and its submit is accepted."""
    services = HeldGold(demo_db)
    app = create_app(
        Config(),
        db_path=demo_db,
        data_paths=[DEMO_GOLDEN],
        reviewer="ana",
        clock=FixedClock(),
        deterministic=True,
        services=services,
    )
    async with app.run_test(size=(100, 32)) as pilot:
        screen = await open_review(pilot)
        assert screen.item is not None
        item_id = screen.item.item_id
        services.gate.clear()
        await pilot.press("x", "x")
        await wait_until(pilot, lambda: gold_shown_in_store(demo_db, item_id))
        await pilot.press("shift+tab", "2")  # before the screen hears of the lock
        assert screen.draft is not None and screen.draft.scores["citation_correctness"] == 2
        services.gate.set()
        await wait_until(pilot, lambda: screen.draft is not None and bool(screen.draft.locked))
        assert screen.draft.scores["citation_correctness"] is None
        assert "citation_correctness kept as scored when the gold answer was shown (locked)" in notices(app)
        assert screen.draft.axis.name == "answer_correctness"  # "2" had moved the focus on
        await settle(pilot, "1", "enter")
        assert screen.item is not None and screen.item.item_id != item_id
    [label] = labels(demo_db)
    assert label.scores == {**BLIND_CANT_JUDGE, "answer_correctness": 1}


async def test_a_reopened_item_is_locked_at_its_blind_scores_and_focuses_the_open_axis(demo_db: Path) -> None:
    app = make_app(demo_db)
    async with app.run_test(size=(100, 32)) as pilot:
        screen = await open_review(pilot)
        await settle(pilot, "2", "1", "0", "enter", "u")
        assert screen.draft is not None and screen.draft.locked == {"faithfulness", "citation_correctness"}
        assert screen.draft.axis.name == "answer_correctness" and not screen.draft.unsaved
        await settle(pilot, "2", "enter")
    first, second = labels(demo_db)
    assert (first.revision, second.revision) == (1, 2)
    assert second.scores == {"faithfulness": 2, "citation_correctness": 1, "answer_correctness": 2}
