"""The flags queue screen: reviewers' flags and notes reach the curator from home, and `r` resolves one."""

from __future__ import annotations

from qaeval_tui.core.curation.flags import list_flags
from qaeval_tui.core.store.sqlite import Store
from qaeval_tui.tui.screens.flags import FlagsScreen, ResolveDialog
from tests.tui.conftest import flat, screen_text
from tests.tui.oversight_host import Workspace, oversight_app, oversight_template, workspace
from tests.tui.scenes.review import wait_until
from tests.tui.test_navigation import app_on, go_home, reach

__all__ = ["oversight_template", "workspace"]  # fixtures


async def test_home_f_opens_the_flags_queue_and_r_resolves_the_selected_flag_with_a_note(
    workspace: Workspace,
) -> None:
    with Store.open(workspace.db) as store:
        before = list_flags(store)
    assert before, "the demo labels hold flags and notes"
    app = app_on(workspace)
    async with app.run_test(size=(120, 32)) as pilot:
        await go_home(pilot)
        assert "f Flags" in flat(screen_text(app))
        await pilot.press("f")
        screen = await reach(pilot, FlagsScreen)
        await wait_until(pilot, lambda: screen.loaded)
        text = flat(screen_text(app))
        assert f"Flags queue {len(before)} open" in text and before[0].row.reviewer in text
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, ResolveDialog))
        await pilot.press(*"gold answer corrected", "enter")
        await reach(pilot, FlagsScreen)
        await wait_until(pilot, lambda: len(screen.flags) == len(before) - 1)
    with Store.open(workspace.db) as store:
        (resolved,) = list_flags(store, state="resolved")
    assert resolved.id == before[0].id
    assert (resolved.row.resolution_note, resolved.row.resolved_by) == ("gold answer corrected", "dana")


async def test_a_cycles_the_axis_filter_and_the_queue_lists_what_the_core_lists_for_it(workspace: Workspace) -> None:
    rubric = workspace.config.rubric
    with Store.open(workspace.db) as store:
        every = [flag.id for flag in list_flags(store, state="all")]
        by_axis = {axis: list_flags(store, state="all", rubric=rubric, axis=axis) for axis in rubric.axis_names}
    assert any(0 < len(flags) < len(every) for flags in by_axis.values()), "the demo flags concern some axes"
    app = oversight_app(workspace, FlagsScreen)
    async with app.run_test(size=(120, 32)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, FlagsScreen) and app.screen.loaded)
        screen = app.screen
        assert isinstance(screen, FlagsScreen)
        await pilot.press("s", "s")  # every flag, open or resolved: the state filter stays as the axis changes
        await wait_until(pilot, lambda: screen.state == "all" and [f.id for f in screen.flags] == every)
        for axis in rubric.axis_names:
            await pilot.press("a")
            wanted = [flag.id for flag in by_axis[axis]]
            await wait_until(pilot, lambda axis=axis, wanted=wanted: screen.axis == axis and screen.loaded
                             and [f.id for f in screen.flags] == wanted)  # fmt: skip
            await pilot.pause()
            text = flat(screen_text(app))
            assert f"Flags queue {len(wanted)} all · axis: {axis}" in text
            if wanted:
                assert "about " in text and axis in text.split("about ", 1)[1]
        await pilot.press("a")  # back to every axis
        await wait_until(pilot, lambda: screen.axis is None and [f.id for f in screen.flags] == every)
        assert "axis:" not in flat(screen_text(app))
