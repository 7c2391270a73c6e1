"""The adjudication screen lists the items one blind reviewer labelled, says why, and lets the curator rule.

Issue 12: an item labelled by one reviewer is "unresolved: one reviewer", offered for more labels or
a ruling. The store here is the demo one with ben's label on one case left out, so ana labelled it alone.
"""

from __future__ import annotations

from pathlib import Path

from qaeval_tui.core.statistics.sources import calibration_from_store
from qaeval_tui.tui.screens.adjudicate import AdjudicationScreen
from qaeval_tui.tui.screens.consensus_dialog import ConsensusDialog
from tests.conftest import DEMO_GOLDEN
from tests.tui.conftest import flat
from tests.tui.oversight_host import DEMO_LABELS, host_text
from tests.tui.scenes.host import build_labeled_store, make_workspace, oversight_app
from tests.tui.scenes.oversight import ONE_REVIEWER
from tests.tui.scenes.review import AnyPilot, wait_until


async def _ready(pilot: AnyPilot, screen: AdjudicationScreen) -> None:
    def ready() -> bool:
        entry = screen.selected()
        if not screen.loaded or screen.busy or entry is None:
            return False
        return screen.dossier is not None and screen.dossier.item_id == entry.item_id

    await wait_until(pilot, ready)
    await pilot.pause()


async def test_the_curator_sees_the_one_reviewer_item_with_the_reason_and_rules_on_it(tmp_path: Path) -> None:
    template = build_labeled_store(tmp_path / "t.db", DEMO_GOLDEN, DEMO_LABELS, leave_out=(ONE_REVIEWER,))
    workspace = make_workspace(tmp_path / "work", template, DEMO_GOLDEN)
    case_id = ONE_REVIEWER[1]
    with workspace.store() as store:
        before = calibration_from_store(store, workspace.config)
    app = oversight_app(workspace, AdjudicationScreen)
    async with app.run_test(size=(100, 32)) as pilot:
        assert isinstance(app.screen, AdjudicationScreen)
        screen: AdjudicationScreen = app.screen
        await _ready(pilot, screen)
        assert "short of labels (o)" in flat(host_text(app))
        assert all(entry.case_id != case_id for entry in screen.shown)  # not a disagreement
        await pilot.press("o")
        await _ready(pilot, screen)
        entry = screen.selected()
        assert entry is not None and (entry.case_id, entry.axis) == (case_id, "faithfulness")
        assert [score.reviewer for score in entry.scores] == ["ana"]
        text = flat(host_text(app))
        assert "one reviewer" in text
        assert "Listed: only ana labelled it blind; calibration needs 2." in text
        assert "Fix: another blind label (qaeval queue --more-labels offers it) or rule on it (enter)." in text
        assert screen.dossier is not None and screen.dossier.judge is None  # ruled blind to the judge

        await pilot.press("enter")
        assert isinstance(app.screen, ConsensusDialog)
        await pilot.press("down", "down", "tab", *"ben's label never came; the quote supports it", "enter")
        await wait_until(pilot, lambda: app.screen is screen and not screen.busy)
        await _ready(pilot, screen)
        assert all((e.item_id, e.axis) != (entry.item_id, entry.axis) for e in screen.shown)
    assert app.context.services.curated.parting_line("dana") == (  # what `qaeval curate` prints on quitting
        "dana (curator): 1 ruling(s) recorded, 0 case(s) promoted, 0 trace(s) rejected, 0 flag(s) resolved this session"
    )
    with workspace.store() as store:
        ruled = store.adjudications()
        after = calibration_from_store(store, workspace.config)
    assert (entry.item_id, "faithfulness") in ruled
    assert entry.item_id in before.axes["faithfulness"].one_reviewer_items
    assert entry.item_id not in after.axes["faithfulness"].one_reviewer_items
    assert after.axes["faithfulness"].consensus_counts["adjudicated"] == 1


async def test_the_consensus_dialog_opens_with_no_value_and_tab_walks_forward(tmp_path: Path) -> None:
    """Nothing is chosen for the curator: enter opens the dialog with no value, so a hurried enter in
    the reason records nothing; tab moves value -> reason -> section -> adjudicator."""
    template = build_labeled_store(tmp_path / "t.db", DEMO_GOLDEN, DEMO_LABELS)
    workspace = make_workspace(tmp_path / "work", template, DEMO_GOLDEN)
    app = oversight_app(workspace, AdjudicationScreen)
    async with app.run_test(size=(100, 32)) as pilot:
        screen = app.screen
        assert isinstance(screen, AdjudicationScreen)
        await _ready(pilot, screen)
        await pilot.press("enter")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ConsensusDialog) and dialog.chosen() is None
        walked = []
        for _ in range(3):
            await pilot.press("tab")
            await pilot.pause()
            walked.append(dialog.focused.id if dialog.focused else None)
        assert walked == ["consensus-reason", "consensus-cites", "consensus-adjudicator"]
        await pilot.press("shift+tab", "shift+tab", *"a reason", "enter")
        await pilot.pause()
        assert app.screen is dialog and "choose a value first" in flat(host_text(app))
    with workspace.store() as store:
        assert store.adjudications() == {}


async def test_the_screens_actions_may_be_checked_before_its_list_is_composed(tmp_path: Path) -> None:
    # Textual can ask `check_action` (the key bar, the bindings) of a screen whose children are not
    # mounted yet; that once crashed the curator app on pressing `a` (the real app in tmux, under load).
    template = build_labeled_store(tmp_path / "t.db", DEMO_GOLDEN, DEMO_LABELS)
    workspace = make_workspace(tmp_path / "work", template, DEMO_GOLDEN)
    app = oversight_app(workspace, AdjudicationScreen)
    async with app.run_test(size=(100, 32)):
        fresh = AdjudicationScreen(app.context)  # built, not yet composed
        assert fresh.selected() is None
        # Nothing under a cursor yet: ruling is shown disabled (None), a digit's ruling too.
        assert fresh.check_action("rule", ()) is None
        assert fresh.check_action("rule_with", (1,)) is None
