"""The thread that owns the TUI's store connection: opens it, runs every call on it, closes it.

sqlite3 connections belong to the thread that opened them. Rather than share one across worker
threads (`check_same_thread=False` plus a lock), the app hands every store call to this one
thread, in the order the calls were made, and waits for the answer in the worker that asked. The
connection is opened pinned to this thread (`open_store(..., one_thread=True)`), so a use from
anywhere else fails loudly instead of racing.

A store on a server can become unreachable while the app is open (a restart, a network cut): the
store raises `StoreUnavailableError`. Once the store has been reached, the call in flight is then
not lost (a store never reached, a wrong URL or login, fails the call at once): this thread drops the
connection, says so once (`on_unavailable` with the reason; with None when the store is back),
and retries the same call on a new connection, waiting longer each time (up to `RETRY_MAX_SECONDS`),
until it succeeds or the app quits. Callers hold a `StoreHandle`, never a connection, so the
review session's state (its queue position, undo stack, gold locks) carries over to the new one.
A submit retried after a commit whose acknowledgement was lost adds no second revision: the
session finds the same label stored and returns it.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar, cast

from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.opening import StoreLocation, open_store
from qaeval_tui.core.store.rows import StoreUnavailableError

T = TypeVar("T")

CLOSED = "the store is closed: the app is quitting"
RETRY_FIRST_SECONDS = 0.2
RETRY_MAX_SECONDS = 2.0


def unavailable_text(reason: str) -> str:
    return f"the store is unavailable ({reason}); what you did is kept and retried until it is back"


class StoreHandle:
    """The store as the app's callers see it: every attribute is the current connection's.

    Stays valid across reconnections: the review session and its ledger keep it, not a connection."""

    def __init__(self, thread: StoreThread) -> None:
        self._thread = thread

    def __getattr__(self, name: str) -> Any:
        return getattr(self._thread._current(), name)


class StoreThread:
    """One thread, one connection opened on first use; `call` runs work on it and returns its result."""

    def __init__(self, path: StoreLocation, *, on_unavailable: Callable[[str | None], object] | None = None) -> None:
        self.path = path
        self.on_unavailable = on_unavailable
        """Told the reason once when the store becomes unreachable, then None once it is back; on the store thread."""
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="qaeval-store")
        # Touched on the store thread only: no lock guards them because no other thread reads them.
        self._store: StoreBackend | None = None
        self._closed = False
        self._reached = False  # once a connection opened, an unreachable store is an outage, waited out
        self._quitting = threading.Event()  # set from any thread: a retry waiting for the server stops
        self._handle = cast(StoreBackend, StoreHandle(self))

    def call(self, work: Callable[[StoreBackend], T]) -> T:
        """Run `work` on the store thread after every call handed over before it; block until it is done.

        Called from worker threads, never the UI thread. Its exceptions are raised here, in the caller;
        an unreachable store is retried until it answers, or the app quits (then a UsageError).
        """
        try:
            future = self._pool.submit(self._run, work)
        except RuntimeError as exc:  # shut down: the app has closed its services
            raise UsageError(CLOSED) from exc
        return future.result()

    def durable(self) -> None:
        """Wait, on the calling thread, until every commit of this store so far is on disk; the store
        thread goes on meanwhile (the wait touches no connection: `StoreBackend.durable`)."""
        store = self._store
        if store is not None:
            store.durable()

    def _current(self) -> StoreBackend:
        if self._closed:  # handed over after `close` began: never reopen
            raise UsageError(CLOSED)
        if self._store is None:
            self._store = open_store(self.path, one_thread=True)
            self._reached = True
        return self._store

    def _run(self, work: Callable[[StoreBackend], T]) -> T:
        delay, down = RETRY_FIRST_SECONDS, False
        while True:
            try:
                self._current()
                result = work(self._handle)
            except StoreUnavailableError as exc:
                self._drop()
                if not self._reached:  # never reached (a wrong URL, a refused login): no outage to wait out
                    raise
                if not down:
                    down = True
                    self._tell(unavailable_text(str(exc)))
                if self._quitting.wait(delay):
                    raise UsageError(f"{CLOSED}; the store was unavailable ({exc})") from exc
                delay = min(delay * 2, RETRY_MAX_SECONDS)
                continue
            if down:
                self._tell(None)
            return result

    def _tell(self, text: str | None) -> None:
        if self.on_unavailable is not None:
            self.on_unavailable(text)

    def _drop(self) -> None:
        """Forget a connection the server cut; closing it may fail too, and nothing is left to save."""
        store, self._store = self._store, None
        if store is not None:
            with contextlib.suppress(Exception):  # a dead connection: its close has nothing to flush
                store.close()

    def close(self) -> None:
        """Close the connection on its own thread once every call handed over before has finished.

        Later calls are refused (UsageError). Safe to call twice. Waits for a save in flight, so
        quitting right after a submit never cuts its transaction short; a save waiting for an
        unreachable store gives up (it was never acknowledged).
        """
        self._quitting.set()
        try:
            done = self._pool.submit(self._close)
        except RuntimeError:
            return  # closed already
        self._pool.shutdown(wait=True)
        done.result()

    def _close(self) -> None:
        self._closed = True
        if self._store is not None:
            self._store.close()
            self._store = None
