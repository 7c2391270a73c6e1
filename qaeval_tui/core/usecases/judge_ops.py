"""A run's judge operations: the verdict cache around the judge, its progress line and the run's totals."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Protocol

from qaeval_tui.core.judges.cache import CachedJudge, JudgeTally, Pricing, VerdictCache
from qaeval_tui.core.running.result import RunResult
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.usecases.configured import RunPlan

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


def cached_judge(plan: RunPlan, store: StoreBackend, *, fresh: bool) -> CachedJudge:
    """The plan's judge behind the store's verdict cache for its config (read now, before the run)."""
    cache = VerdictCache.load(store, plan.judge_config.config_hash(), fresh=fresh)
    # The run offers each case's hash as it asks (`ITEM_HASHES`); a case held whole is known by its object too.
    hashes = {id(loaded.case): loaded.content_hash for loaded in plan.golden.cases if not loaded.by_line}
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


class StoreWriter:
    """One thread writing to the store while a run goes on (the suite's cases, the verdict cache's new
    entries): the run's own threads never wait on the store. Leaving the block waits for every write
    submitted, a run stopped by Ctrl-C included, and raises the first write's error, if any.

    At most `PENDING` writes wait at a time: a run whose cases come faster than the store takes them waits
    for the writer (a batch of finished cases is held whole until it is written: without a bound, a writer
    falling behind on a busy machine held thousands, and the run's memory grew with its cases).

    The thread starts with the first write, so a run that forks worker processes before it opens its run in
    the store forks no thread with them. Not `on_a_thread` (a store pinned to the thread that opened it, as
    the review app's is), each write runs at once on the thread that submits it."""

    PENDING = 4

    def __init__(self, store: StoreBackend, *, on_a_thread: bool = True) -> None:
        self.store = store
        self.on_a_thread = on_a_thread
        self._jobs: queue.Queue[Callable[[], object] | None] = queue.Queue(maxsize=self.PENDING)
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._work, name="qaeval-store-writer", daemon=True)
        self._starting = threading.Lock()

    def submit(self, job: Callable[[], object]) -> None:
        if not self.on_a_thread:
            job()
            return
        if self._thread.ident is None:
            with self._starting:
                if self._thread.ident is None:
                    self._thread.start()
        self._jobs.put(job)

    def _work(self) -> None:
        while (job := self._jobs.get()) is not None:
            if self._error is not None:
                continue  # the store failed: the rest is not attempted, the first error is raised
            try:
                job()
            except BaseException as exc:
                self._error = exc

    def __enter__(self) -> StoreWriter:
        return self

    def __exit__(self, kind: object, exc: object, traceback: object) -> None:
        if not self.on_a_thread or self._thread.ident is None:  # nothing was written on a thread
            return
        self._jobs.put(None)
        self._thread.join()
        if self._error is not None and exc is None:
            raise self._error


def with_judge_calls(result: RunResult, judge: CachedJudge) -> RunResult:
    """The run with its judge's totals, when a model was asked (or answered from the cache)."""
    tally = judge.tally
    return replace(result, judge_calls=tally.to_json()) if tally.asked_model else result
