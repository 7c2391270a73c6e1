"""Exposure (DESIGN §4): a person who saw an item's hidden information in a curator view labels it
not blind afterwards, and the store says why."""

from __future__ import annotations

import pytest

from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.rows import QueueEntry
from tests.store_contract.conftest import Backend
from tests.store_contract.rows import a_draft, seeded

SEEN = "judge verdict, other reviewers' labels, consensus"


def test_an_exposure_on_ones_own_pending_item_makes_the_next_label_not_blind_with_the_reason(
    store: StoreBackend,
) -> None:
    mine, other, _ = seeded(store)
    store.write_assignments([QueueEntry("ana", mine, 0, 7)], replace=False)
    assert store.record_exposure("ana", [mine, other], "dashboard drill-down", SEEN) == 1  # not ana's: no event
    assert store.record_exposure("ana", [mine], "dashboard drill-down", SEEN) == 0  # the first time counts
    (event,) = store.exposures(person="ana")
    assert (event.item_id, event.person, event.view, event.seen) == (mine, "ana", "dashboard drill-down", SEEN)
    assert store.unblinded_at() == {(mine, "ana"): event.seen_at}

    label = store.append_label(a_draft(mine)).label
    assert label.revealed  # not blind: agreement and calibration skip it as they skip post-reveal revisions
    reason = store.not_blind_reasons(reviewer="ana")[(mine, "ana", 1)]
    assert reason == f"exposed: saw {SEEN} in the dashboard drill-down at {event.seen_at}"
    assert not store.append_label(a_draft(mine, reviewer="ben")).label.revealed  # ben saw nothing
    assert store.not_blind_reasons(reviewer="ben") == {}


def test_an_item_one_labelled_counts_as_ones_own_and_a_reveal_is_the_reason_given_first(store: StoreBackend) -> None:
    (item,) = seeded(store, n_items=1)
    store.append_label(a_draft(item))  # labelled (imported or reassigned away): a revision may still follow
    assert store.record_exposure("ana", [item], "adjudication", "other reviewers' labels") == 1
    store.record_reveal(item, "ana")
    store.append_label(a_draft(item))
    assert store.not_blind_reasons()[(item, "ana", 2)].startswith("revealed the judge verdict at ")
    assert (item, "ana", 1) not in store.not_blind_reasons()  # the blind label made before stays blind


def test_the_database_itself_refuses_to_rewrite_an_exposure(backend: Backend) -> None:
    store = backend.open()
    (item,) = seeded(store, n_items=1)
    store.write_assignments([QueueEntry("ana", item, 0, 7)], replace=False)
    store.record_exposure("ana", [item], "item dossier", SEEN)
    for statement in ("UPDATE exposures SET seen = 'nothing'", "DELETE FROM exposures"):
        with pytest.raises(backend.rewrite_refused, match="append-only"):
            backend.execute_raw(store, statement)
    assert len(store.exposures()) == 1
