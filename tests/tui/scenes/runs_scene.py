"""The stored-runs scenes: the demo run, three more runs of the same system, then the buggy hub's run.

The reference hub answers the same every time, so its runs make a flat history whose drift band the
buggy run falls out of (an alarm). Run ids and times are fixed, so the pictures never change.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from qaeval_tui.core.config import Config
from qaeval_tui.core.running.runner import store_run
from qaeval_tui.core.store.sqlite import Store
from qaeval_tui.core.usecases.configured import plan_run
from tests.tui.scenes.review import AnyPilot, wait_until

BUGGY = "qaeval_tui.bundled.buggy_hub:make_buggy_hub"
REFERENCE_RUNS = ("run-demo-0002", "run-demo-0003", "run-demo-0004")
BUGGY_RUN = "run-demo-0005"
# A case the buggy hub answers instead of abstaining: the two answers differ word by word.
CHANGED_CASE = "financing-plans-01"


def add_runs(db: Path, golden: Path) -> None:
    """Store three more reference runs and the buggy hub's run, a day apart, after the demo run."""
    config = Config()
    reference = plan_run(config, [golden]).run()
    buggy = plan_run(config, [golden], adapter=BUGGY).run()
    with Store.open(db) as store:
        for day, (run_id, result) in enumerate(
            [*((run_id, reference) for run_id in REFERENCE_RUNS), (BUGGY_RUN, buggy)], start=2
        ):
            at = f"2026-10-{day:02d}T09:00:00.000Z"
            store_run(store, replace(result, run_id=run_id, started_at=at, finished_at=at))


async def play_runs(pilot: AnyPilot) -> None:
    from qaeval_tui.tui.screens.runs import RunsScreen

    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, RunsScreen) and app.screen.runs is not None)


async def play_run_table(pilot: AnyPilot) -> None:
    from qaeval_tui.tui.screens.run_table import RunTableScreen

    await play_runs(pilot)
    await pilot.press("enter")
    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, RunTableScreen) and app.screen.table is not None)
    await pilot.press("f")


async def play_run_case(pilot: AnyPilot) -> None:
    from qaeval_tui.tui.screens.run_case import RunCaseScreen

    await play_run_table(pilot)
    await pilot.press("enter")
    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, RunCaseScreen) and app.screen.detail is not None)


async def play_run_diff(pilot: AnyPilot) -> None:
    from qaeval_tui.tui.screens.run_diff import RunDiffScreen

    await play_runs(pilot)
    await pilot.press("d")
    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, RunDiffScreen) and app.screen.diff is not None)
    screen = app.screen
    assert isinstance(screen, RunDiffScreen) and screen.diff is not None
    row = [change.case_id for change in screen.diff.changed].index(CHANGED_CASE)
    for _ in range(row):
        await pilot.press("down")
