"""Blind review: one reviewer's queue, the view model the review screen renders, and label revisions.

The view model is the blindness guarantee (DESIGN §4): `BlindItemView` has no field that could
carry the judge verdict, another reviewer's label, the system's name or the readable case id, so
no screen built from it can leak them. The judge verdict is reachable only through `reveal`, and
only after this reviewer's own submit. Labels are append-only revisions (DESIGN §3.5).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from qaeval_tui.core.config import Config
from qaeval_tui.core.errors import QaevalError, UsageError
from qaeval_tui.core.limits import MAX_NOTE_CHARS
from qaeval_tui.core.models.label import Label
from qaeval_tui.core.review.ledger import QueueLedger
from qaeval_tui.core.review.queue import AssignmentReport, assign, build_review_items
from qaeval_tui.core.review.views import (
    AxisView,
    BlindItemView,
    CitationView,
    OtherLabel,
    Progress,
    RevealView,
    SessionSummary,
    SourceView,
    axis_views,
    content_views,
    find_quote,
)
from qaeval_tui.core.rubric import Rubric
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.labels import LabelPrior
from qaeval_tui.core.store.rows import LabelDraft, LabelMark, LabelRevision

__all__ = [
    "Advance",
    "AssignmentReport",
    "AxisView",
    "BlindItemView",
    "BlindnessError",
    "CitationView",
    "InvalidScoresError",
    "Progress",
    "RevealView",
    "ReviewSession",
    "SessionSummary",
    "SourceView",
    "assign",
    "build_review_items",
    "find_quote",
    "score_problems",
]

ABSTAIN_GOLD = "The system should abstain: the sources do not support an answer to this question."


class BlindnessError(QaevalError):
    """An action that would break blindness, such as revealing the verdict before one's own submit."""


class InvalidScoresError(QaevalError):
    """A submitted label does not fit the rubric."""


@dataclass(frozen=True, slots=True)
class Advance:
    """What one submit (or skip) hands back: the label as stored, the next item's view (None when the
    queue is done) and the progress counting the label."""

    label: Label
    item: BlindItemView | None
    progress: Progress


def score_problems(rubric: Rubric, scores: Mapping[str, object], *, require_all: bool) -> list[tuple[str, str]]:
    """(field, message) for every way `scores` misfits the rubric; None means "can't judge"."""
    problems: list[tuple[str, str]] = []
    names = rubric.axis_names
    for axis_name, value in scores.items():
        if axis_name not in names:
            problems.append(
                (f"scores.{axis_name}", f"unknown axis; the rubric (version {rubric.version}) has {list(names)}")
            )
            continue
        scale = rubric.axis(axis_name).scale
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value not in scale):
            problems.append(
                (f"scores.{axis_name}", f"{value!r} is not on the scale {list(scale)} (or null for can't judge)")
            )
    if require_all:
        for axis_name in names:
            if axis_name not in scores:
                problems.append((f"scores.{axis_name}", "missing: give a scale value, or null for can't judge"))
    return problems


