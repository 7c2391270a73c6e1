"""The TUI's one door to the core: one store connection for the whole app, calls serialized.

The app builds one `Services` at start and every screen reaches it through the app's context;
no screen opens the store itself. Every method may block (SQLite, loading the golden set, the
dashboard's bootstrap), so screens call it from workers only (`QaevalApp.run_core`).

Threads, honestly: workers run these calls in threads, and this object keeps ONE connection
(`Store.open` opens it with `check_same_thread=False`) guarded by one lock, rather than one
connection per worker thread. The reason is the review session: `ReviewSession` keeps in-memory
state (the queue position, the undo stack) bound to the store it was opened on, so the calls of
one reviewer must go through one connection in order anyway; a thread-local connection per worker
would need a session per thread and lose that order. The lock serializes every call, and `close`
waits for a call in flight, so quitting right after a submit never cuts its transaction short.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from qaeval_tui.core.config import Config
from qaeval_tui.core.curation.inbox import ImportReport, InboxDecision, InboxEntry, import_misses, list_inbox
from qaeval_tui.core.curation.promotion import (
    GoldenSnapshot,
    GoldenTarget,
    PromotionContext,
    PromotionDraft,
    PromotionResult,
    promote,
    promotion_context,
)
from qaeval_tui.core.curation.rejection import reject
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.golden.loader import GoldenSet, load_golden
from qaeval_tui.core.review.models import Label
from qaeval_tui.core.review.prepare import PrepareReport, StoreOverview, ensure_prepared, store_overview
from qaeval_tui.core.review.session import BlindItemView, Progress, RevealView, ReviewSession, SessionSummary
from qaeval_tui.core.store.sqlite import Store

if TYPE_CHECKING:
    from qaeval_tui.core.curation.adjudication import AdjudicationQueue
    from qaeval_tui.core.curation.dossier import ItemDossier
    from qaeval_tui.core.statistics.dashboard import Dashboard, Step

# The statistics behind adjudication and the dashboard (numpy, krippendorff) are imported by
# the methods that use them: the review TUI's cold start should not pay for screens the
# reviewer may never open.


class Services:
    """Core calls for one reviewer (who also curates) on one store and one golden set."""

    def __init__(
        self,
        config: Config,
        db_path: Path,
        data_paths: Sequence[Path] = (),
        *,
        now: Callable[[], str] | None = None,
    ) -> None:
        """`data_paths` are the golden files or folders (default: the configured golden path);
        promotions always go to the configured living file. `now` fixes decision times (tests)."""
        self.config = config
        self.db_path = db_path
        self.data_paths = tuple(data_paths)
        default = GoldenTarget.from_config(config)
        self.target = GoldenTarget(golden=self.data_paths or default.golden, living=default.living)
        self.now = now
        self._lock = threading.Lock()
        self._store: Store | None = None
        self._session: ReviewSession | None = None

    def _open(self) -> Store:
        if self._store is None:
            self._store = Store.open(self.db_path)
        return self._store

    def _live(self) -> ReviewSession:
        if self._session is None:
            raise UsageError("the review session is not open yet")
        return self._session

    # -- preparing and blind review ---------------------------------------------------------------

    def prepare(self, reviewer: str, step: Callable[[str], object]) -> PrepareReport:
        """Open the store, prepare it for `reviewer` if needed, and open their session."""
        with self._lock:
            store = self._open()
            report = ensure_prepared(store, self.config, self.data_paths, reviewer, step=step)
            self._session = ReviewSession(store, self.config, reviewer)
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

    # -- inbox and promotion ----------------------------------------------------------------------

    def inbox(self, status: str | None, search: str | None) -> tuple[list[InboxEntry], list[InboxEntry]]:
        """(entries matching the filters, every entry) so a screen can show counts beside the list."""
        with self._lock:
            store = self._open()
            return list_inbox(store, status=status, search=search or None), list_inbox(store)

    def import_misses(self, path: Path) -> ImportReport:
        with self._lock:
            return import_misses(self._open(), path)

    def promotion_context(self, trace_id: str) -> PromotionContext:
        with self._lock:
            return promotion_context(self._open(), self.target, trace_id)

    def promote(self, draft: PromotionDraft, snapshot: GoldenSnapshot) -> PromotionResult:
        with self._lock:
            now = self.now() if self.now else None
            return promote(self._open(), draft, self.target, snapshot=snapshot, now=now)

    def reject(self, trace_id: str, reason: str, curator: str) -> InboxDecision:
        with self._lock:
            now = self.now() if self.now else None
            return reject(self._open(), trace_id, reason=reason, curator=curator, now=now, target=self.target)

    # -- adjudication, dashboard ------------------------------------------------------------------

    def adjudication_queue(self) -> AdjudicationQueue:
        from qaeval_tui.core.curation.adjudication import adjudication_queue

        with self._lock:
            return adjudication_queue(self._open(), self.config)

    def dossier(self, item_id: str, *, with_judge: bool, judge_config_hash: str | None = None) -> ItemDossier:
        from qaeval_tui.core.curation.dossier import item_dossier

        with self._lock:
            return item_dossier(
                self._open(), self.config, item_id, with_judge=with_judge, judge_config_hash=judge_config_hash
            )

    def record_consensus(self, item_id: str, axis: str, score: int | None, reason: str, adjudicator: str) -> None:
        from qaeval_tui.core.curation.adjudication import record_consensus

        with self._lock:
            record_consensus(self._open(), self.config, item_id, axis, score, reason, adjudicator)

    def dashboard(self, step: Step | None = None) -> Dashboard:
        from qaeval_tui.core.statistics.dashboard import compute_dashboard

        with self._lock:
            return compute_dashboard(self._open(), self.config, step=step)

    # -- golden set -------------------------------------------------------------------------------

    def golden(self) -> GoldenSet:
        """The whole golden set as the promote form validates against (living split included)."""
        return load_golden(self.target.files())

    def close(self) -> None:
        """Close the one connection (waits for a call in flight); the app calls it on exit."""
        with self._lock:
            if self._store is not None:
                self._store.close()
                self._store = None
                self._session = None
