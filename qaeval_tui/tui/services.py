"""The TUI's one door to the core: a writer connection and a reader connection, each on its own thread.

The app builds one `Services` at start and every screen reaches it through the app's context;
no screen opens the store itself. Every method may block (SQLite, loading the golden set, the
dashboard's bootstrap), so screens call it from workers only (`QaevalApp.run_core`).

Threads: every store call is handed to one of two dedicated store threads (`StoreThread`), each
opening its connection on first use, running its calls in the order they were made and closing it
when the app exits. The workers wait for their answer; the UI thread never does.

- The writer runs everything that writes or belongs to the review session (submit, next item,
  reveal, promotion, adjudication, recorded exposures). The session (`ReviewSession`) keeps
  in-memory state bound to its store (the queue position, the undo stack), so one reviewer's calls
  must reach one connection in order anyway; on the writer thread that state is touched by that
  thread only, with no lock.
- The reader runs the slow reads that write nothing (the dashboard's recomputation, stored runs,
  lists of the inbox and flags), as datasette reads beside its one write thread: a dashboard
  recomputing never queues in front of a submit. The dashboard itself is computed in a child
  process the reader thread talks to (dashboard_process.py): seconds of pure-Python work there
  would otherwise hold the interpreter lock every hand-off of a submit needs.

Both connections are in autocommit mode (SQLite in WAL mode, PostgreSQL autocommit), so each read
starts after the writes acknowledged before it: a read made after one's own submit sees it.
One thread per connection rather than a connection per worker thread, because sqlite3 lets only
the opening thread close a connection and Textual runs thread workers on a pool the app does not
own, so per-thread connections could not all be closed at exit.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from qaeval_tui.core.config import Config
from qaeval_tui.core.curation.target import GoldenTarget
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.golden.loader import GoldenSet, load_golden
from qaeval_tui.core.models.label import Label
from qaeval_tui.core.review.session import (
    Advance,
    BlindItemView,
    Progress,
    RevealView,
    ReviewSession,
    SessionSummary,
)
from qaeval_tui.core.review.views import CuratorTally
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.opening import StoreLocation
from qaeval_tui.core.usecases.prepare import (
    PrepareReport,
    QueueStanding,
    StoreOverview,
    ensure_prepared,
    store_overview,
    team_standing,
)
from qaeval_tui.tui.dashboard_process import DashboardProcess
from qaeval_tui.tui.store_thread import StoreThread

if TYPE_CHECKING:  # types only: the modules behind curation and oversight load on their first call
    from qaeval_tui.core.curation.adjudication import AdjudicationQueue
    from qaeval_tui.core.curation.dossier import ItemDossier
    from qaeval_tui.core.curation.flags import Flag, FlagState
    from qaeval_tui.core.curation.inbox import ImportReport, InboxDecision, InboxEntry
    from qaeval_tui.core.curation.promotion import GoldenSnapshot, PromotionContext, PromotionDraft, PromotionResult
    from qaeval_tui.core.runs.compare import RunDiff
    from qaeval_tui.core.runs.views import CaseDetail, CaseFilter, RunSummary, RunTable
    from qaeval_tui.core.statistics.figures import BandedSeries
    from qaeval_tui.core.usecases.dashboard import Dashboard, Step
    from qaeval_tui.core.usecases.queue import NewCasesQueued

# The statistics behind adjudication and the dashboard (numpy, krippendorff) are imported by
# the methods that use them: the review TUI's cold start should not pay for screens the
# reviewer may never open.


T = TypeVar("T")

READ_SWITCH_SECONDS = 0.001
"""How often the interpreter switches threads while a slow read computes (Python's default is 5 ms):
a read's pure-Python work (stored runs, the inbox) holds the interpreter lock, and each hand-off a
submit needs (the UI, its worker, the writer) would otherwise wait up to the default behind it.
The dashboard, the slowest, computes in a process of its own instead (dashboard_process.py)."""


class Services:
    """Core calls for one reviewer (who also curates) on one store and one golden set."""

    def __init__(
        self,
        config: Config,
        db_path: StoreLocation,
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
        self.on_unavailable: Callable[[str | None], object] | None = None
        """Told on the store thread when the store becomes unreachable (the reason) and when it is back
        (None); the app shows it. Calls meanwhile wait and retry (store_thread.py)."""
        self._thread = StoreThread(db_path, on_unavailable=self._unavailable)
        self._reader = StoreThread(db_path, on_unavailable=self._unavailable)
        """Slow reads that write nothing; opened on the first one, so a reviewer who never reads pays nothing."""
        self._dashboards: DashboardProcess | None = None
        """Started by the first dashboard recomputation; used on the reader thread only."""
        self._session: ReviewSession | None = None
        """Opened by `prepare`; created, used and dropped on the store thread only."""
        self.parting: SessionSummary | None = None
        """What the session did, taken when the store closes: the line `qaeval review` prints on quitting."""
        self.curated = CuratorTally()
        """The curator's decisions the store accepted this session: the line `qaeval curate` prints on quitting."""

    def _unavailable(self, text: str | None) -> None:
        if self.on_unavailable is not None:
            self.on_unavailable(text)

    def _read(self, work: Callable[[StoreBackend], T]) -> T:
        """Run `work`, a read that writes nothing, on the reader thread, handing the interpreter back
        often meanwhile (`READ_SWITCH_SECONDS`)."""

        def run(store: StoreBackend) -> T:
            before = sys.getswitchinterval()
            sys.setswitchinterval(min(before, READ_SWITCH_SECONDS))
            try:
                return work(store)
            finally:  # reads run one at a time on this thread: nothing else changed it meanwhile
                sys.setswitchinterval(before)

        return self._reader.call(run)

    def _on_session(self, work: Callable[[ReviewSession], T]) -> T:
        """Run `work` on the reviewer's session, on the store thread."""

        def run(_store: StoreBackend) -> T:
            if self._session is None:
                raise UsageError("the review session is not open yet")
            return work(self._session)

        return self._thread.call(run)

    def on_store(self, work: Callable[[StoreBackend], T]) -> T:
        """Run a core use case on the app's one store, on the store thread: a new screen's door to the core."""
        return self._thread.call(work)

    # -- preparing and blind review ---------------------------------------------------------------

    def prepare(self, reviewer: str, step: Callable[[str], object], *, enrol: bool = True) -> PrepareReport:
        """Open the store, prepare it for `reviewer` if needed (a queue only with `enrol`), and open
        their session."""

        def run(store: StoreBackend) -> PrepareReport:
            report = ensure_prepared(store, self.config, self.data_paths, reviewer, step=step, enrol=enrol)
            self._session = ReviewSession(store, self.config, reviewer)
            return report

        return self._thread.call(run)

    def team_standing(self, names: Sequence[str]) -> tuple[QueueStanding, ...]:
        return self._thread.call(lambda store: team_standing(store, names))

    def overview(self) -> StoreOverview:
        return self._thread.call(lambda store: store_overview(store, self.data_paths))

    def progress(self) -> Progress:
        return self._on_session(lambda session: session.progress())

    def next_item(self) -> BlindItemView | None:
        return self._on_session(lambda session: session.next_item())

    def next_with_progress(self) -> tuple[BlindItemView | None, Progress]:
        """`next_item` and the progress in one hand-off: once the session has read the history (the
        app's preparation does), the progress is counts it already holds."""
        return self._on_session(lambda session: (session.next_item(), session.progress()))

    def wait_saved(self) -> None:
        """Wait until every label submitted so far is on disk (off the store thread: submits go on)."""
        self._thread.durable()

    def gold_answer(self, item_id: str, scores: dict[str, int | None]) -> str | None:
        return self._on_session(lambda session: session.gold_answer(item_id, scores))

    def gold_lock(self, item_id: str) -> dict[str, int | None]:
        return self._on_session(lambda session: session.gold_lock(item_id))

    def gold(self, item_id: str, scores: dict[str, int | None]) -> tuple[str | None, dict[str, int | None]]:
        """`gold_answer`, then `gold_lock`, in one hand-off to the writer."""
        return self._on_session(lambda session: (session.gold_answer(item_id, scores), session.gold_lock(item_id)))

    def submit(self, item_id: str, scores: dict[str, int | None], note: str, flagged: bool, seconds: float) -> Label:
        return self._on_session(lambda session: session.submit(item_id, scores, note, flagged, seconds))

    def skip(self, item_id: str, seconds: float) -> Label:
        return self._on_session(lambda session: session.skip(item_id, seconds))

    def submit_and_next(
        self, item_id: str, scores: dict[str, int | None], note: str, flagged: bool, seconds: float
    ) -> Advance:
        """`submit`, the next item and the progress in one hand-off to the writer."""
        return self._on_session(lambda session: session.submit_and_next(item_id, scores, note, flagged, seconds))

    def skip_and_next(self, item_id: str, seconds: float) -> Advance:
        return self._on_session(lambda session: session.skip_and_next(item_id, seconds))

    def undo(self) -> BlindItemView | None:
        return self._on_session(lambda session: session.undo())

    def reveal(self, item_id: str) -> RevealView:
        return self._on_session(lambda session: session.reveal(item_id))

    def summary(self) -> SessionSummary:
        return self._on_session(lambda session: session.summary())

    # -- inbox and promotion ----------------------------------------------------------------------

    def inbox(self, status: str | None, search: str | None) -> tuple[list[InboxEntry], list[InboxEntry]]:
        """(entries matching the filters, every entry) so a screen can show counts beside the list."""
        from qaeval_tui.core.curation.inbox import list_inbox

        return self._read(lambda store: (list_inbox(store, status=status, search=search or None), list_inbox(store)))

    def flags(self, state: FlagState, search: str | None, axis: str | None = None) -> list[Flag]:
        from qaeval_tui.core.curation.flags import list_flags

        rubric = self.config.rubric
        return self._read(lambda store: list_flags(store, state=state, search=search or None, rubric=rubric, axis=axis))

    def resolve_flag(self, flag_id: int, note: str, curator: str) -> Flag:
        from qaeval_tui.core.curation.flags import resolve_flag

        flag = self._thread.call(lambda store: resolve_flag(store, flag_id, note=note, curator=curator))
        self.curated.flags_resolved += 1
        return flag

    def import_misses(self, path: Path) -> ImportReport:
        """Production-miss lines or a trace export (OTLP, OpenInference, Langfuse), told apart by content."""
        from qaeval_tui.core.curation.traces.importer import import_file

        return self._thread.call(lambda store: import_file(store, path))

    def promotion_context(self, trace_id: str) -> PromotionContext:
        from qaeval_tui.core.curation.promotion import promotion_context

        return self._thread.call(lambda store: promotion_context(store, self.target, trace_id))

    def promote(self, draft: PromotionDraft, snapshot: GoldenSnapshot) -> PromotionResult:
        from qaeval_tui.core.curation.promotion import promote

        now = self.now() if self.now else None
        result = self._thread.call(lambda store: promote(store, draft, self.target, snapshot=snapshot, now=now))
        self.curated.promoted += 1
        return result

    def reject(self, trace_id: str, reason: str, curator: str) -> InboxDecision:
        from qaeval_tui.core.curation.rejection import reject

        now = self.now() if self.now else None
        decision = self._thread.call(
            lambda store: reject(store, trace_id, reason=reason, curator=curator, now=now, target=self.target)
        )
        self.curated.rejected += 1
        return decision

    # -- adjudication, dashboard ------------------------------------------------------------------

    def adjudication_queue(self, viewer: str = "") -> AdjudicationQueue:
        """`viewer`: who looks (their exposure to their own items is recorded in the core)."""
        from qaeval_tui.core.curation.adjudication import adjudication_queue

        return self._thread.call(lambda store: adjudication_queue(store, self.config, viewer=viewer))

    def dossier(
        self,
        item_id: str,
        *,
        with_judge: bool,
        judge_config_hash: str | None = None,
        viewer: str = "",
        view: str = "item dossier",
    ) -> ItemDossier:
        from qaeval_tui.core.curation.dossier import item_dossier

        return self._thread.call(
            lambda store: item_dossier(
                store,
                self.config,
                item_id,
                with_judge=with_judge,
                judge_config_hash=judge_config_hash,
                viewer=viewer,
                view=view,
            )
        )

    def record_case_view(self, case_id: str, viewer: str) -> int:
        from qaeval_tui.core.curation.dossier import record_case_view

        return self._thread.call(lambda store: record_case_view(store, viewer, case_id))

    def record_consensus(
        self, item_id: str, axis: str, score: int | None, reason: str, adjudicator: str, cites: str | None = None
    ) -> None:
        from qaeval_tui.core.curation.adjudication import record_consensus

        self._thread.call(
            lambda store: record_consensus(store, self.config, item_id, axis, score, reason, adjudicator, cites)
        )
        self.curated.rulings += 1

    def dashboard(self, step: Step | None = None) -> Dashboard:
        """Recompute the dashboard (in its own process, on the reader's turn: after the reads asked before)."""

        def run(_store: StoreBackend) -> Dashboard:
            if self._dashboards is None:
                self._dashboards = DashboardProcess(self.db_path, self.config)
            return self._dashboards.compute(step)

        return self._reader.call(run)

    # -- stored runs ------------------------------------------------------------------------------

    def runs(self) -> tuple[list[RunSummary], tuple[BandedSeries, ...]]:
        """Every stored run, newest first, and each gated metric's history over the runs comparable with
        the newest (same suite and judge), with the drift band of the newest."""
        from qaeval_tui.core.gate.decision import resolve_tolerances
        from qaeval_tui.core.runs.views import list_runs
        from qaeval_tui.core.statistics.figures import metric_histories, points_from_runs

        gated = tuple(resolve_tolerances(self.config.gate.tolerances))

        def run(store: StoreBackend) -> tuple[list[RunSummary], tuple[BandedSeries, ...]]:
            return list_runs(store), metric_histories(points_from_runs(store.list_runs()), gated)

        return self._read(run)

    def run_table(self, run_id: str, criteria: CaseFilter) -> RunTable:
        from qaeval_tui.core.runs.views import run_table

        return self._read(lambda store: run_table(store, run_id, criteria))

    def run_case(self, run_id: str, case_id: str, viewer: str) -> CaseDetail:
        """One case of a run; `viewer`'s exposure to it is recorded when the item is theirs."""
        from qaeval_tui.core.runs.views import case_detail

        return self._thread.call(lambda store: case_detail(store, run_id, case_id, viewer=viewer or None))

    def compare_runs(self, run_a: str, run_b: str) -> RunDiff:
        from qaeval_tui.core.runs.compare import compare_runs

        return self._read(lambda store: compare_runs(store, run_a, run_b))

    # -- golden set -------------------------------------------------------------------------------

    def run_new_cases_and_queue(self) -> NewCasesQueued:
        """Run the golden cases no run answered and queue them for the roster (after a promotion)."""
        from qaeval_tui.core.usecases.queue import run_new_cases_and_queue

        return self._thread.call(lambda store: run_new_cases_and_queue(self.config, store, self.data_paths))

    def unreviewed_notice(self) -> str | None:
        """Home's line on golden cases not yet run or queued (None too when the golden set is invalid:
        the overview reports that)."""
        from qaeval_tui.core.errors import QaevalError
        from qaeval_tui.core.review.queue import unreviewed_cases

        def run(store: StoreBackend) -> str | None:
            try:
                return unreviewed_cases(store, load_golden(self.data_paths)).notice
            except QaevalError:
                return None

        return self._read(run)

    def golden(self) -> GoldenSet:
        """The whole golden set as the promote form validates against (living split included)."""
        return load_golden(self.target.files())

    def close(self) -> None:
        """Close both connections once the calls in flight have finished (each on its own thread); the app
        calls it on exit. Calls after it fail with a UsageError; calling it twice is harmless."""
        self._reader.close()
        if self._dashboards is not None:  # the reader has stopped: nothing uses it any more
            self._dashboards.close()
        self._thread.close()
        if self._session is not None and self.parting is None:  # the store thread has stopped: no race
            self.parting = self._session.parting_summary()
