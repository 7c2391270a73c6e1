"""Adapter calls and judge calls on two bounded pools: a case's judge call starts as soon as its output is in.

A model judge waits on the network, so its calls run `concurrency` at a time whatever the adapter's
`workers`; results land at their suite position and progress is reported from the calling thread, in
order, as each case completes (both stages).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

A = TypeVar("A")
R = TypeVar("R")


def pipelined(
    prepare: Callable[[int], A],
    finish: Callable[[A], R],
    total: int,
    workers: int,
    concurrency: int,
    progress: Callable[[int, int], None] | None,
) -> list[R]:
    """`finish(prepare(i))` for every position: `prepare` on `workers` threads, `finish` on `concurrency`."""
    lock = threading.Lock()
    finished = 0
    changed = threading.Event()
    broken: list[Future[Future[R]]] = []  # a stage that raised: an error inside the harness itself

    def watched(future: Future[Future[R]]) -> None:
        if future.exception() is not None:
            with lock:
                broken.append(future)
            changed.set()

    def counted(_: Future[R]) -> None:
        nonlocal finished
        with lock:
            finished += 1
        changed.set()

    with (
        ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="qaeval-judge") as judges,
        ThreadPoolExecutor(max_workers=workers, thread_name_prefix="qaeval-adapter") as adapters,
    ):

        def stage(position: int) -> Future[R]:
            future = judges.submit(finish, prepare(position))
            future.add_done_callback(counted)
            return future

        staged = [adapters.submit(stage, position) for position in range(total)]
        for future in staged:
            future.add_done_callback(watched)
        reported = 0
        while reported < total:
            changed.wait(0.2)
            changed.clear()
            with lock:
                now = finished
            if progress is not None:
                for done in range(reported + 1, now + 1):
                    progress(done, total)
            reported = now
            with lock:  # found by callback: scanning every future at each wake cost O(n^2) on big suites
                failed = broken[0] if broken else None
            if failed is not None:  # an error inside the harness itself: raised, never swallowed
                for future in staged:
                    future.cancel()
                failed.result()
        results = [future.result().result() for future in staged]
    return results
