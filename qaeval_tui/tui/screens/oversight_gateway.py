"""The curation and oversight screens' one door to the core: one store connection, calls serialized.

Like the review `Gateway`, every method may block (SQLite, loading the golden set, the
dashboard's bootstrap), so screens call it from workers only. It has its own connection to the
same store file (WAL lets it sit beside the review session's) and closes it when the screen that
opened it goes away.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
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
from qaeval_tui.core.golden.loader import GoldenSet, load_golden
from qaeval_tui.core.store.sqlite import Store

if TYPE_CHECKING:
    from qaeval_tui.core.curation.adjudication import AdjudicationQueue
    from qaeval_tui.core.curation.dossier import ItemDossier
    from qaeval_tui.core.statistics.dashboard import Dashboard, Step

# The statistics behind adjudication and the dashboard (numpy, krippendorff) are imported by
# the methods that use them: the home screen builds this gateway, and the review TUI's cold
# start should not pay for screens the reviewer may never open.


class OversightGateway:
    """Core calls for a curator or a lead on one store and one golden set."""

    def __init__(
        self,
        config: Config,
        db_path: Path,
        golden_paths: Sequence[Path] = (),
        *,
        now: Callable[[], str] | None = None,
    ) -> None:
        """`golden_paths` are the golden files or folders (default: the configured golden path);
        promotions always go to the configured living file. `now` fixes decision times (tests)."""
        self.config = config
        self.db_path = db_path
        default = GoldenTarget.from_config(config)
        self.target = GoldenTarget(golden=tuple(golden_paths) or default.golden, living=default.living)
        self.now = now
        self._lock = threading.Lock()
        self._store: Store | None = None

    def _open(self) -> Store:
        if self._store is None:
            self._store = Store.open(self.db_path)
        return self._store

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
        with self._lock:
            if self._store is not None:
                self._store.close()
                self._store = None


@dataclass
class OversightContext:
    """What every curation and oversight screen is handed."""

    gateway: OversightGateway
    curator: str = ""
    """Who is curating (the app's reviewer name); prefilled wherever a decision records a name."""
    deterministic: bool = False
    """No blinking cursors (tests and screenshots)."""
