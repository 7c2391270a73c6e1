"""A run's judge operations: the verdict cache around the judge, its progress line and the run's totals."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Protocol

from qaeval_tui.core.judges.cache import SAVE_EVERY, CachedJudge, JudgeTally, Pricing, VerdictCache
from qaeval_tui.core.running.configured import RunPlan
from qaeval_tui.core.running.result import RunResult
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.opening import StoreTarget, open_store

ProgressUpdate = Callable[[int, int], None]


class JudgeLineUpdate(Protocol):
    """A progress display that can also show the judge's line (calls, in flight, cached, errors, cost)."""

    def __call__(self, done: int, total: int, judge_line: str = "") -> None: ...


def pricing_of(plan: RunPlan) -> Pricing | None:
    """The configured `[judge.pricing]`, when the config has one."""
    section = getattr(plan.config, "judge", None)
    table = getattr(section, "pricing", None)
    if table is None:
        return None
    return Pricing(table.input_per_million, table.output_per_million, table.currency)


def cached_judge(plan: RunPlan, store_path: StoreTarget, *, fresh: bool) -> CachedJudge:
    """The plan's judge behind the store's verdict cache for its config (read now, before the run)."""
    with open_store(store_path) as store:
        cache = VerdictCache.load(store, plan.judge_config.config_hash(), fresh=fresh)
    hashes = {id(loaded.case): loaded.content_hash for loaded in plan.golden.cases}
    return CachedJudge(plan.judge, cache, JudgeTally(pricing=pricing_of(plan)), hashes)


def judge_progress(update: ProgressUpdate | None, judge: CachedJudge | None) -> ProgressUpdate | None:
    """`update(done, total)`, also handing the judge's line to a display that shows it."""
    if update is None or judge is None or not getattr(update, "shows_judge_line", False):
        return update
    show: JudgeLineUpdate = update  # type: ignore[assignment]  # it says it takes the line
    tally = judge.tally

    def with_line(done: int, total: int) -> None:
        show(done, total, tally.line() if tally.asked_model else "")

    return with_line


def saving_as_it_goes(
    update: ProgressUpdate | None, judge: CachedJudge | None, store: StoreBackend
) -> ProgressUpdate | None:
    """`update`, also writing the verdict cache's new entries to `store` every `SAVE_EVERY` of them: the
    run reports progress on one thread after each case, so the store is written from that thread only."""
    if judge is None:
        return update
    cache = judge.cache

    def saving(done: int, total: int) -> None:
        if cache.pending >= SAVE_EVERY:
            cache.save(store)
        if update is not None:
            update(done, total)

    return saving


def with_judge_calls(result: RunResult, judge: CachedJudge) -> RunResult:
    """The run with its judge's totals, when a model was asked (or answered from the cache)."""
    tally = judge.tally
    return replace(result, judge_calls=tally.to_json()) if tally.asked_model else result
