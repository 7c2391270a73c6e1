"""Rulings: the latest adjudication per (item, axis) with its reason, adjudicator and cited guideline
section; every ruling is kept, none rewritten, and a hand-edited one is a located error."""

from __future__ import annotations

import pytest

from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.rows import CorruptRowError, ItemAxis
from tests.store_contract.conftest import Backend

BAD_ROW = 99


def test_the_latest_ruling_per_item_and_axis_carries_its_reason_and_cited_section(store: StoreBackend) -> None:
    store.insert_adjudication("i1", "faithfulness", 1, "first look", "dana", "partly-supported-answers")
    store.insert_adjudication("i1", "faithfulness", 2, "second look", "lee", "faithfulness#faithfulness")
    store.insert_adjudication("i2", "faithfulness", None, "unreadable source", "dana")  # cites nothing
    rulings = store.rulings()
    assert set(rulings) == {ItemAxis("i1", "faithfulness"), ItemAxis("i2", "faithfulness")}
    latest = rulings[ItemAxis("i1", "faithfulness")]
    assert (latest.score, latest.reason, latest.adjudicator, latest.cites) == (
        2,
        "second look",
        "lee",
        "faithfulness#faithfulness",
    )
    assert latest.created_at.endswith("Z")
    unresolved = rulings[ItemAxis("i2", "faithfulness")]
    assert (unresolved.score, unresolved.cites) == (None, None)
    assert list(store.rulings("i2")) == [ItemAxis("i2", "faithfulness")]
    assert store.rulings("nothing ruled") == {}
    # the scores alone, as calibration reads them, agree with the rulings; every ruling is kept
    assert store.adjudications() == {key: ruling.score for key, ruling in rulings.items()}
    assert store.count("adjudications") == 3


def test_a_ruling_and_its_cited_section_cannot_be_rewritten(backend: Backend) -> None:
    store = backend.open()
    store.insert_adjudication("i1", "faithfulness", 1, "fits the anchor", "dana", "abstentions")
    with pytest.raises(backend.rewrite_refused):
        backend.execute_raw(store, "UPDATE adjudications SET cites = 'answers-with-no-citations'")
    assert store.rulings()[ItemAxis("i1", "faithfulness")].cites == "abstentions"


@pytest.mark.parametrize(("column", "value"), [("cites", "X'4142'"), ("reason", "X'00'")])
def test_a_hand_edited_ruling_is_named(backend: Backend, column: str, value: str) -> None:
    if not backend.text_holds_blobs:
        return  # SQLite-only: a blob in a TEXT column cannot be written to this backend's store at all
    store = backend.open()
    store.insert_adjudication("i1", "faithfulness", 2, "clear", "dana")
    fields = {"reason": "'typed by hand'", "cites": "NULL", column: value}
    try:
        backend.execute_raw(
            store,
            f"""INSERT INTO adjudications (id, item_id, axis, score, reason, adjudicator, created_at, cites)
                VALUES ({BAD_ROW}, 'i1', 'faithfulness', 1, {fields["reason"]}, 'dana', '2026-11-01T00:00:00Z',
                        {fields["cites"]})""",
        )
    except backend.bad_value_refused:
        return  # a typed column refused it outright
    with pytest.raises(CorruptRowError) as caught:
        store.rulings()
    assert f"adjudications row {BAD_ROW}: {column}" in str(caught.value)
    assert store.adjudications()[ItemAxis("i1", "faithfulness")] == 1  # the scores alone are still readable
