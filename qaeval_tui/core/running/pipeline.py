"""Adapter calls and judge calls on two bounded pools: a case's judge call starts as soon as its output is in.

A model judge waits on the network, so its calls run `concurrency` at a time whatever the adapter's
`workers`; results land at their suite position and progress is reported from the calling thread, in
order, as each case completes (both stages). An error inside the harness itself (not a judge's or an
adapter's failure, which are data) is raised at once, and Ctrl-C stops what has not started.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

A = TypeVar("A")
R = TypeVar("R")


class _Tally:
    """Cases finished and the first harness error, shared by the pools' callbacks and the calling thread."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.changed = threading.Event()
        self.finished = 0
        self.error: BaseException | None = None

    def done(self, future: Future[Any], *, counts: bool) -> None:
        error = None if future.cancelled() else future.exception()
        with self.lock:
            if counts:
                self.finished += 1
            if error is not None and self.error is None:
                self.error = error
        self.changed.set()


def pipelined(
    prepare: Callable[[int], A],
    finish: Callable[[A], R],
    total: int,
    workers: int,
    concurrency: int,
    progress: Callable[[int, int], None] | None,
) -> list[R]:
    """`finish(prepare(i))` for every position: `prepare` on `workers` threads, `finish` on `concurrency`."""
    tally = _Tally()
    with (
        ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="qaeval-judge") as judges,
        ThreadPoolExecutor(max_workers=workers, thread_name_prefix="qaeval-adapter") as adapters,
    ):

        def stage(position: int) -> Future[R]:
            future = judges.submit(finish, prepare(position))
            future.add_done_callback(lambda f: tally.done(f, counts=True))
            return future

        staged = [adapters.submit(stage, position) for position in range(total)]
        for future in staged:
            future.add_done_callback(lambda f: tally.done(f, counts=False))
        try:
            _report(tally, total, progress)
        except BaseException:  # Ctrl-C, or an error inside the harness: nothing queued starts any more
            adapters.shutdown(wait=False, cancel_futures=True)
            judges.shutdown(wait=False, cancel_futures=True)
            raise
        return [future.result().result() for future in staged]


def _report(tally: _Tally, total: int, progress: Callable[[int, int], None] | None) -> None:
    """Report every count, in order, until all `total` cases are done."""
    reported = 0
    while reported < total:
        tally.changed.wait(0.2)
        tally.changed.clear()
        with tally.lock:
            now, error = tally.finished, tally.error
        if error is not None:
            raise error
        if progress is not None:
            for done in range(reported + 1, now + 1):
                progress(done, total)
        reported = now
