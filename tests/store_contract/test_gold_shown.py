"""The gold lock (DESIGN §4): once a reviewer was shown an item's gold answer, the blind scores they
had given are locked for them, in the store, so the lock outlives the screen and the app."""

from __future__ import annotations

import pytest

from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.rows import CorruptRowError
from tests.store_contract.conftest import Backend
from tests.store_contract.rows import seeded

BLIND = {"faithfulness": 2, "citation_correctness": None}


def test_the_first_showing_locks_per_item_and_reviewer_and_is_read_back_by_another_connection(
    backend: Backend,
) -> None:
    store = backend.open()
    mine, other, _ = seeded(store)
    assert store.gold_shown(mine, "ana") is None
    assert store.record_gold_shown(mine, "ana", BLIND) == BLIND
    assert store.record_gold_shown(mine, "ana", {"faithfulness": 0, "citation_correctness": 0}) == BLIND  # first wins
    second = backend.open()  # a restarted app reads what the first one recorded
    assert second.gold_shown(mine, "ana") == BLIND
    assert second.gold_shown(mine, "ben") is None and second.gold_shown(other, "ana") is None


def test_the_database_itself_refuses_to_rewrite_a_gold_lock(backend: Backend) -> None:
    store = backend.open()
    (item,) = seeded(store, n_items=1)
    store.record_gold_shown(item, "ana", BLIND)
    for statement in ("UPDATE gold_shown SET blind_scores_json = '{}'", "DELETE FROM gold_shown"):
        with pytest.raises(backend.rewrite_refused, match="append-only"):
            backend.execute_raw(store, statement)
    assert store.gold_shown(item, "ana") == BLIND


@pytest.mark.parametrize("scores_json", ["not json", "[1]", '{"faithfulness": "two"}', '{"faithfulness": true}'])
def test_a_lock_no_qaeval_wrote_is_a_located_error(backend: Backend, store: StoreBackend, scores_json: str) -> None:
    (item,) = seeded(store, n_items=1)
    insert = (
        "INSERT INTO gold_shown (item_id, reviewer, blind_scores_json, shown_at) "
        f"VALUES ('{item}', 'ana', '{scores_json}', '2026-11-02T00:00:00Z')"
    )
    try:
        backend.execute_raw(store, insert)
    except backend.bad_value_refused:  # PostgreSQL's check refuses it; a store older than that check may hold one
        backend.execute_raw(store, "ALTER TABLE gold_shown DROP CONSTRAINT gold_shown_scores_shape")
        backend.execute_raw(store, insert)
    with pytest.raises(CorruptRowError, match=rf"gold_shown row {item}/ana: blind_scores_json"):
        store.gold_shown(item, "ana")
