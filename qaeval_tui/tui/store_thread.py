"""The thread that owns the TUI's store connection: opens it, runs every call on it, closes it.

sqlite3 connections belong to the thread that opened them. Rather than share one across worker
threads (`check_same_thread=False` plus a lock), the app hands every store call to this one
thread, in the order the calls were made, and waits for the answer in the worker that asked. The
connection is opened pinned to this thread (`open_store(..., one_thread=True)`), so a use from
anywhere else fails loudly instead of racing.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.opening import StoreTarget, open_store

T = TypeVar("T")

CLOSED = "the store is closed: the app is quitting"


class StoreThread:
    """One thread, one connection opened on first use; `call` runs work on it and returns its result."""

    def __init__(self, path: StoreTarget) -> None:
        self.path = path
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="qaeval-store")
        # Touched on the store thread only: no lock guards them because no other thread reads them.
        self._store: StoreBackend | None = None
        self._closed = False

    def call(self, work: Callable[[StoreBackend], T]) -> T:
        """Run `work` on the store thread after every call handed over before it; block until it is done.

        Called from worker threads, never the UI thread. Its exceptions are raised here, in the caller.
        """
        try:
            future = self._pool.submit(self._run, work)
        except RuntimeError as exc:  # shut down: the app has closed its services
            raise UsageError(CLOSED) from exc
        return future.result()

    def _run(self, work: Callable[[StoreBackend], T]) -> T:
        if self._closed:  # handed over after `close` began: never reopen
            raise UsageError(CLOSED)
        if self._store is None:
            self._store = open_store(self.path, one_thread=True)
        return work(self._store)

    def close(self) -> None:
        """Close the connection on its own thread once every call handed over before has finished.

        Later calls are refused (UsageError). Safe to call twice. Waits for a save in flight, so
        quitting right after a submit never cuts its transaction short.
        """
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
