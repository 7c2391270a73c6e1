"""Issue 6: the near-duplicate check of one question against 10,000 cases, and one promote-form keystroke."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks import Figure
from benchmarks.synthetic import write_synthetic_golden
from qaeval_tui.core.curation.inbox import InboxEntry, ProductionMiss
from qaeval_tui.core.curation.promotion import (
    GoldenSnapshot,
    GoldenTarget,
    PromotionContext,
    PromotionDraft,
    validate_promotion,
)

RUNS = 21


def _median_and_worst(action: Callable[[], object], runs: int = RUNS) -> tuple[float, float]:
    timings = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        timings.append(time.perf_counter() - started)
    return statistics.median(timings), max(timings)


def run(workdir: Path) -> list[Figure]:
    folder = workdir / "golden"
    write_synthetic_golden(folder, 10_000)
    snapshot = GoldenSnapshot.load(GoldenTarget(golden=(folder,), living=folder / "living.jsonl"))
    base = snapshot.golden.cases[4321].case

    started = time.perf_counter()
    index = snapshot.index
    build = time.perf_counter() - started
    # A reworded existing question: the check must find it, and time the full scoring pass.
    question = base.question.replace("what about", "tell me about").upper()
    found = index.near_duplicates(question)
    if not found or found[0].case_id != base.id:
        raise RuntimeError(f"near-duplicate check missed {base.id}: {found}")
    median, worst = _median_and_worst(lambda: index.near_duplicates(question))

    miss = ProductionMiss(
        trace_id="tr-bench-1",
        question=question,
        sources=list(base.sources),
        answer="wrong",
        citations=[],
        reason="benchmark",
        reported_at="2026-10-01T00:00:00Z",
        reporter="bench",
    )
    context = PromotionContext(InboxEntry(miss, "bench", "2026-10-01T00:00:00Z", None), snapshot)
    draft = PromotionDraft(
        trace_id=miss.trace_id,
        case_id="bench-new-01",
        question=question,
        gold_answer="x",
        gold_source_ids=("s1",),
        curator="bench",
        reason="benchmark",
    )

    def keystroke() -> None:
        validate_promotion(draft, context)
        context.near_duplicates(draft.question)

    key_median, key_worst = _median_and_worst(keystroke)
    return [
        Figure("near-duplicate index build, 10,000 cases (once)", build, "s", "(reference)", True),
        Figure("near-duplicate check, 1 question vs 10,000 (median)", median * 1000, "ms", "<= 100 ms", median <= 0.1),
        Figure("near-duplicate check, 1 question vs 10,000 (worst)", worst * 1000, "ms", "<= 100 ms", worst <= 0.1),
        Figure(
            "promote-form keystroke: validate + near-dup (median)",
            key_median * 1000,
            "ms",
            "<= 100 ms",
            key_median <= 0.1,
        ),
        Figure(
            "promote-form keystroke: validate + near-dup (worst)", key_worst * 1000, "ms", "<= 100 ms", key_worst <= 0.1
        ),
    ]
