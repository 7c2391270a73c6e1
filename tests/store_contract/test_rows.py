"""What goes in comes back out, as the same typed rows, in the documented order."""

from __future__ import annotations

import pytest

from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.rows import CaseRecord, ReviewItemRecord, StoredVerdict
from tests.store_contract.rows import a_run, a_verdict, an_output, seeded


def test_a_run_comes_back_as_stored(store: StoreBackend) -> None:
    items = seeded(store, n_items=2)
    assert store.get_run("r1") == a_run()
    assert store.get_run("nope") is None
    assert store.run_outputs("r1") == [an_output(0, "c0"), an_output(1, "c1")]
    assert store.verdicts(run_id="r1") == [a_verdict(items[0], "c0"), a_verdict(items[1], "c1")]
    assert store.latest_verdict(items[1]) == a_verdict(items[1], "c1")
    assert store.latest_verdict("nope") is None


def test_runs_are_listed_newest_first(store: StoreBackend) -> None:
    assert store.latest_run() is None and store.list_runs() == []
    store.insert_run(a_run("old", "2026-01-01T00:00:00Z"), [], [])
    store.insert_run(a_run("new", "2026-02-01T00:00:00Z", judge=None), [], [])
    assert [run.run_id for run in store.list_runs()] == ["new", "old"]
    latest = store.latest_run()
    assert latest is not None and latest.run_id == "new" and latest.judge_config_hash is None


def test_verdicts_filter_by_judge_and_the_bulk_read_matches_the_full_one(store: StoreBackend) -> None:
    store.insert_run(a_run("r1"), [], [a_verdict("i1", "c1", "j1", 0), a_verdict("i2", "c2", "j1", None)])
    store.insert_run(a_run("r2", judge="j2"), [], [a_verdict("i1", "c1", "j2", 2)])
    assert [v.verdict.scores for v in store.verdicts(config_hash="j1")] == [
        {"faithfulness": 0},
        {"faithfulness": None},
    ]
    assert store.latest_verdict("i1") == a_verdict("i1", "c1", "j2", 2)
    assert store.verdicts(config_hash="j1", item_id="i1") == [a_verdict("i1", "c1", "j1", 0)]
    assert store.verdicts(item_id="i1") == [a_verdict("i1", "c1", "j1", 0), a_verdict("i1", "c1", "j2", 2)]
    for judge in (None, "j1", "j2"):
        expected = [
            StoredVerdict(v.item_id, v.status, v.verdict.judge, v.verdict.scores)
            for v in store.verdicts(config_hash=judge)
        ]
        assert store.verdict_scores(config_hash=judge) == expected


def test_cases_and_review_items_come_back_typed(store: StoreBackend) -> None:
    items = seeded(store, n_items=2)
    assert store.case_rows() == [
        CaseRecord("h-c0", "c0", "frozen", {"id": "c0", "question": "q c0?"}),
        CaseRecord("h-c1", "c1", "frozen", {"id": "c1", "question": "q c1?"}),
    ]
    assert store.case_json("h-c1") == {"id": "c1", "question": "q c1?"} and store.case_json("nope") is None
    assert store.review_items() == [
        ReviewItemRecord(items[0], "c0", "h-c0", "o-c0", "r1"),
        ReviewItemRecord(items[1], "c1", "h-c1", "o-c1", "r1"),
    ]
    content = store.review_item(items[0])
    assert content is not None and content.item == store.review_items()[0]
    assert content.case == {"id": "c0", "question": "q c0?"} and content.output == an_output(0, "c0").output
    assert store.review_item("nope") is None
    assert store.case_ids_by_item() == {items[0]: "c0", items[1]: "c1"}


def test_a_review_item_whose_case_was_never_stored_says_so(store: StoreBackend) -> None:
    store.insert_run(a_run(), [an_output(0, "c0")], [])
    store.insert_review_items([ReviewItemRecord("lonely", "c0", "h-c0", "o-c0", "r1")])
    content = store.review_item("lonely")
    assert content is not None and content.case is None and content.output is not None


def test_adjudications_keep_every_ruling_and_read_the_latest(store: StoreBackend) -> None:
    store.insert_adjudication("i1", "faithfulness", 1, "first look", "dana")
    store.insert_adjudication("i1", "faithfulness", None, "cannot tell", "lee")
    store.insert_adjudication("i2", "faithfulness", 2, "clear", "dana")
    assert store.adjudications() == {("i1", "faithfulness"): None, ("i2", "faithfulness"): 2}
    assert store.count("adjudications") == 3


def test_counting_an_unknown_table_is_a_key_error(store: StoreBackend) -> None:
    with pytest.raises(KeyError):
        store.count("no_such_table")
