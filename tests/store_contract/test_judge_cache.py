"""The verdict cache: one entry per (judge config, case, output); a fresh result replaces its key's entry;
one judge config never reads another's; a hand-edited entry is a located CorruptRowError."""

from __future__ import annotations

import pytest

from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.judge_cache import CachedJudgement
from qaeval_tui.core.store.rows import CorruptRowError
from tests.store_contract.conftest import Backend


def entry(config: str, case: str, output: str, faithfulness: int) -> CachedJudgement:
    return CachedJudgement(config, case, output, {"scores": {"faithfulness": faithfulness}, "evidence": {}})


def test_entries_are_read_back_per_judge_config(store: StoreBackend) -> None:
    assert store.cache_judgements([entry("judge-a", "c1", "o1", 2), entry("judge-a", "c2", "o1", 0)]) == 2
    store.cache_judgements([entry("judge-b", "c1", "o1", 1)])
    mine = sorted(store.cached_judgements("judge-a"))
    assert [(e.case_hash, e.output_hash, e.result["scores"]) for e in mine] == [
        ("c1", "o1", {"faithfulness": 2}),
        ("c2", "o1", {"faithfulness": 0}),
    ]
    assert [e.result["scores"] for e in store.cached_judgements("judge-b")] == [{"faithfulness": 1}]
    assert store.cached_judgements("judge-c") == []
    assert store.cache_judgements([]) == 0


def test_a_fresh_result_replaces_the_entry_of_its_key(store: StoreBackend) -> None:
    store.cache_judgements([entry("judge-a", "c1", "o1", 2)])
    store.cache_judgements([entry("judge-a", "c1", "o1", 1), entry("judge-a", "c1", "o2", 0)])
    found = {
        (e.case_hash, e.output_hash): e.result["scores"]["faithfulness"] for e in store.cached_judgements("judge-a")
    }
    assert found == {("c1", "o1"): 1, ("c1", "o2"): 0}


def test_an_entry_edited_by_hand_is_a_located_error(backend: Backend, store: StoreBackend) -> None:
    store.cache_judgements([entry("judge-a", "c1", "o1", 2)])
    backend.execute_raw(store, "UPDATE judge_cache SET result_json = 'not json'")
    with pytest.raises(CorruptRowError, match="judge_cache") as caught:
        store.cached_judgements("judge-a")
    assert "result_json" in str(caught.value)
