"""The runs screens in the curator app: from home, a run's cases filtered, one case, two runs compared.

The store holds the demo run, three more of the reference hub and the buggy hub's run (the scenes'
`add_runs`); what each screen lists is checked against what the core lists for the same store.
"""

from __future__ import annotations

from qaeval_tui.core.runs.compare import compare_runs
from qaeval_tui.core.runs.views import CaseFilter, run_table
from qaeval_tui.core.store.sqlite import Store
from qaeval_tui.tui.screens.run_case import RunCaseScreen
from qaeval_tui.tui.screens.run_diff import RunDiffScreen
from qaeval_tui.tui.screens.run_table import RunTableScreen
from qaeval_tui.tui.screens.runs import RunsScreen
from tests.tui.conftest import flat, screen_text
from tests.tui.oversight_host import Workspace, oversight_template, workspace
from tests.tui.scenes.review import wait_until
from tests.tui.scenes.runs_scene import BUGGY_RUN, add_runs
from tests.tui.test_navigation import app_on, go_home, reach

__all__ = ["oversight_template", "workspace"]  # fixtures


async def test_home_r_opens_the_runs_and_a_runs_cases_filter_and_open(workspace: Workspace) -> None:
    add_runs(workspace.db, workspace.golden)
    with Store.open(workspace.db) as store:
        failing = [row.case_id for row in run_table(store, BUGGY_RUN, CaseFilter(failing=True)).rows]
        judged = run_table(store, BUGGY_RUN, CaseFilter(judge_errors=True)).rows
    app = app_on(workspace)
    async with app.run_test(size=(130, 36)) as pilot:
        await go_home(pilot)
        assert "r Runs" in flat(screen_text(app))
        await pilot.press("r")
        runs = await reach(pilot, RunsScreen)
        await wait_until(pilot, lambda: runs.runs is not None)
        text = flat(screen_text(app))
        assert "5 run(s), newest first" in text and "citation_correctness" in text and "alarm" in text
        await pilot.press("enter")
        table = await reach(pilot, RunTableScreen)
        await wait_until(pilot, lambda: table.table is not None)
        assert len(table.shown) == 39
        await pilot.press("f")
        assert [row.case_id for row in table.shown] == failing
        await pilot.press("j")
        assert [row.case_id for row in table.shown] == [row.case_id for row in judged if not row.passed]
        await pilot.press("c", "s")
        assert table.criteria.slice is not None and all(
            row.slices[table.criteria.slice[0]] == table.criteria.slice[1] for row in table.shown
        )
        await pilot.press("c", "enter")
        case = await reach(pilot, RunCaseScreen)
        await wait_until(pilot, lambda: case.detail is not None)
        assert case.detail is not None and case.detail.row.case_id == table.shown[0].case_id
        assert "citation_resolvability" in flat(screen_text(app))


async def test_d_compares_the_selected_run_with_the_marked_one(workspace: Workspace) -> None:
    add_runs(workspace.db, workspace.golden)
    with Store.open(workspace.db) as store:
        expected = [change.case_id for change in compare_runs(store, "run-demo-0001", BUGGY_RUN).changed]
    app = app_on(workspace)
    async with app.run_test(size=(130, 36)) as pilot:
        await go_home(pilot)
        await pilot.press("r")
        runs = await reach(pilot, RunsScreen)
        await wait_until(pilot, lambda: runs.runs is not None)
        await pilot.press(*["down"] * 4, "m", *["up"] * 4, "d")  # the oldest run is A, the newest B
        diff = await reach(pilot, RunDiffScreen)
        await wait_until(pilot, lambda: diff.diff is not None)
        assert diff.diff is not None and (diff.diff.a.run_id, diff.diff.b.run_id) == ("run-demo-0001", BUGGY_RUN)
        assert [change.case_id for change in diff.diff.changed] == expected
        text = flat(screen_text(app))
        assert "regressed" in text and "A · pass" in text and "B · fail" in text
