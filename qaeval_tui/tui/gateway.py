"""The TUI's one door to the core: one store, one review session, calls serialized.

Workers run these calls in threads; the lock keeps two of them from sharing the SQLite
connection at once, and `close` waits for a call in flight, so quitting right after a submit
never cuts its transaction short.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from qaeval_tui.core.config import Config
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.review.models import Label
from qaeval_tui.core.review.prepare import PrepareReport, StoreOverview, ensure_prepared, store_overview
from qaeval_tui.core.review.session import BlindItemView, Progress, RevealView, ReviewSession, SessionSummary
from qaeval_tui.core.store.sqlite import Store


class Gateway:
    """Core calls for one reviewer on one store. Every method may block: call it from a worker."""

    def __init__(self, config: Config, db_path: Path, data_paths: Sequence[Path]) -> None:
        self.config = config
        self.db_path = db_path
        self.data_paths = tuple(data_paths)
        self._lock = threading.Lock()
        self._store: Store | None = None
        self._session: ReviewSession | None = None

    def _live(self) -> ReviewSession:
        if self._session is None:
            raise UsageError("the review session is not open yet")
        return self._session

    def prepare(self, reviewer: str, step: Callable[[str], object]) -> PrepareReport:
        """Open the store, prepare it for `reviewer` if needed, and open their session."""
        with self._lock:
            if self._store is None:
                self._store = Store.open(self.db_path)
            report = ensure_prepared(self._store, self.config, self.data_paths, reviewer, step=step)
            self._session = ReviewSession(self._store, self.config, reviewer)
            return report

    def overview(self) -> StoreOverview:
        with self._lock:
            if self._store is None:
                raise UsageError("the store is not open yet")
            return store_overview(self._store, self.data_paths)

    def progress(self) -> Progress:
        with self._lock:
            return self._live().progress()

    def next_item(self) -> BlindItemView | None:
        with self._lock:
            return self._live().next_item()

    def gold_answer(self, item_id: str, scores: dict[str, int | None]) -> str | None:
        with self._lock:
            return self._live().gold_answer(item_id, scores)

    def submit(self, item_id: str, scores: dict[str, int | None], note: str, flagged: bool, seconds: float) -> Label:
        with self._lock:
            return self._live().submit(item_id, scores, note, flagged, seconds)

    def skip(self, item_id: str, seconds: float) -> Label:
        with self._lock:
            return self._live().skip(item_id, seconds)

    def undo(self) -> BlindItemView | None:
        with self._lock:
            return self._live().undo()

    def reveal(self, item_id: str) -> RevealView:
        with self._lock:
            return self._live().reveal(item_id)

    def summary(self) -> SessionSummary:
        with self._lock:
            return self._live().summary()

    def close(self) -> None:
        with self._lock:
            if self._store is not None:
                self._store.close()
                self._store = None
                self._session = None
