"""The flags queue screen: reviewers' flags and notes reach the curator from home, and `r` resolves one."""

from __future__ import annotations

from qaeval_tui.core.curation.flags import list_flags
from qaeval_tui.core.store.sqlite import Store
from qaeval_tui.tui.screens.flags import FlagsScreen, ResolveDialog
from tests.tui.conftest import flat, screen_text
from tests.tui.oversight_host import Workspace, oversight_template, workspace
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
