"""The dashboard's one computation: the CLI's figures, confusion cells that hold exactly their items, progress."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from qaeval_tui.core.config import Config
from qaeval_tui.core.models.label import Label
from qaeval_tui.core.review.labels_io import import_labels
from qaeval_tui.core.review.session import assign, build_review_items
from qaeval_tui.core.running.runner import store_run
from qaeval_tui.core.statistics.sources import agreement_from_store, calibration_from_store
from qaeval_tui.core.store.sqlite import Store
from qaeval_tui.core.usecases.configured import plan_run
from qaeval_tui.core.usecases.dashboard import STEPS, compute_dashboard, reviewer_progress
from tests.conftest import DEMO_GOLDEN, REPO
from tests.core.review_fixtures import store_with_run

CONFIG = Config()


def label(item: str, reviewer: str, scores: dict[str, int | None], **fields: Any) -> Label:
    return Label(
        item_id=item, case_id="c", reviewer=reviewer, scores=scores, note="",
        flagged=fields.pop("flagged", False), skipped=fields.pop("skipped", False), rubric_version="1",
        revealed=fields.pop("revealed", False), revision=fields.pop("revision", 1),
        created_at="2026-01-01T00:00:00Z", seconds_spent=fields.pop("seconds", 10.0),
    )  # fmt: skip


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """The demo run with the committed synthetic labels of three reviewers."""
    store = Store.open(tmp_path_factory.mktemp("dash") / "demo.db")
    result = plan_run(CONFIG, [DEMO_GOLDEN]).run()
    store_run(store, result)
    build_review_items(store, result.run_id)
    import_labels(store, [REPO / "labels" / f"{name}.jsonl" for name in ("ana", "ben", "chloe")], CONFIG.rubric)
    yield store
    store.close()


def test_the_dashboard_shows_the_same_figures_as_the_cli(demo_store: Store) -> None:
    steps: list[tuple[int, str]] = []
    dashboard = compute_dashboard(demo_store, CONFIG, step=lambda index, text: steps.append((index, text)))
    assert steps == list(enumerate(STEPS))
    calibration, agreement = calibration_from_store(demo_store, CONFIG), agreement_from_store(demo_store, CONFIG)
    assert dashboard.calibration is not None and dashboard.agreement is not None
    assert dashboard.calibration.to_json() == calibration.to_json()
    assert dashboard.agreement.to_json() == agreement.to_json()
    assert dashboard.calibration.axes["citation_correctness"].verdict == "RETUNE"  # the demo's lenient judge


def test_each_confusion_cell_holds_exactly_its_items(demo_store: Store) -> None:
    dashboard = compute_dashboard(demo_store, CONFIG)
    case_of = demo_store.case_ids_by_item()
    for axis in CONFIG.rubric.axis_names:
        view = dashboard.confusion(axis)
        assert view is not None and view.n == dashboard.calibration.axes[axis].n  # type: ignore[union-attr]
        seen: set[str] = set()
        for human in view.scale:
            for judge in view.scale:
                cell = dashboard.items_in_cell(axis, judge, human)
                assert len(cell) == view.count(human, judge)
                assert all((c.human, c.judge) == (human, judge) and case_of[c.item_id] == c.case_id for c in cell)
                seen.update(c.item_id for c in cell)
        assert len(seen) == view.n
    assert dashboard.items_in_cell("no-such-axis", 0, 0) == []


def test_an_adjudication_moves_an_item_between_cells(demo_store: Store, tmp_path: Path) -> None:
    dashboard = compute_dashboard(demo_store, CONFIG)
    report = dashboard.calibration
    assert report is not None
    axis = "citation_correctness"
    unresolved = report.axes[axis].unresolved_items[0]
    # Rule on a copy of the demo store, so the module's store stays as committed.
    copy = tmp_path / "ruled.db"
    demo_store.conn.execute("VACUUM INTO ?", (str(copy),))
    with Store.open(copy) as ruled:
        ruled.insert_adjudication(unresolved, axis, 0, "settled", "dana")
        after = compute_dashboard(ruled, CONFIG)
    cells = [c for judge in (0, 1, 2) for c in after.items_in_cell(axis, judge, 0) if c.item_id == unresolved]
    assert len(cells) == 1 and cells[0].consensus_source == "adjudicated"
    assert after.confusion(axis).n == report.axes[axis].n + 1  # type: ignore[union-attr]


def test_reviewer_progress_counts_like_the_review_screen(tmp_path: Path) -> None:
    store, items = store_with_run(tmp_path / "p.db", n_items=4)
    with store:
        build_review_items(store, "run-1")
        assign(store, ("ana", "ben"), 2, seed=1)
        f: dict[str, int | None] = {"faithfulness": 1}
        store.insert_labels(
            [
                label(items[0], "ana", f, seconds=30.0), label(items[1], "ana", {}, skipped=True),
                label(items[2], "ana", {}, skipped=True), label(items[2], "ana", f, revision=2, flagged=True),
                label(items[0], "ben", f), label(items[0], "ben", f, revision=2, revealed=True),
                label("elsewhere", "zoe", f),  # imported, never queued
            ],
            origin="test",
        )  # fmt: skip
        progress = {p.reviewer: p for p in reviewer_progress(store.labels(), store.assignments())}
    ana, ben, zoe = progress["ana"], progress["ben"], progress["zoe"]
    assert (ana.assigned, ana.done, ana.skipped, ana.flagged, ana.labeled) == (4, 2, 1, 1, 2)
    assert ana.seconds_spent == 60.0
    assert (ben.done, ben.post_reveal) == (1, 1)
    assert (zoe.assigned, zoe.done, zoe.labeled) == (0, 0, 1)


def test_missing_labels_or_verdicts_are_reasons_not_errors(tmp_path: Path) -> None:
    with Store.open(tmp_path / "empty.db") as empty:
        dashboard = compute_dashboard(empty, CONFIG)
    assert dashboard.agreement is None and dashboard.calibration is None
    assert "no usable labels" in (dashboard.agreement_problem or "")
    assert dashboard.reviewers == () and dashboard.confusion("faithfulness") is None

    with Store.open(tmp_path / "labels-only.db") as store:
        store.insert_labels([label("i1", "ana", {"faithfulness": 1}), label("i1", "ben", {"faithfulness": 2})], "test")
        dashboard = compute_dashboard(store, CONFIG)
    assert dashboard.agreement is not None and dashboard.calibration is None
    assert "no judge verdicts" in (dashboard.calibration_problem or "")