class ReviewSession:
    """One reviewer working through their queue in one store."""

    def __init__(self, store: StoreBackend, config: Config, reviewer: str) -> None:
        if not reviewer or not reviewer.strip():
            raise UsageError("a reviewer name is required")
        self.store = store
        self.config = config
        self.reviewer = reviewer
        self._undo_depth = 0
        self._session_rows: list[Label] = []
        self._ledger = QueueLedger(store, reviewer)
        # What this session read of the items it showed: the case id a label row carries, and the blind
        # scores the gold answer locked (kept current by this session's own writes; a submit's write
        # transaction reads the lock again, so a lock taken elsewhere meanwhile still holds).
        self._case_ids: dict[str, str] = {}
        self._locks: dict[str, dict[str, int | None]] = {}
        self._current = False
        """The ledger took in the label just written, and the store held nothing else new when it did."""

    @property
    def rubric(self) -> Rubric:
        return self.config.rubric

    # -- reading the queue ----------------------------------------------------------------------

    @staticmethod
    def _latest_submitted(history: list[LabelRevision]) -> dict[str, Label]:
        latest: dict[str, Label] = {}
        for row in history:
            if not row.label.skipped:
                latest[row.label.item_id] = row.label
        return latest

    def progress(self) -> Progress:
        self._ledger.sync()
        return self._ledger.progress()

    def next_item(self) -> BlindItemView | None:
        """The first assigned item, in this reviewer's order, without a submitted label.

        Skipped items come back after every unlabeled one, the longest-skipped first, so skipping
        again moves an item to the back instead of looping on it.
        """
        self._ledger.sync()
        return self._next_view()

    def _next_view(self) -> BlindItemView | None:
        """`next_item` from what the ledger holds now (the caller synced it)."""
        ledger = self._ledger
        item_id = ledger.next_item_id()
        if item_id is None:
            return None
        return self._placed_view(item_id, ledger.position(item_id), len(ledger.queue), None)

    def _view(self, item_id: str, queue: Sequence[str], previous: Label | None) -> BlindItemView:
        """The blind view of `item_id`, placed in `queue` (position 0 when it is not in it)."""
        position = queue.index(item_id) + 1 if item_id in queue else 0
        return self._placed_view(item_id, position, len(queue), previous)

    def _placed_view(self, item_id: str, position: int, total: int, previous: Label | None) -> BlindItemView:
        item = self.store.review_item(item_id)
        if item is None:
            raise UsageError(f"no review item {item_id!r} in {self.store.path}")
        case, output = item.case, item.output
        if case is None or output is None:
            raise UsageError(f"review item {item_id!r} has lost its case or output in {self.store.path}")
        self._case_ids[item_id] = item.item.case_id
        citations, sources = content_views(case, output)
        return BlindItemView(
            item_id=item_id,
            position=position,
            total=total,
            question=str(case["question"]),
            answer=str(output.get("answer") or ""),
            abstained=bool(output.get("abstained", False)),
            citations=citations,
            sources=sources,
            axes=axis_views(self.rubric),
            rubric_version=self.rubric.version,
            previous_scores=dict(previous.scores) if previous else {},
            previous_note=previous.note if previous else "",
            previous_flagged=previous.flagged if previous else False,
            gold_lock=self._read_lock(item_id),
        )

    def gold_answer(self, item_id: str, scores: dict[str, int | None]) -> str | None:
        """The gold answer, only once every axis that must not see it is scored (DESIGN §4).

        The first time it is released for an item, the blind scores given are locked for this
        reviewer, in the store: from then on the item's view carries them (`gold_lock`), its gold
        answer shows whatever the scores, and a submit that changes them is refused."""
        if not any(axis.needs_gold for axis in self.rubric.axes):
            return None
        blind_axes = [axis.name for axis in self.rubric.axes if not axis.needs_gold]
        locked = bool(self.gold_lock(item_id))
        if not locked and any(name not in scores for name in blind_axes):
            return None
        if not locked and score_problems(self.rubric, {name: scores[name] for name in blind_axes}, require_all=False):
            return None
        if not locked:
            if item_id not in self._case_ids and self.store.review_item(item_id) is None:
                raise UsageError(f"no review item {item_id!r} in {self.store.path}")
            before = self.store.change_token()
            shown = self.store.record_gold_shown(item_id, self.reviewer, {name: scores[name] for name in blind_axes})
            self._ledger.wrote_aside(before, self.store.change_token())
            self._locks[item_id] = self._blind(shown)
        # Read after the lock is recorded: a team store gives a reviewer the gold fields only then.
        item = self.store.review_item(item_id)
        case = None if item is None else item.case
        if case is None:
            raise UsageError(f"no review item {item_id!r} in {self.store.path}")
        if case.get("expected_behavior") == "abstain":
            return ABSTAIN_GOLD
        return str(case.get("gold_answer") or "")

    def gold_lock(self, item_id: str) -> dict[str, int | None]:
        """The blind scores locked for `item_id` because its gold answer was shown to this reviewer
        ({} while it was not). Kept in the store, so it holds after leaving the item or the app; read
        from it each time the item is shown (this session's own locks are known without a read)."""
        if item_id in self._locks:
            return dict(self._locks[item_id])
        return self._read_lock(item_id)

    def _read_lock(self, item_id: str) -> dict[str, int | None]:
        if not self._needs_gold:
            return {}
        lock = self._blind(self.store.gold_shown(item_id, self.reviewer))
        self._locks[item_id] = lock
        return dict(lock)

    def _blind(self, shown: Mapping[str, int | None] | None) -> dict[str, int | None]:
        """The blind axes' part of a gold lock ({} for none)."""
        blind = {axis.name for axis in self.rubric.axes if not axis.needs_gold}
        return {} if shown is None else {name: value for name, value in shown.items() if name in blind}

    def _check_gold_lock(self, lock: Mapping[str, int | None], scores: Mapping[str, int | None]) -> None:
        changed = [name for name, value in lock.items() if scores.get(name) != value]
        if changed:
            locked = ", ".join(f"{name} = {lock[name]}" for name in changed)
            raise BlindnessError(
                f"the gold answer was shown for this item, so its blind axes are locked ({locked}); "
                "they may not change after seeing it"
            )

    # -- writing labels --------------------------------------------------------------------------

    def _append(
        self,
        item_id: str,
        scores: dict[str, int | None],
        note: str,
        flagged: bool,
        skipped: bool,
        seconds: float,
    ) -> Label:
        """Write one revision in one transaction; a submit is checked there against the gold lock
        (refused if it changes a locked axis) and against the latest submitted revision (an unchanged
        one is returned, nothing written: a new revision would only add noise to the history)."""
        if not math.isfinite(seconds) or seconds < 0:
            raise InvalidScoresError(f"seconds_spent must be a non-negative number, got {seconds!r}")
        if len(note) > MAX_NOTE_CHARS:
            raise InvalidScoresError(f"note: {len(note)} characters; a note holds at most {MAX_NOTE_CHARS}")
        case_id = self._case_ids.get(item_id)
        if case_id is None:
            item = self.store.review_item(item_id)
            if item is None:
                raise UsageError(f"no review item {item_id!r} in {self.store.path}")
            case_id = self._case_ids[item_id] = item.item.case_id
        unchanged: list[Label] = []

        def guard(prior: LabelPrior) -> bool:
            if skipped:
                return True
            lock = self._locks[item_id] = self._blind(prior.gold_lock) if self._needs_gold else {}
            self._check_gold_lock(lock, scores)
            own = None if prior.latest is None else prior.latest.label
            if (
                own is not None
                and dict(own.scores) == scores
                and (own.note, own.flagged, own.rubric_version) == (note, flagged, self.rubric.version)
            ):
                unchanged.append(own)
                return False
            return True

        before = self.store.change_token()
        row = self.store.submit_label(
            LabelDraft(
                item_id=item_id,
                case_id=case_id,
                reviewer=self.reviewer,
                scores=scores,
                rubric_version=self.rubric.version,
                note=note,
                flagged=flagged,
                skipped=skipped,
                revealed=None,  # the store decides inside the write transaction
                seconds_spent=seconds,
            ),
            guard,
        )
        self._undo_depth = 0
        if row is None:
            self._current = False
            return unchanged[0]
        mark = LabelMark(row.id, item_id, int(skipped), int(flagged), row.label.seconds_spent)
        self._current = self._ledger.wrote_label(before, self.store.change_token(), mark)
        self._session_rows.append(row.label)
        return row.label

    @property
    def _needs_gold(self) -> bool:
        return any(axis.needs_gold for axis in self.rubric.axes)

    def submit(
        self, item_id: str, scores: dict[str, int | None], note: str, flagged: bool, seconds_spent: float
    ) -> Label:
        """Write a new revision with a score (or None, can't judge) for every axis; committed on return."""
        problems = score_problems(self.rubric, scores, require_all=True)
        if problems:
            raise InvalidScoresError("; ".join(f"{field}: {message}" for field, message in problems))
        return self._append(item_id, dict(scores), note, flagged, False, seconds_spent)

    def skip(self, item_id: str, seconds_spent: float) -> Label:
        """Record a skip (time included); the item comes back after the unlabeled ones."""
        return self._append(item_id, {}, "", False, True, seconds_spent)

    def submit_and_next(
        self, item_id: str, scores: dict[str, int | None], note: str, flagged: bool, seconds_spent: float
    ) -> Advance:
        """`submit`, then `next_item` and `progress`, reading only what the next item needs: the label
        is committed before anything is returned."""
        label = self.submit(item_id, scores, note, flagged, seconds_spent)
        return self._advance(label)

    def skip_and_next(self, item_id: str, seconds_spent: float) -> Advance:
        """`skip`, then `next_item` and `progress`, as `submit_and_next`."""
        return self._advance(self.skip(item_id, seconds_spent))

    def _advance(self, label: Label) -> Advance:
        if not self._current:  # in step only when it took in this label and nothing else was committed
            self._ledger.sync()
        self._current = False
        return Advance(label, self._next_view(), self._ledger.progress())

    def undo(self) -> BlindItemView | None:
        """Reopen the item this reviewer most recently submitted or skipped; called again, the one before it.

        Nothing is erased: the view carries the latest submitted revision as `previous_*` (none for
        an item only skipped), and the next submit on it writes a new revision.
        """
        ledger = self._ledger
        ledger.sync()
        submitted = ledger.submitted_item(self._undo_depth)
        if submitted is None:
            return None
        item_id, label_id = submitted
        # The latest submitted revision the store still reads: one a curator quarantined since the
        # ledger took it in is left out (the one before it shows, or none).
        rows = self.store.labels(reviewer=self.reviewer, item_id=item_id) if label_id else []
        previous = self._latest_submitted(rows).get(item_id)
        self._undo_depth += 1
        return self._placed_view(item_id, ledger.position(item_id), len(ledger.queue), previous)

    def reveal(self, item_id: str) -> RevealView:
        """The judge verdict for an item this reviewer has submitted; later revisions are marked post-reveal."""
        own = self._latest_submitted(self.store.labels(reviewer=self.reviewer, item_id=item_id)).get(item_id)
        if own is None:
            raise BlindnessError(f"submit your own label for {item_id} before revealing the judge verdict")
        before = self.store.change_token()
        self.store.record_reveal(item_id, self.reviewer)
        self._ledger.wrote_aside(before, self.store.change_token())
        item = self.store.review_item(item_id)
        case_id = item.item.case_id if item else own.case_id
        verdict = self.store.latest_verdict(item_id)
        yours: dict[str, int | None] = dict(own.scores)
        others = self._other_labels(item_id)
        if verdict is None:
            return RevealView(item_id, case_id, "", "missing", {}, {}, yours, {name: None for name in yours}, others)
        document = verdict.verdict
        judge_scores: dict[str, int | None] = dict(document.scores)
        agrees: dict[str, bool | None] = {}
        for name in self.rubric.axis_names:
            mine, theirs = yours.get(name), judge_scores.get(name)
            agrees[name] = None if mine is None or theirs is None else mine == theirs
        return RevealView(
            item_id=item_id,
            case_id=case_id,
            judge_name=str(document.judge.get("name", "")),
            status=document.status,
            judge_scores=judge_scores,
            evidence=dict(document.evidence),
            your_scores=yours,
            agrees=agrees,
            others=others,
        )

    def _other_labels(self, item_id: str) -> tuple[OtherLabel, ...]:
        """Each other reviewer's latest submitted label on `item_id` (read after the reveal is recorded)."""
        latest: dict[str, Label] = {}
        for row in sorted(self.store.labels(item_id=item_id), key=lambda row: row.id):
            if row.label.reviewer != self.reviewer and not row.label.skipped:
                latest[row.label.reviewer] = row.label
        return tuple(OtherLabel(name, dict(label.scores), label.note) for name, label in sorted(latest.items()))

    def summary(self) -> SessionSummary:
        return self._summary(self.progress())

    def parting_summary(self) -> SessionSummary:
        """`summary` from what this session knows already, reading nothing from the store (the line
        printed on quitting, when the store may be gone)."""
        return self._summary(self._ledger.progress())

    def _summary(self, progress: Progress) -> SessionSummary:
        rows = self._session_rows
        labeled = {row.item_id: row for row in rows if not row.skipped}
        skipped = {row.item_id for row in rows if row.skipped} - labeled.keys()
        return SessionSummary(
            labeled=len(labeled),
            skipped=len(skipped),
            flagged=sum(1 for row in labeled.values() if row.flagged),
            seconds_spent=float(sum(row.seconds_spent for row in rows)),
            remaining=progress.assigned - progress.done,
        )
