"""A run's cases shared out among forked worker processes, their results streamed back to the parent.

Answering a case (the system, the checks) and handling the judge's request and reply cost CPU under
one interpreter lock; at high concurrency that, not the judge's latency, bounds a run. A sharded run
forks `processes` workers, each running every `processes`-th position with its own adapter threads,
event loop and pooled judge session, and keeping its share of the judge's concurrency in flight (the
shares add up to the judge's `concurrency`). Each worker sends its finished cases back in small batches
(every `BATCH` cases or `BATCH_SECONDS`), with the verdict cache's new entries and the judge's counts
since its last batch; the parent alone hands cases to the run's sink (the store), merges the cache and
the counts, and reports progress, so the stored run is the one an in-process run stores.

Forked, not spawned: a worker inherits the loaded suite, the system, the judge and the cache read
before the run, and needs none of them picklable. A worker ignores Ctrl-C (the parent stops the run and
ends its workers), dies with its parent (a killed run's workers ask nothing more), never touches the
store or the terminal, and an error inside the harness in a worker is raised in the parent.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from qaeval_tui.core.errors import QaevalError
from qaeval_tui.core.running.judge import JudgeClient, is_asynchronous
from qaeval_tui.core.running.result import CaseResult
from qaeval_tui.core.running.runner import CaseWork, Executor, Progress, judge_concurrency

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

BATCH = 16
BATCH_SECONDS = 0.05
AUTO_MIN_POSITIONS = 5_000
"""Below this many judged cases a run stays in one process: forking and streaming back cost more than
the CPU they spread (2,000 cases at concurrency 32 are within 1.2x the latency floor in one)."""
AUTO_MAX_PROCESSES = 4


class WorkerStopped(QaevalError):
    """A worker process ended before its cases were done: the code it ran exited it, or it was killed (exit 2,
    as for a run whose process the system ended; what was judged is stored)."""

    exit_code = 2

    def __init__(self, exitcode: int | None) -> None:
        how = f"signal {-exitcode}" if exitcode is not None and exitcode < 0 else f"exit {exitcode}"
        super().__init__(
            f"a worker process of the run ended ({how}) before its cases were done: the code it ran exited it, "
            "or it was killed; the cases judged so far are stored (a rerun's verdict cache answers them); "
            "[run] processes = 1 runs the suite in one process"
        )


@runtime_checkable
class ShardedJudge(Protocol):
    """A judge whose workers' state goes back to the parent: the verdict cache's new entries, its counts."""

    def after_fork(self) -> None:
        """In a worker, just forked: locks of its own (another thread may have held the parent's)."""

    def shard_report(self) -> object:
        """In a worker: what changed since the last report (picklable)."""

    def shard_merge(self, report: object) -> None:
        """In the parent: a worker's report added to the run's own state."""


def forking_available() -> bool:
    """Worker processes are forked, and told to die with their parent: Linux only."""
    return sys.platform.startswith("linux") and hasattr(os, "fork")


def shard_count(requested: int, positions: int, judge: JudgeClient) -> int:
    """The worker processes a run uses: `requested` when 1 or more (1 is the in-process path); for 0
    (automatic) one a core, up to `AUTO_MAX_PROCESSES`, where it pays: a model judge (calls awaited
    `concurrency` at a time), at least `AUTO_MIN_POSITIONS` judged cases and more than one core. Never
    more than the cases nor, for a model judge, than its `concurrency`; one where processes cannot be forked."""
    if not forking_available() or positions < 2:
        return 1
    model_judge = judge_concurrency(judge) > 1 or is_asynchronous(judge)
    # A model judge's calls in flight stay at its `concurrency`: each worker keeps at least one.
    most = min(positions, judge_concurrency(judge)) if model_judge else positions
    if requested >= 1:
        return min(requested, most)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if cores < 2 or positions < AUTO_MIN_POSITIONS or not model_judge:
        return 1
    return min(cores, AUTO_MAX_PROCESSES, most)


def concurrency_shares(concurrency: int, processes: int) -> list[int]:
    """The judge's `concurrency` split among `processes` workers (adding up to it; at least 1 each)."""
    return [max(1, concurrency // processes + (index < concurrency % processes)) for index in range(processes)]


def sharded(processes: int) -> Executor | None:
    """What runs a run's cases on `processes` worker processes (`run_suite`'s executor); None for one."""
    if processes <= 1:
        return None
    return lambda work, add, progress, started: run_sharded(work, processes, add, progress, started)


def run_sharded(
    work: CaseWork,
    processes: int,
    add: Callable[[int, CaseResult], None],
    progress: Progress | None,
    started: Callable[[], None] = lambda: None,
) -> None:
    """Every position of `work` on `processes` forked workers; `started()` once they are all forked (a thread
    the caller starts there, such as the store's writer, is never forked with them: forking a process that
    runs threads is unsafe, and deprecated from Python 3.12); `add(position, case)` and `progress(done,
    total)` called here, in this thread, as their cases come back (in finishing order)."""
    import multiprocessing  # only a sharded run pays for the import

    total = len(work.cases) * work.samples
    context = multiprocessing.get_context("fork")
    shares = concurrency_shares(judge_concurrency(work.judge), processes)
    workers: dict[Connection, BaseProcess] = {}
    try:
        for index in range(processes):
            reader, writer = context.Pipe(duplex=False)
            process = context.Process(
                target=_worker,
                args=(work, range(index, total, processes), shares[index], writer, os.getpid()),
                name=f"qaeval-shard-{index}",
                daemon=True,
            )
            process.start()
            writer.close()
            workers[reader] = process
        started()
        _collect(work, workers, add, progress, total)
    finally:
        for child in workers.values():
            if child.is_alive():
                child.kill()  # stopped or failed: a worker asks the judge nothing more
        for child in workers.values():
            child.join()
        for reader in workers:
            reader.close()


def _collect(
    work: CaseWork,
    workers: dict[Connection, BaseProcess],
    add: Callable[[int, CaseResult], None],
    progress: Progress | None,
    total: int,
) -> None:
    from multiprocessing.connection import wait

    judge = work.judge if isinstance(work.judge, ShardedJudge) else None
    running = dict(workers)
    by_handle = {id(reader): reader for reader in running}
    finished = 0
    while running:
        for ready in wait(list(running), timeout=0.5):
            reader = by_handle[id(ready)]
            try:
                kind, payload, report = reader.recv()
            except EOFError:  # the worker ended without saying it was done
                process = running.pop(reader)
                process.join()
                raise WorkerStopped(process.exitcode) from None
            if judge is not None and report is not None:
                judge.shard_merge(report)
            if kind == "error":
                raise payload
            if kind == "done":
                del running[reader]
                continue
            for position, fields in payload:
                add(position, CaseResult(loaded=work.cases[position // work.samples], **fields))
                finished += 1
                if progress is not None:
                    progress(finished, total)


class _Outbox:
    """A worker's finished cases, sent to the parent a batch at a time (from any of its threads)."""

    def __init__(self, connection: Connection, judge: JudgeClient) -> None:
        self.connection = connection
        self.judge = judge if isinstance(judge, ShardedJudge) else None
        self.batch: list[tuple[int, dict[str, Any]]] = []
        self.sent = time.monotonic()
        self.lock = threading.Lock()

    def add(self, position: int, case: CaseResult) -> None:
        # The parent has the golden case: everything else of the result goes back.
        fields = {field.name: getattr(case, field.name) for field in dataclasses.fields(case) if field.name != "loaded"}
        with self.lock:
            self.batch.append((position, fields))
            if len(self.batch) >= BATCH or time.monotonic() - self.sent >= BATCH_SECONDS:
                self._send("cases")

    def send_due(self, stopped: threading.Event) -> None:
        """Until `stopped`: a batch that has waited `BATCH_SECONDS` sent even when no case follows it (a slow
        judge's cases reach the store and the progress as they finish)."""
        while not stopped.wait(BATCH_SECONDS):
            with self.lock:
                if self.batch and time.monotonic() - self.sent >= BATCH_SECONDS:
                    try:
                        self._send("cases")
                    except OSError:  # the parent is gone (this worker is about to be, too)
                        return

    def finish(self) -> None:
        with self.lock:
            if self.batch:
                self._send("cases")
            self._send("done")

    def fail(self, exc: BaseException) -> None:
        with self.lock:
            try:
                self.connection.send(("error", exc, None))
            except Exception:  # an exception that does not pickle: its text then
                self.connection.send(("error", RuntimeError(f"{type(exc).__name__}: {exc}"), None))

    def _send(self, kind: str) -> None:
        batch, self.batch = self.batch, []
        report = None if self.judge is None else self.judge.shard_report()
        self.connection.send((kind, batch, report))
        self.sent = time.monotonic()


def _worker(work: CaseWork, positions: Sequence[int], concurrency: int, connection: Connection, parent: int) -> None:
    _die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole process group: the parent stops
    if isinstance(work.judge, ShardedJudge):
        work.judge.after_fork()
    outbox = _Outbox(connection, work.judge)
    stopped = threading.Event()
    sender = threading.Thread(target=outbox.send_due, args=(stopped,), name="qaeval-shard-sender", daemon=True)
    sender.start()
    try:
        work.execute(positions, outbox.add, None, concurrency)
        stopped.set()
        sender.join()
        outbox.finish()
    except BrokenPipeError:  # the parent is gone: nothing left to do
        pass
    except BaseException as exc:
        stopped.set()
        outbox.fail(exc)
    finally:
        connection.close()


_PR_SET_PDEATHSIG = 1


def _die_with_parent(parent: int) -> None:
    """SIGKILL this worker when its parent dies (Linux), so a killed run's workers stop calling the judge."""
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # no prctl: a worker then ends at its next send (a broken pipe)
        pass
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)
