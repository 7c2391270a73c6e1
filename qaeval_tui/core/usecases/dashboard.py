"""Everything the calibration dashboard shows, computed in one call (DESIGN §5).

The dashboard reads the store once: per-axis agreement (alpha with its bootstrap CI, raw
agreement, label distribution), judge versus human per axis (the same `calibration_for` that
`qaeval calibrate` runs, adjudications included, so the screen and the CLI cannot disagree),
each axis's confusion matrix, and every reviewer's progress. It also keeps, per axis, which items
sit in which confusion cell, so the screen can open the items behind any cell.

A store with no labels or no judge verdicts is not an error here: that part of the dashboard
carries the reason instead of figures, and the rest is still shown.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

import numpy as np

from qaeval_tui.core.batch import with_collector_paused
from qaeval_tui.core.config import Config
from qaeval_tui.core.curation.dossier import CONSENSUS_SOURCES
from qaeval_tui.core.curation.flags import open_flag_count
from qaeval_tui.core.errors import QaevalError, UsageError
from qaeval_tui.core.statistics.agreement import AgreementReport
from qaeval_tui.core.statistics.calibration import CalibrationReport, human_consensus
from qaeval_tui.core.statistics.figures import Pace, reviewer_pace
from qaeval_tui.core.statistics.label_table import FloatArray, IntArray
from qaeval_tui.core.statistics.sources import (
    LabelInput,
    agreement_for,
    calibration_for,
    stored_label_input,
    verdicts_from_store,
)
from qaeval_tui.core.statistics.verdict_table import VerdictTable
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.rows import CorruptRowError, ItemAxis, LabelRevision, StoredLabel

STEPS: tuple[str, ...] = (
    "Reading labels",
    "Inter-rater agreement (bootstrap)",
    "Reading judge verdicts",
    "Judge vs human",
    "Reviewer progress",
)
"""What `compute_dashboard` reports through `step`, in order (for a progress bar of len(STEPS))."""

Step = Callable[[int, str], object]


@dataclass(frozen=True)
class ReviewerProgress:
    reviewer: str
    assigned: int
    done: int
    """Items of the reviewer's queue with a submitted label."""
    skipped: int
    """Items of the queue skipped and not labeled since."""
    flagged: int
    labeled: int
    """Every item the reviewer labeled, queued or imported."""
    post_reveal: int
    """Revisions made after seeing the judge (kept, not used by the statistics)."""
    seconds_spent: float


@dataclass(frozen=True)
class CellItem:
    """One item behind a confusion-matrix cell."""

    item_id: str
    case_id: str
    human: int
    judge: int
    consensus_source: str


@dataclass(frozen=True)
class ConfusionView:
    """Counts per (human consensus, judge) pair: rows are human values, columns judge values, in scale order."""

    axis: str
    scale: tuple[int, ...]
    counts: tuple[tuple[int, ...], ...]

    @property
    def n(self) -> int:
        return sum(sum(row) for row in self.counts)

    def row_total(self, human: int) -> int:
        return sum(self.counts[self.scale.index(human)])

    def count(self, human: int, judge: int) -> int:
        return self.counts[self.scale.index(human)][self.scale.index(judge)]


@dataclass(frozen=True)
class _AxisPairs:
    """The items calibration paired on one axis, with both values (parallel arrays)."""

    items: tuple[str, ...]
    cases: tuple[str, ...]
    """The case of each item ("" when the store has none): parallel tuples rather than a mapping, so the
    dashboard crosses from the process that computes it (tui/dashboard_process.py) without rehashing."""
    human: FloatArray
    judge: FloatArray
    source: IntArray


@dataclass(frozen=True)
class Dashboard:
    rubric_version: str
    labels_read: int
    agreement: AgreementReport | None
    agreement_problem: str | None
    calibration: CalibrationReport | None
    calibration_problem: str | None
    reviewers: tuple[ReviewerProgress, ...]
    open_flags: int = 0
    """Reviewers' flags and notes no curator has resolved yet (`qaeval flags list`)."""
    pace: tuple[Pace, ...] = ()
    """Each reviewer's seconds per item through their queue, in the order labelled."""
    _pairs: Mapping[str, _AxisPairs] = field(default_factory=dict, repr=False)

    def confusion(self, axis: str) -> ConfusionView | None:
        """The axis's confusion matrix, or None without a calibration."""
        if self.calibration is None or axis not in self.calibration.axes:
            return None
        figures = self.calibration.axes[axis]
        return ConfusionView(axis, figures.scale, tuple(tuple(row) for row in figures.confusion))

    def items_in_cell(self, axis: str, judge_value: int, human_value: int) -> list[CellItem]:
        """The items whose human consensus is `human_value` and judge score `judge_value` on `axis`."""
        pairs = self._pairs.get(axis)
        if pairs is None:
            return []
        chosen = np.flatnonzero((pairs.human == human_value) & (pairs.judge == judge_value))
        found = [
            CellItem(
                item_id=pairs.items[i],
                case_id=pairs.cases[i],
                human=human_value,
                judge=judge_value,
                consensus_source=CONSENSUS_SOURCES[int(pairs.source[i])],
            )
            for i in chosen.tolist()
        ]
        return sorted(found, key=lambda cell: (cell.case_id, cell.item_id))


