"""A ruling cites a guideline section from the adjudication screen: the store keeps the section's id,
and the ruling's reason is shown with the section's title under the list and in the item's dossier."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Select

from qaeval_tui.core.store.rows import ItemAxis
from qaeval_tui.tui.screens.adjudicate import AdjudicationScreen
from qaeval_tui.tui.screens.consensus_dialog import ConsensusDialog
from tests.tui.conftest import flat
from tests.tui.oversight_host import Workspace, host_text, oversight_app, oversight_template, workspace
from tests.tui.scenes.review import wait_until
from tests.tui.test_oversight_screens import adjudication_ready

__all__ = ["Path", "oversight_template", "workspace"]  # fixtures

REASON = "one detail goes beyond the source"
TITLE = "Partly supported answers (general guidelines)"


async def test_a_ruling_cites_a_guideline_section_and_is_shown_with_its_reason(workspace: Workspace) -> None:
    app = oversight_app(workspace, AdjudicationScreen)
    async with app.run_test(size=(110, 44)) as pilot:
        screen = await adjudication_ready(pilot)
        entry = screen.shown[0]
        value = next(score.value for score in entry.scores if score.value is not None)
        await pilot.press(str(value))  # the value chosen: focus on the reason
        await wait_until(pilot, lambda: isinstance(app.screen, ConsensusDialog))
        dialog = app.screen
        assert isinstance(dialog, ConsensusDialog)
        await pilot.press(*REASON, "tab")  # on to the guideline section
        picker = dialog.query_one("#consensus-cites", Select)
        await wait_until(pilot, lambda: picker.has_focus)
        assert "Cites guideline section" in flat(host_text(app))
        await pilot.press("enter")  # open the list: none, then the general sections, then the axis's own
        await pilot.pause()
        for _ in range(4):  # labeling-guidelines, abstentions, answers-with-no-citations, partly-supported-answers
            await pilot.press("down")
        await pilot.press("enter")
        await wait_until(pilot, lambda: picker.value == "partly-supported-answers")
        await pilot.press("enter")  # focus went on to the adjudicator: enter records
        await wait_until(pilot, lambda: isinstance(app.screen, AdjudicationScreen) and not screen.busy)
        await pilot.press("a")  # show settled disagreements: the one just ruled on, after the open ones
        await wait_until(pilot, lambda: any(e.adjudicated for e in screen.shown))
        settled = [(e.item_id, e.axis) for e in screen.shown].index((entry.item_id, entry.axis))
        await pilot.press(*["down"] * settled)
        await wait_until(
            pilot,
            lambda: (
                (ruled := screen.selected()) is not None
                and (ruled.item_id, ruled.axis) == (entry.item_id, entry.axis)
                and screen.dossier is not None
                and screen.dossier.item_id == entry.item_id
                and bool(screen.dossier.rulings)
            ),
        )
        await pilot.pause()
        text = flat(host_text(app))
        in_force = f"ruled {value} by dana: “{REASON}” · cites {TITLE}"
        assert f"In force: {in_force}" in text  # under the list
        assert f"ruling on {entry.axis}: {in_force}" in text  # in the item's dossier
    with workspace.store() as store:
        row = store.rulings()[ItemAxis(entry.item_id, entry.axis)]
    assert (row.score, row.reason, row.adjudicator, row.cites) == (value, REASON, "dana", "partly-supported-answers")
