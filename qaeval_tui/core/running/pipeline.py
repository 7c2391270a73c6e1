"""Adapter calls on a bounded thread pool, judge calls `concurrency` at a time on one event loop.

A model judge waits on the network: its calls are coroutines awaited on one loop through one pooled
HTTP client, so a run holds no thread per call in flight (a synchronous judge's `score` runs on a pool
of `concurrency` threads instead). A case's judge call starts as soon as its output is in; a bounded
queue between the stages keeps the adapter from running more than a few cases ahead. Results land at
their suite position and `progress` (then `done`) is called on the loop's thread, in order, as each
case completes. An error inside the harness itself (not a judge's or an adapter's failure, which are
data) is raised at once, and Ctrl-C stops what has not started.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

A = TypeVar("A")
R = TypeVar("R")
T = TypeVar("T")


def pipelined(
    prepare: Callable[[int], A],
    finish: Callable[[A], Awaitable[R]],
    total: int,
    workers: int,
    concurrency: int,
    progress: Callable[[int, int], None] | None,
    *,
    done: Callable[[R], None] | None = None,
    close: Callable[[], Awaitable[None]] | None = None,
) -> list[R]:
    """`await finish(prepare(i))` for every position: `prepare` on `workers` threads, `finish` awaited
    `concurrency` at a time; `done(result)` as each finishes (in finishing order), `close()` at the end."""
    return in_loop(lambda: _pipeline(prepare, finish, total, workers, concurrency, progress, done, close))


class _Stopped(Exception):
    """A progress or done callback raised KeyboardInterrupt or SystemExit: raised again once the tasks end."""


def in_loop(main: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """`main()` run on a new event loop: on this thread, or on a thread of its own when this one already
    runs a loop (a caller inside the TUI's)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(main())
    box: list[T] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            box.append(asyncio.run(main()))
        except BaseException as exc:
            failure.append(exc)

    thread = threading.Thread(target=run, name="qaeval-run-loop")
    thread.start()
    thread.join()
    if failure:
        raise failure[0]
    return box[0]


async def _pipeline(
    prepare: Callable[[int], A],
    finish: Callable[[A], Awaitable[R]],
    total: int,
    workers: int,
    concurrency: int,
    progress: Callable[[int, int], None] | None,
    done: Callable[[R], None] | None,
    close: Callable[[], Awaitable[None]] | None,
) -> list[R]:
    loop = asyncio.get_running_loop()
    adapters = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="qaeval-adapter")
    judges = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="qaeval-judge")
    loop.set_default_executor(judges)  # a synchronous judge's `score` runs here (`ask`)
    slots: list[R | None] = [None] * total
    queue: asyncio.Queue[tuple[int, A] | None] = asyncio.Queue(maxsize=2 * concurrency)
    positions = iter(range(total))
    finished = 0
    consumers = min(concurrency, total)

    async def produce() -> None:
        for position in positions:  # shared by the producers: one loop thread, so each position once
            answered = await loop.run_in_executor(adapters, prepare, position)
            await queue.put((position, answered))

    async def feed() -> None:
        await asyncio.gather(*(produce() for _ in range(min(workers, total))))
        for _ in range(consumers):
            await queue.put(None)

    stopped: list[BaseException] = []

    async def consume() -> None:
        nonlocal finished
        while (item := await queue.get()) is not None:
            position, answered = item
            result = await finish(answered)
            slots[position] = result
            finished += 1
            try:
                if done is not None:
                    done(result)
                if progress is not None:
                    progress(finished, total)
            except (KeyboardInterrupt, SystemExit) as exc:  # the caller stops the run: end every task first
                stopped.append(exc)
                raise _Stopped from None

    clean = False
    try:
        async with asyncio.TaskGroup() as group:
            group.create_task(feed())
            for _ in range(consumers):
                group.create_task(consume())
        clean = True
    except BaseExceptionGroup as failures:  # the first error inside the harness, as itself
        if stopped:
            raise stopped[0] from None
        raise failures.exceptions[0] from None
    finally:
        adapters.shutdown(wait=clean, cancel_futures=not clean)
        judges.shutdown(wait=clean, cancel_futures=not clean)
        if close is not None:
            await close()
    return [slot for slot in slots if slot is not None]