def reviewer_progress(
    rows: Sequence[LabelRevision], assignments: Sequence[tuple[str, str, int]]
) -> list[ReviewerProgress]:
    """Per reviewer, from `Store.labels()` rows and `Store.assignments()` (see `progress_from_revisions`)."""
    revisions = [
        StoredLabel._make([*(getattr(row.label, name) for name in StoredLabel._fields[:-1]), row.id]) for row in rows
    ]
    queues: defaultdict[str, set[str]] = defaultdict(set)
    for reviewer, item_id, _ in assignments:
        queues[reviewer].add(item_id)
    return progress_from_revisions(revisions, queues)


def progress_from_revisions(
    revisions: Sequence[StoredLabel], queues: Mapping[str, AbstractSet[str]]
) -> list[ReviewerProgress]:
    """Per reviewer, counted the way the review screen counts one reviewer's own progress.

    `queues` holds the item ids of each reviewer's queue (`Store.queued_items()`).
    """
    latest: defaultdict[str, dict[str, StoredLabel]] = defaultdict(dict)
    skipped: defaultdict[str, set[str]] = defaultdict(set)
    seconds: defaultdict[str, float] = defaultdict(float)
    post_reveal: defaultdict[str, int] = defaultdict(int)
    for revision in revisions:
        reviewer, item_id = revision.reviewer, revision.item_id
        if item_id in queues.get(reviewer, ()):
            seconds[reviewer] += revision.seconds_spent
        if revision.skipped:
            skipped[reviewer].add(item_id)
            continue
        latest[reviewer][item_id] = revision
        if revision.revealed:
            post_reveal[reviewer] += 1
    result = []
    for reviewer in sorted(set(queues) | set(latest) | set(skipped)):
        queue = queues.get(reviewer, set())
        submitted = latest.get(reviewer, {})
        in_queue = [revision for item_id, revision in submitted.items() if item_id in queue]
        result.append(
            ReviewerProgress(
                reviewer=reviewer,
                assigned=len(queue),
                done=len(in_queue),
                skipped=len((skipped.get(reviewer, set()) & queue) - submitted.keys()),
                flagged=sum(1 for revision in in_queue if revision.flagged),
                labeled=len(submitted),
                post_reveal=post_reveal.get(reviewer, 0),
                seconds_spent=seconds.get(reviewer, 0.0),
            )
        )
    return result


def _pairs(
    labels: LabelInput,
    verdicts: VerdictTable,
    adjudicated: Mapping[ItemAxis, int | None],
    case_ids: Mapping[str, str],
    config: Config,
) -> dict[str, _AxisPairs]:
    """Per axis, the (human, judge) pairs calibration counts, with the item and case of each."""
    table = labels.table
    aligned = verdicts.align(table.items)
    items = np.asarray(table.items, dtype=object)
    found: dict[str, _AxisPairs] = {}
    for axis in config.rubric.axes:
        consensus = human_consensus(table, axis, adjudicated, config.calibration.min_reviewers)
        judge = verdicts.scores_for(table.items, axis.name, aligned)
        pair = consensus.resolved & ~np.isnan(judge)
        paired = tuple(items[pair].tolist())
        found[axis.name] = _AxisPairs(
            items=paired,
            cases=tuple(case_ids.get(item_id, "") for item_id in paired),
            human=consensus.values[pair],
            judge=judge[pair],
            source=consensus.source[pair],
        )
    return found


@with_collector_paused  # a batch step over every label: see core/batch.py
def compute_dashboard(store: StoreBackend, config: Config, *, step: Step | None = None) -> Dashboard:
    """Every figure of the dashboard. Slow on big stores (the bootstrap): run it off the UI thread.

    `step(index, text)` is called before each of STEPS.
    """
    say: Step = step or (lambda _index, _text: None)
    say(0, STEPS[0])
    labels: LabelInput | None = None
    agreement = calibration = None
    agreement_problem = calibration_problem = None
    pairs: dict[str, _AxisPairs] = {}
    try:  # a bad label row is named on the dashboard (and quarantined from the CLI), never a crash
        revisions = store.label_revisions()
    except CorruptRowError as exc:
        revisions, agreement_problem, calibration_problem = [], str(exc), str(exc)
    try:
        if agreement_problem is None:
            labels = stored_label_input(store, revisions, config.rubric)
    except UsageError as exc:
        agreement_problem = calibration_problem = str(exc)
    say(1, STEPS[1])
    if labels is not None:
        agreement = agreement_for(labels, config)
    say(2, STEPS[2])
    verdicts = None
    if labels is not None:
        try:
            verdicts = verdicts_from_store(store, config.rubric)
        except QaevalError as exc:
            calibration_problem = str(exc)
    say(3, STEPS[3])
    if labels is not None and verdicts is not None:
        calibration = calibration_for(labels, verdicts, config, store)
        pairs = _pairs(labels, verdicts, store.adjudications(), store.case_ids_by_item(), config)
    say(4, STEPS[4])
    queues = store.queued_items()
    progress = progress_from_revisions(revisions, queues)
    return Dashboard(
        rubric_version=config.rubric.version,
        labels_read=len(revisions),
        agreement=agreement,
        agreement_problem=agreement_problem,
        calibration=calibration,
        calibration_problem=calibration_problem,
        reviewers=tuple(progress),
        open_flags=open_flag_count(store),
        pace=tuple(reviewer_pace(revisions, queues)),
        _pairs=pairs,
    )
