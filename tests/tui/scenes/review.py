"""Every screen of `qaeval review` as a scene: a store, a terminal size and the keys that reach it.

`make screenshots` and the snapshot tests play the same scenes through the same app factory, so
the committed pictures are the tested ones. Scenes use a fixed clock and a demo run with a fixed
id and time, so a picture changes only when the screen does.
"""

from __future__ import annotations

import shutil
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.worker import get_current_worker

from qaeval_tui.core.config import Config
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.running.runner import store_run
from qaeval_tui.core.store.sqlite import Store
from qaeval_tui.core.usecases.configured import plan_run
from qaeval_tui.core.usecases.prepare import PrepareReport, ensure_prepared
from qaeval_tui.tui.app import ReviewApp, create_app
from qaeval_tui.tui.services import Services

DEMO_RUN_ID = "run-demo-0001"
DEMO_TIME = "2026-10-01T09:00:00.000Z"
LITERAL_QUESTION = "WB-10 wall bracket anchor bolts"
AnyPilot = Pilot[Any]


class FixedClock:
    """A clock that moves only when told to."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def build_demo_store(db_path: Path, golden: Path, config: Config, reviewers: Sequence[str] = ("ana", "ben")) -> None:
    """The demo golden set run through the configured system and judge, queued for `reviewers`."""
    result = plan_run(config, [golden]).run()
    result = replace(result, run_id=DEMO_RUN_ID, started_at=DEMO_TIME, finished_at=DEMO_TIME)
    with Store.open(db_path) as store:
        store_run(store, result)
        for reviewer in reviewers:
            ensure_prepared(store, config, [golden], reviewer)


class HeldGateway(Services):
    """Prepares nothing: reports two steps and waits until the app exits (the preparing scene)."""

    def prepare(self, reviewer: str, step: Callable[[str], object], *, enrol: bool = True) -> PrepareReport:
        step("Loading the golden set…")
        step("Running the system and the judge: 12 of 39 cases")
        get_current_worker().cancelled_event.wait(timeout=30)
        raise UsageError("preparation was held for a screenshot")


async def wait_until(pilot: AnyPilot, ready: Callable[[], bool], timeout: float = 30.0) -> None:
    """Let the app run until `ready()` (workers post back asynchronously)."""
    waited = 0.0
    while not ready():
        if waited > timeout:
            raise TimeoutError(f"the app did not reach the expected state in {timeout} s")
        await pilot.pause(0.02)
        waited += 0.02


def review_ready(app: ReviewApp) -> bool:
    """An item is on the review screen and no key or core call is waiting."""
    from qaeval_tui.tui.screens.review import ReviewScreen

    screen = app.screen
    return isinstance(screen, ReviewScreen) and screen.item is not None and not screen.busy and not screen.pending


def idle(app: ReviewApp) -> bool:
    """Like `review_ready`, and the background reads (progress, gold answer) have come back."""
    screen = app.screen
    return review_ready(app) and not getattr(screen, "background", None)


async def press_and_settle(pilot: AnyPilot, *keys: str) -> None:
    """Press keys on the review screen and wait until any save they started has come back."""
    from qaeval_tui.tui.screens.review import ReviewScreen

    await pilot.press(*keys)
    app = pilot.app
    assert isinstance(app, ReviewApp)
    await wait_until(pilot, lambda: idle(app) or not isinstance(app.screen, ReviewScreen))


Steps = Callable[[AnyPilot], Awaitable[None]]


@dataclass(frozen=True)
class Scene:
    name: str
    title: str
    size: tuple[int, int]
    reviewer: str | None
    steps: Steps
    held: bool = False


async def play_reviewer_prompt(pilot: AnyPilot) -> None:
    from qaeval_tui.tui.screens.reviewer import ReviewerScreen

    await wait_until(
        pilot, lambda: isinstance(screen := pilot.app.screen, ReviewerScreen) and screen.standing is not None
    )
    await pilot.press(*"dana")


async def play_preparing(pilot: AnyPilot) -> None:
    from qaeval_tui.tui.screens.preparing import PreparingScreen

    await wait_until(pilot, lambda: isinstance(pilot.app.screen, PreparingScreen) and len(pilot.app.screen.steps) == 2)


async def _review(pilot: AnyPilot, *keys: str) -> None:
    app = pilot.app
    assert isinstance(app, ReviewApp)
    await wait_until(pilot, lambda: idle(app))
    if keys:
        await press_and_settle(pilot, *keys)


async def play_home(pilot: AnyPilot) -> None:
    from qaeval_tui.tui.screens.home import HomeScreen

    await _review(pilot, "2", "1", "2", "enter", "1", "x", "0", "enter")
    await pilot.press("escape")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, HomeScreen) and pilot.app.screen.loaded)


async def play_literal(pilot: AnyPilot) -> None:
    from qaeval_tui.tui.screens.review import ReviewScreen

    app = pilot.app
    assert isinstance(app, ReviewApp)
    await _review(pilot)
    for _ in range(60):
        screen = app.screen
        if isinstance(screen, ReviewScreen) and screen.item and LITERAL_QUESTION in screen.item.question:
            break
        await press_and_settle(pilot, "s")
    await press_and_settle(pilot, "n", *"checked: [bold red]x[/] is forum junk", "enter", "right_square_bracket")


async def play_summary(pilot: AnyPilot) -> None:
    from qaeval_tui.tui.screens.summary import SummaryScreen

    app = pilot.app
    assert isinstance(app, ReviewApp)
    await _review(pilot)
    flag = False
    while not isinstance(app.screen, SummaryScreen):
        flag = not flag
        await press_and_settle(pilot, "2", "2", "1", *(("f",) if flag else ()), "enter")


async def play_reveal(pilot: AnyPilot) -> None:
    from qaeval_tui.tui.screens.reveal import RevealDialog

    await _review(pilot, "2", "1", "2", "enter", "r")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, RevealDialog))


def play_keys(*keys: str) -> Steps:
    async def steps(pilot: AnyPilot) -> None:
        await _review(pilot, *keys)

    return steps


def scene_app(scene: Scene, template_db: Path, workdir: Path, golden: Path, config: Config) -> ReviewApp:
    """A fresh copy of the demo store and the app for `scene`, built by the CLI's factory."""
    workdir.mkdir(parents=True, exist_ok=True)
    db_path = workdir / f"{scene.name}.db"
    for stale in (db_path, Path(f"{db_path}-wal"), Path(f"{db_path}-shm")):
        stale.unlink(missing_ok=True)  # a leftover WAL would be replayed into the fresh copy
    shutil.copyfile(template_db, db_path)
    gateway = HeldGateway(config, db_path, [golden]) if scene.held else None
    return create_app(
        config,
        db_path=db_path,
        data_paths=[golden],
        reviewer=scene.reviewer,
        clock=FixedClock(),
        deterministic=True,
        services=gateway,
    )
