"""Issue 13 on the oversight screens: a person with pending items who drills into one of them (or
opens its golden case) is recorded as exposed, and the adjudication screen shows a disagreement
its curator labelled locked."""

from __future__ import annotations

from qaeval_tui.core.config import Config
from qaeval_tui.core.review.session import ReviewSession
from qaeval_tui.core.store.rows import QueueEntry
from qaeval_tui.tui.screens.adjudicate import AdjudicationScreen
from qaeval_tui.tui.screens.browse import BrowseScreen
from qaeval_tui.tui.screens.case_detail import CaseDetailScreen
from qaeval_tui.tui.screens.consensus_dialog import ConsensusDialog
from qaeval_tui.tui.screens.dashboard import DashboardScreen
from qaeval_tui.tui.screens.drilldown import DrilldownScreen
from qaeval_tui.tui.widgets.confusion_grid import ConfusionGrid
from tests.tui.conftest import flat
from tests.tui.oversight_host import Workspace, host_text, oversight_app, oversight_template, workspace
from tests.tui.scenes.review import wait_until
from tests.tui.test_oversight_screens import adjudication_ready, dashboard_ready

__all__ = ["oversight_template", "workspace"]  # fixtures


async def test_drilling_into_a_cell_records_the_exposure_of_a_person_whose_item_it_is(workspace: Workspace) -> None:
    with workspace.store() as store:
        items = [item.item_id for item in store.review_items()]
        store.write_assignments((QueueEntry("dora", item, i, 1) for i, item in enumerate(items)), replace=False)
    app = oversight_app(workspace, DashboardScreen, curator="dora")
    async with app.run_test(size=(100, 40)) as pilot:
        await dashboard_ready(pilot)
        await pilot.press("tab")  # the citation_correctness grid, as in the dashboard's own test
        assert isinstance(app.screen.focused, ConfusionGrid)
        await pilot.press("up", "up", "up", "left", "left", "left", "down", "right", "right")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, DrilldownScreen) and app.screen.dossier is not None)
        drill = app.screen
        assert isinstance(drill, DrilldownScreen) and drill.dossier is not None
        shown = drill.dossier.item_id
    with workspace.store() as store:
        (event,) = store.exposures(person="dora")
        assert (event.item_id, event.view) == (shown, "dashboard drill-down")
        assert "the judge verdict and evidence" in event.seen and "other reviewers' labels" in event.seen
        case_id = store.case_ids_by_item()[shown]
    with workspace.store() as store:
        session = ReviewSession(store, Config(), "dora")
        label = session.submit(
            shown, {"faithfulness": 1, "citation_correctness": 1, "answer_correctness": 1}, "", False, 1.0
        )
        assert label.revealed and label.case_id == case_id
        assert store.not_blind_reasons(reviewer="dora")[(shown, "dora", 1)].startswith("exposed: saw ")


async def test_a_disagreement_the_curator_labelled_is_shown_locked_and_cannot_be_ruled(workspace: Workspace) -> None:
    app = oversight_app(workspace, AdjudicationScreen, curator="ben")
    async with app.run_test(size=(100, 32)) as pilot:
        screen = await adjudication_ready(pilot)
        entry = screen.shown[0]
        assert "ben" in entry.labelled_by
        text = flat(host_text(app))
        assert f"Locked: ben labelled {entry.case_id}, so cannot rule on it" in text
        assert screen.check_action("rule", ()) is None  # shown, disabled
        value = entry.scores[0].value
        await pilot.press("enter", str(value if value is not None else 0))
        await pilot.pause()
        assert not isinstance(app.screen, ConsensusDialog)
        assert "cannot rule on it" in flat(host_text(app))
    with workspace.store() as store:
        assert store.adjudications() == {}
        assert {e.view for e in store.exposures(person="ben")} >= {"adjudication list", "adjudication"}


async def test_opening_a_golden_case_whose_item_one_labels_records_the_exposure(workspace: Workspace) -> None:
    with workspace.store() as store:
        items = [item for item, case in store.case_ids_by_item().items() if case == "error-e204-meaning-01"]
        assert items
        store.write_assignments((QueueEntry("dora", item, i, 1) for i, item in enumerate(items)), replace=False)
    app = oversight_app(workspace, BrowseScreen, curator="dora")
    async with app.run_test(size=(100, 32)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, BrowseScreen) and app.screen.golden is not None)
        await pilot.press("slash", *"error-E204", "enter", "enter")
        assert isinstance(app.screen, CaseDetailScreen)
        await wait_until(pilot, lambda: not app.workers)  # the exposure is written by a worker
    with workspace.store() as store:
        events = store.exposures(person="dora")
    assert {e.item_id for e in events} == set(items) and {e.view for e in events} == {"golden browser"}
    assert "the gold answer" in events[0].seen
