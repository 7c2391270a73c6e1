"""`qaeval queue --more-labels`: items one blind reviewer labelled are offered to another who has not.

Issue 12: an item labelled by one reviewer is "unresolved: one reviewer", counted and offered for
more labels. These tests drive the real commands over a store and read the outcome back from the
store (the queues) and from `qaeval calibrate --json` (the consensus counts).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from qaeval_tui.cli.main import app
from qaeval_tui.core.config import Config
from qaeval_tui.core.review.session import ReviewSession
from qaeval_tui.core.store.sqlite import Store
from tests.core.review_fixtures import FULL, store_with_run

runner = CliRunner()


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def label(db: Path, reviewer: str, items: list[str]) -> None:
    with Store.open(db) as store:
        session = ReviewSession(store, Config(), reviewer)
        for item in items:
            session.submit(item, FULL, "", False, 1.0)


def one_reviewer(db: Path) -> int:
    result = runner.invoke(app, ["calibrate", "--db", str(db), "--json"])
    assert result.exit_code in (0, 1, 3), result.output
    counts = {axis["consensus"]["one_reviewer"] for axis in json.loads(result.stdout)["axes"].values()}
    assert len(counts) == 1
    return int(counts.pop())


def test_the_second_reviewer_gets_exactly_the_single_reviewer_items_and_labelling_them_resolves_them(
    tmp_path: Path,
) -> None:
    db = tmp_path / "q.db"
    store, items = store_with_run(db, n_items=6)
    store.close()
    queued = runner.invoke(app, ["queue", "--db", "q.db", "--reviewers", "ana", "--overlap", "1"])
    assert queued.exit_code == 0, queued.output
    label(db, "ana", items[:4])  # ana labels four of her six; two stay unlabelled by anyone
    with Store.open(db) as store:
        ana_before = store.queue_item_ids("ana")
    assert one_reviewer(db) == 4

    result = runner.invoke(app, ["queue", "--db", "q.db", "--more-labels", "--reviewers", "ana,ben", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["short_items"], data["newly_assigned_items"], data["load"]) == (4, 4, {"ben": 4})
    with Store.open(db) as store:
        assert set(store.queue_item_ids("ben")) == set(items[:4])
        assert store.queue_item_ids("ana") == ana_before  # never to the reviewer who already labelled

    again = runner.invoke(app, ["queue", "--db", "q.db", "--more-labels", "--reviewers", "ana,ben", "--json"])
    assert json.loads(again.stdout)["newly_assigned_items"] == 0  # already offered: nothing doubles up
    assert json.loads(again.stdout)["already_offered"] == 4

    label(db, "ben", items[:4])
    assert one_reviewer(db) == 0


def test_an_item_is_never_offered_to_anyone_who_labelled_it(tmp_path: Path) -> None:
    db = tmp_path / "q.db"
    store, _ = store_with_run(db, n_items=6)
    store.close()
    assert (
        runner.invoke(app, ["queue", "--db", "q.db", "--reviewers", "ana,ben,chloe", "--overlap", "1"]).exit_code == 0
    )
    with Store.open(db) as store:
        mine = {name: store.queue_item_ids(name) for name in ("ana", "ben", "chloe")}
    for name, queue in mine.items():
        label(db, name, queue)
    result = runner.invoke(app, ["queue", "--db", "q.db", "--more-labels", "--reviewers", "ana,ben,chloe", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["newly_assigned_items"] == 6
    with Store.open(db) as store:
        for name in mine:
            added = store.queue_item_ids(name)[len(mine[name]) :]
            labelled = {row.label.item_id for row in store.labels(reviewer=name)}
            assert added and not set(added) & labelled
    for name in mine:
        with Store.open(db) as store:
            todo = store.queue_item_ids(name)[len(mine[name]) :]
        label(db, name, todo)
    assert one_reviewer(db) == 0


def test_a_lone_reviewer_team_leaves_the_items_short_and_says_so(tmp_path: Path) -> None:
    db = tmp_path / "q.db"
    store, items = store_with_run(db, n_items=2)
    store.close()
    runner.invoke(app, ["queue", "--db", "q.db", "--reviewers", "ana", "--overlap", "1"])
    label(db, "ana", items)
    result = runner.invoke(app, ["queue", "--db", "q.db", "--more-labels", "--reviewers", "ana"])
    assert result.exit_code == 0, result.output
    assert "2 item(s) still short: every other reviewer has labelled them" in result.stdout


@pytest.mark.parametrize("flag", [["--overlap", "2"], ["--replace"], ["--run", "run-1"]])
def test_more_labels_refuses_the_options_of_a_queue_build(tmp_path: Path, flag: list[str]) -> None:
    store_with_run(tmp_path / "q.db", n_items=2)[0].close()
    result = runner.invoke(app, ["queue", "--db", "q.db", "--more-labels", "--reviewers", "a,b", *flag])
    assert result.exit_code == 2 and "--more-labels assigns existing items" in result.stderr
    with Store.open(tmp_path / "q.db") as store:
        assert store.assignments() == []


def test_a_reviewer_with_an_exposed_label_is_not_offered_the_item(tmp_path: Path) -> None:
    """An exposed label (made after a reveal) is not blind, yet its author has seen the item: never again."""
    db = tmp_path / "q.db"
    store, items = store_with_run(db, n_items=1)
    store.close()
    runner.invoke(app, ["queue", "--db", "q.db", "--reviewers", "ana", "--overlap", "1"])
    label(db, "ana", items)
    with Store.open(db) as store:
        blind = store.labels(reviewer="ana")[0].label
        exposed = blind.model_copy(update={"reviewer": "ben", "revealed": True})
        store.insert_labels([exposed], origin="import")
    result = runner.invoke(app, ["queue", "--db", "q.db", "--more-labels", "--reviewers", "ana,ben", "--json"])
    data = json.loads(result.stdout)
    assert (data["short_items"], data["newly_assigned_items"], data["no_reviewer_left"]) == (1, 0, items)
    with Store.open(db) as store:
        assert store.queue_item_ids("ben") == []


def test_an_item_with_one_value_beside_a_cant_judge_is_offered_to_a_third_reviewer(tmp_path: Path) -> None:
    """Calibration lists it short ("one value beside a can't-judge"); --more-labels must offer it."""
    db = tmp_path / "q.db"
    store, items = store_with_run(db, n_items=1)
    store.close()
    runner.invoke(app, ["queue", "--db", "q.db", "--reviewers", "ana,ben", "--overlap", "2"])
    label(db, "ana", items)
    with Store.open(db) as store:
        ReviewSession(store, Config(), "ben").submit(items[0], {**FULL, "faithfulness": None}, "", False, 1.0)
    result = runner.invoke(app, ["queue", "--db", "q.db", "--more-labels", "--reviewers", "ana,ben,chloe", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["short_items"], data["newly_assigned_items"], data["load"]) == (1, 1, {"chloe": 1})
    with Store.open(db) as store:
        assert store.queue_item_ids("chloe") == items
