"""The verdict cache: one entry per (judge config, case, output); a fresh result replaces its key's entry;
one judge config never reads another's; a hand-edited entry is a located CorruptRowError."""

from __future__ import annotations

import json
from typing import Any

import pytest

from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.judge_cache import CachedJudgement
from qaeval_tui.core.store.rows import CorruptRowError
from tests.store_contract.conftest import Backend


def entry(config: str, case: str, output: str, faithfulness: int) -> CachedJudgement:
    return CachedJudgement(config, case, output, {"scores": {"faithfulness": faithfulness}, "evidence": {}})


def cached(store: StoreBackend, config: str) -> list[tuple[str, str, dict[str, Any]]]:
    """The entries of one judge config, each result's text read back as the document written."""
    return sorted((case, output, json.loads(text)) for case, output, text in store.cached_judgement_texts(config))


def test_entries_are_read_back_per_judge_config(store: StoreBackend) -> None:
    assert store.cache_judgements([entry("judge-a", "c1", "o1", 2), entry("judge-a", "c2", "o1", 0)]) == 2
    store.cache_judgements([entry("judge-b", "c1", "o1", 1)])
    mine = cached(store, "judge-a")
    assert [(case, output, result["scores"]) for case, output, result in mine] == [
        ("c1", "o1", {"faithfulness": 2}),
        ("c2", "o1", {"faithfulness": 0}),
    ]
    assert [result["scores"] for _, _, result in cached(store, "judge-b")] == [{"faithfulness": 1}]
    assert cached(store, "judge-c") == []
    assert store.cache_judgements([]) == 0


def test_a_fresh_result_replaces_the_entry_of_its_key(store: StoreBackend) -> None:
    store.cache_judgements([entry("judge-a", "c1", "o1", 2)])
    store.cache_judgements([entry("judge-a", "c1", "o1", 1), entry("judge-a", "c1", "o2", 0)])
    found = {(case, output): result["scores"]["faithfulness"] for case, output, result in cached(store, "judge-a")}
    assert found == {("c1", "o1"): 1, ("c1", "o2"): 0}


def test_an_entry_edited_by_hand_is_a_located_error(backend: Backend, store: StoreBackend) -> None:
    store.cache_judgements([entry("judge-a", "c1", "o1", 2)])
    backend.execute_raw(store, "UPDATE judge_cache SET result_json = 'not json'")
    with pytest.raises(CorruptRowError, match="judge_cache") as caught:
        store.cached_judgement_texts("judge-a")
    assert "result_json" in str(caught.value)
