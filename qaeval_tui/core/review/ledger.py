"""One reviewer's queue and what they have done with each item, kept in step with the store.

The reviewer's label revisions are folded once, then only the ones committed since (labels are
append-only and their ids grow in commit order), so the next item and the progress cost the same
at any depth of history. The queue is read again only when something else was committed, since a
reassignment may reorder it; then everything is folded afresh. Another process labeling as the
same reviewer is caught up with like any other write: nothing is assumed about who wrote what.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from qaeval_tui.core.review.views import Progress
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.rows import ChangeToken, LabelMark


@dataclass(slots=True)
class _ItemMarks:
    """This reviewer's revisions of one item, folded; ids are 0 when there is no such revision."""

    last_submit: int = 0
    flagged: bool = False  # of the latest submitted revision
    last_skip: int = 0


class QueueLedger:
    """The queue, per-item marks and progress counts of one reviewer; call `sync` before reading."""

    def __init__(self, store: StoreBackend, reviewer: str) -> None:
        self.store = store
        self.reviewer = reviewer
        self.queue: tuple[str, ...] = ()
        self._token: ChangeToken | None = None
        self._rank: dict[str, int] = {}
        self._marks: dict[str, _ItemMarks] = {}
        self._waiting: dict[str, int] = {}  # skipped, never submitted: item -> id of the latest skip
        self._last_id = 0
        self._cursor = 0  # every queue entry before it has at least one revision
        self._done = self._skipped = self._flagged = 0
        self._seconds = 0.0

    def sync(self) -> None:
        """Take in what was committed since the last sync, by this session or any other (nothing is
        read but the change token when nothing was)."""
        token = self.store.change_token()
        if token == self._token:
            return
        queue = tuple(self.store.queue_item_ids(self.reviewer))
        if queue != self.queue:
            self._restart(queue)
        self._token = token  # read before the queue and the labels, so a commit in between is seen next time
        self._fold(self.store.label_marks(self.reviewer, after_id=self._last_id))

    def wrote_label(self, before: ChangeToken, after: ChangeToken, mark: LabelMark) -> bool:
        """This session appended the label `mark` between the `before` and `after` change tokens.

        When nothing else was committed since the last sync, the queue read then still holds and
        `mark` is the only revision this ledger has not taken in: it is folded here, and the ledger
        is current as of `after` (True). Otherwise the next sync reads what changed, this label
        among it, in id order with anything another process wrote (False).
        """
        if before == self._token and after.others == before.others and mark.id > self._last_id:
            self._fold((mark,))
            self._token = after
            return True
        return False

    def wrote_aside(self, before: ChangeToken, after: ChangeToken) -> None:
        """This session committed something that leaves queues alone (a label, a gold-answer lock,
        a reveal) between the `before` and `after` change tokens: without it, the next sync would
        read the whole queue again to find it unchanged."""
        if before == self._token and after.others == before.others:
            self._token = after

    def _restart(self, queue: tuple[str, ...]) -> None:
        self.queue = queue
        self._rank = {item_id: rank for rank, item_id in enumerate(queue)}
        self._marks, self._waiting = {}, {}
        self._last_id = self._cursor = 0
        self._done = self._skipped = self._flagged = 0
        self._seconds = 0.0

    def _fold(self, marks: Iterable[LabelMark]) -> None:
        by_item, rank = self._marks, self._rank
        for label_id, item_id, skipped, flagged, seconds in marks:
            item = by_item.get(item_id)
            if item is None:
                item = by_item[item_id] = _ItemMarks()
            queued = item_id in rank
            if queued:
                self._count(item, -1)
            if skipped:
                item.last_skip = label_id
            else:
                item.last_submit, item.flagged = label_id, bool(flagged)
            if queued:
                self._count(item, 1)
                self._seconds += seconds
            if item.last_submit:
                self._waiting.pop(item_id, None)
            else:
                self._waiting[item_id] = item.last_skip
            self._last_id = label_id

    def _count(self, item: _ItemMarks, sign: int) -> None:
        if item.last_submit:
            self._done += sign
            self._flagged += sign * item.flagged
        elif item.last_skip:
            self._skipped += sign

    def position(self, item_id: str) -> int:
        """1-based place of `item_id` in the queue, 0 when it is not in it."""
        return self._rank.get(item_id, -1) + 1

    def next_item_id(self) -> str | None:
        """The first queue entry with no revision at all, else the longest-skipped unsubmitted one."""
        queue = self.queue
        while self._cursor < len(queue) and queue[self._cursor] in self._marks:
            self._cursor += 1  # labels are never removed, so entries passed over stay passed over
        if self._cursor < len(queue):
            return queue[self._cursor]
        waiting = [(skip_id, item_id) for item_id, skip_id in self._waiting.items() if item_id in self._rank]
        return min(waiting)[1] if waiting else None

    def progress(self) -> Progress:
        return Progress(
            done=self._done,
            assigned=len(self.queue),
            skipped=self._skipped,
            flagged=self._flagged,
            seconds_spent=self._seconds,
        )

    def submitted_item(self, depth: int) -> tuple[str, int] | None:
        """(item_id, label id) of the item with the `depth`-th most recent submit or skip (0 is the
        latest), queued or not: `u` after `s` reopens the item just skipped. The id is the item's
        latest submitted revision, 0 when it was only ever skipped."""
        recent = sorted(
            ((max(m.last_submit, m.last_skip), item_id) for item_id, m in self._marks.items()), reverse=True
        )
        if depth >= len(recent):
            return None
        item_id = recent[depth][1]
        return item_id, self._marks[item_id].last_submit
