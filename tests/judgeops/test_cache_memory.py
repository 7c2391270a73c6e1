"""A rerun holds the verdict cache of the whole suite for the whole run: each entry is held as the text the
store keeps (parsed when its case is asked), so a rerun's memory grows by well under a kilobyte a case, not
by a parsed document of about two."""

from __future__ import annotations

import hashlib
import tracemalloc
from pathlib import Path

from qaeval_tui.core.judges.cache import VerdictCache, result_document
from qaeval_tui.core.running.judge import JudgeCall, JudgeResult
from qaeval_tui.core.store.judge_cache import CachedJudgement
from qaeval_tui.core.store.sqlite import Store

ENTRIES = 3_000


def a_result(i: int) -> JudgeResult:
    return JudgeResult(
        {"faithfulness": 2, "citation_correctness": i % 2, "answer_correctness": 2},
        {
            "faithfulness": f"The Tidewell HB-10 is covered by a limited warranty of {i} years.",
            "citation_correctness": "a limited warranty of 10 years",
            "answer_correctness": "10 years",
        },
        reason=None if i % 3 else "the answer cites the manual",
        call=JudgeCall(requested_model="judge-1", returned_model="judge-1-2026"),
    )


def key(i: int) -> tuple[str, str]:
    return hashlib.sha256(b"case %d" % i).hexdigest(), hashlib.sha256(b"output %d" % i).hexdigest()


def test_a_loaded_cache_holds_each_entry_in_under_a_kilobyte_and_answers_each_as_written(tmp_path: Path) -> None:
    with Store.open(tmp_path / "s.db") as store:
        store.cache_judgements(CachedJudgement("judge", *key(i), result_document(a_result(i))) for i in range(ENTRIES))
        tracemalloc.start()
        try:
            cache = VerdictCache.load(store, "judge")
            held, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()

        assert held / ENTRIES < 1_000  # ~810 here; parsed documents held ~2,050 bytes an entry
        assert peak / ENTRIES < 1_500  # ~900 here
        for i in (0, 1, 2, ENTRIES - 1):
            hit = cache.get(key(i))
            assert hit is not None
            assert result_document(hit) == result_document(a_result(i))
        assert cache.get(key(ENTRIES)) is None
