"""The review session's incremental queue state agrees with reading the whole history, at every step.

`reference` is the straightforward reading the session used to do on every call (the reviewer's
full label history and queue, from scratch); the session must give the same next item, position,
progress and undo order after any mix of submits, revisions, skips, undo and reopen, other
reviewers' labels, the same reviewer labeling from another process, and queues growing or being
reassigned from this connection or another.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from qaeval_tui.core.config import Config
from qaeval_tui.core.models.label import Label
from qaeval_tui.core.review.session import Progress, ReviewSession, assign, build_review_items
from qaeval_tui.core.store.labels import LabelPrior
from qaeval_tui.core.store.rows import LabelDraft, LabelMark, LabelRevision
from qaeval_tui.core.store.sqlite import Store
from tests.core.review_fixtures import FULL, store_with_run

REVIEWERS = ("ana", "ben", "chloe")


@dataclass(frozen=True)
class Expected:
    next_item: tuple[str, int, int] | None  # (item_id, position, total)
    progress: Progress
    undo_order: list[tuple[str, int]]
    """(item_id, id of its latest submit, 0 when only skipped) per item, by its latest submit or skip, newest first."""


def reference(store: Store, reviewer: str) -> Expected:
    """What the session must show, read from scratch the slow and obvious way."""
    queue = [item_id for _, item_id, _ in store.assignments(reviewer)]
    revisions = store.labels(reviewer=reviewer)
    history = [(row.id, row.label) for row in revisions]
    submitted = {label.item_id: (rid, label) for rid, label in history if not label.skipped}
    last_skip = {label.item_id: rid for rid, label in history if label.skipped}
    fresh = [item_id for item_id in queue if item_id not in submitted and item_id not in last_skip]
    waiting = sorted((last_skip[i], i) for i in queue if i not in submitted and i in last_skip)
    upcoming = fresh[0] if fresh else waiting[0][1] if waiting else None
    queued = set(queue)
    rows = [label for _, label in history if label.item_id in queued]
    queued_submits = {label.item_id: label for label in rows if not label.skipped}
    progress = Progress(
        done=len(queued_submits),
        assigned=len(queue),
        skipped=len({label.item_id for label in rows if label.skipped} - queued_submits.keys()),
        flagged=sum(1 for label in queued_submits.values() if label.flagged),
        seconds_spent=float(sum(label.seconds_spent for label in rows)),
    )
    return Expected(
        next_item=None if upcoming is None else (upcoming, queue.index(upcoming) + 1, len(queue)),
        progress=progress,
        undo_order=[
            (item_id, submitted[item_id][0] if item_id in submitted else 0)
            for _, item_id in sorted(
                ((max(submitted.get(i, (0,))[0], last_skip.get(i, 0)), i) for i in submitted.keys() | last_skip.keys()),
                reverse=True,
            )
        ],
    )


def shown(session: ReviewSession) -> tuple[str, int, int] | None:
    view = session.next_item()
    return None if view is None else (view.item_id, view.position, view.total)


def assert_agrees(session: ReviewSession, store: Store) -> None:
    expected = reference(store, session.reviewer)
    assert shown(session) == expected.next_item
    assert session.progress() == expected.progress
    restarted = ReviewSession(store, session.config, session.reviewer)  # resume after a restart
    assert (shown(restarted), restarted.progress()) == (expected.next_item, expected.progress)


def random_scores(rng: random.Random) -> dict[str, int | None]:
    return {
        "faithfulness": rng.choice([0, 1, 2, None]),
        "citation_correctness": rng.choice([0, 1]),
        "answer_correctness": rng.choice([0, 1, 2, None]),
    }


class Scenario:
    """Two connections on one database, as two processes: `here` runs the session under test."""

    def __init__(self, tmp_path: Path, seed: int) -> None:
        self.rng = random.Random(seed)
        self.path = tmp_path / "q.db"
        self.here, _ = store_with_run(self.path, n_items=12)
        build_review_items(self.here, "run-1")
        assign(self.here, REVIEWERS, overlap=2, seed=seed)
        self.there = Store.open(self.path)
        self.ana = ReviewSession(self.here, Config(), "ana")
        self.grown = False

    def close(self) -> None:
        self.here.close()
        self.there.close()

    def seconds(self) -> float:
        return self.rng.uniform(0.0, 40.0)

    def step(self) -> None:
        rng, ana = self.rng, self.ana
        action = rng.choice(
            ["submit"] * 6 + ["skip"] * 3 + ["revise", "undo", "reopen", "other", "twin", "twin", "queue", "reveal"]
        )
        view = ana.next_item()
        if action == "submit" and view is not None:
            ana.submit(view.item_id, random_scores(rng), "", rng.random() < 0.3, self.seconds())
        elif action == "skip" and view is not None:
            ana.skip(view.item_id, self.seconds())
        elif action == "revise":
            done = [row.label.item_id for row in self.here.labels(reviewer="ana") if not row.label.skipped]
            if done:
                ana.submit(rng.choice(done), random_scores(rng), "revised", rng.random() < 0.5, self.seconds())
        elif action == "undo":
            ana.undo()
        elif action == "reopen":
            reopened = ana.undo()
            if reopened is not None:
                if rng.random() < 0.8:
                    ana.submit(reopened.item_id, random_scores(rng), "reopened", False, self.seconds())
                else:
                    ana.skip(reopened.item_id, self.seconds())
        elif action == "other":
            self.label_elsewhere(rng.choice(["ben", "chloe"]))
        elif action == "twin":
            self.label_elsewhere("ana")  # the same reviewer in a second terminal
        elif action == "queue":
            self.change_queues()
        elif action == "reveal":
            done = [row.label.item_id for row in self.here.labels(reviewer="ana") if not row.label.skipped]
            if done:
                item_id = rng.choice(done)
                ana.reveal(item_id)
                ana.submit(item_id, FULL, "after reveal", False, self.seconds())

    def label_elsewhere(self, reviewer: str) -> None:
        session = ReviewSession(self.there, Config(), reviewer)
        view = session.next_item()
        if view is None:
            return
        if self.rng.random() < 0.7:
            session.submit(view.item_id, random_scores(self.rng), "", self.rng.random() < 0.3, self.seconds())
        else:
            session.skip(view.item_id, self.seconds())

    def change_queues(self) -> None:
        store = self.rng.choice([self.here, self.there])
        if not self.grown:
            self.grown = True
            more, _ = store_with_run(self.path, n_items=18, run_id="run-2")
            build_review_items(more, "run-2")
            more.close()
            assign(store, REVIEWERS, overlap=2, seed=5)  # new items join the end of each queue
        else:
            assign(store, REVIEWERS, overlap=2, seed=self.rng.randrange(1000), replace=True)  # reshuffled


@pytest.mark.parametrize("seed", range(8))
def test_session_agrees_with_a_full_reading_after_every_step(tmp_path: Path, seed: int) -> None:
    scenario = Scenario(tmp_path, seed)
    try:
        assert_agrees(scenario.ana, scenario.here)
        for _ in range(120):
            scenario.step()
            assert_agrees(scenario.ana, scenario.here)
        undo_order = reference(scenario.here, "ana").undo_order
        fresh = ReviewSession(scenario.here, Config(), "ana")
        reopened = [fresh.undo() for _ in range(len(undo_order) + 1)]
        assert reopened[-1] is None
        assert [view.item_id for view in reopened if view is not None] == [item for item, _ in undo_order]
        latest = {row.id: row.label for row in scenario.here.labels(reviewer="ana")}
        for view, (_, label_id) in zip(reopened, undo_order, strict=False):
            assert view is not None
            if not label_id:  # only ever skipped: reopened with nothing carried over
                assert (view.previous_scores, view.previous_note, view.previous_flagged) == ({}, "", False)
                continue
            row = latest[label_id]
            assert (view.previous_scores, view.previous_note, view.previous_flagged) == (
                row.scores,
                row.note,
                row.flagged,
            )
        summary, progress = scenario.ana.summary(), scenario.ana.progress()
        assert summary.remaining == progress.assigned - progress.done
    finally:
        scenario.close()


def test_every_queued_item_done_then_more_arrive(tmp_path: Path) -> None:
    store, _ = store_with_run(tmp_path / "q.db", n_items=3)
    build_review_items(store, "run-1")
    assign(store, ["ana"], overlap=1, seed=1)
    ana = ReviewSession(store, Config(), "ana")
    while (view := ana.next_item()) is not None:
        ana.submit(view.item_id, FULL, "", False, 1.0)
    assert ana.progress().done == 3
    more, _ = store_with_run(tmp_path / "q.db", n_items=5, run_id="run-2")
    build_review_items(more, "run-2")
    assign(more, ["ana"], overlap=1, seed=1)  # from another connection, as another process would
    more.close()
    assert_agrees(ana, store)
    view = ana.next_item()
    assert view is not None and (view.position, view.total) == (4, 5)


@pytest.mark.parametrize("where", ["this connection, before the submit", "another process, during the submit"])
def test_a_reassignment_around_the_sessions_own_write_is_seen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    store, _ = store_with_run(tmp_path / "q.db", n_items=12)
    build_review_items(store, "run-1")
    assign(store, REVIEWERS, overlap=2, seed=1)
    ana = ReviewSession(store, Config(), "ana")
    view = ana.next_item()
    assert view is not None
    before = store.queue_item_ids("ana")
    if where.startswith("this"):
        assign(store, REVIEWERS, overlap=2, seed=2, replace=True)
    else:
        submit_label = store.submit_label

        def reassigned_meanwhile(
            label: LabelDraft, guard: Callable[[LabelPrior], bool], origin: str = "review"
        ) -> LabelRevision | None:
            with Store.open(store.path) as other:
                assign(other, REVIEWERS, overlap=2, seed=2, replace=True)
            return submit_label(label, guard, origin)

        monkeypatch.setattr(store, "submit_label", reassigned_meanwhile)
    ana.submit(view.item_id, FULL, "", False, 1.0)
    assert store.queue_item_ids("ana") != before
    assert_agrees(ana, store)


# -- the work per call stays small at any depth of history ------------------------------------------


class Reads:
    """Counts what the session reads from the store."""

    def __init__(self, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
        self.queue_reads = 0
        self.label_rows: list[int] = []
        queue_item_ids, label_marks = store.queue_item_ids, store.label_marks

        def counted_queue(reviewer: str) -> list[str]:
            self.queue_reads += 1
            return queue_item_ids(reviewer)

        def counted_marks(reviewer: str, *, after_id: int = 0) -> list[LabelMark]:
            rows = label_marks(reviewer, after_id=after_id)
            self.label_rows.append(len(rows))
            return rows

        monkeypatch.setattr(store, "queue_item_ids", counted_queue)
        monkeypatch.setattr(store, "label_marks", counted_marks)
        monkeypatch.setattr(store, "labels", self.refuse_full_history(store.labels))

    @staticmethod
    def refuse_full_history(labels: Callable[..., list[LabelRevision]]) -> Callable[..., Any]:
        def guarded(*, reviewer: str | None = None, item_id: str | None = None) -> list[LabelRevision]:
            assert item_id is not None, "a session call read a reviewer's whole label history"
            return labels(reviewer=reviewer, item_id=item_id)

        return guarded


def test_after_the_first_read_only_new_revisions_are_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store, _ = store_with_run(tmp_path / "q.db", n_items=40)
    build_review_items(store, "run-1")
    assign(store, ["ana", "ben"], overlap=2, seed=3)
    queue = [item_id for _, item_id, _ in store.assignments("ana")]
    store.insert_labels(
        (
            Label(
                item_id=item_id,
                case_id="c",
                reviewer="ana",
                scores=FULL,
                rubric_version="1",
                revision=revision,
                created_at="2026-01-01T00:00:00Z",
                seconds_spent=2.0,
            )
            for revision in (1, 2)
            for item_id in queue[:30]
        ),
        origin="test",
    )
    reads = Reads(store, monkeypatch)
    ana = ReviewSession(store, Config(), "ana")
    assert ana.next_item().item_id == queue[30]  # type: ignore[union-attr]
    assert reads.label_rows == [60] and reads.queue_reads == 1
    for _ in range(5):
        view = ana.next_item()
        assert view is not None
        blind = {name: FULL[name] for name in ("faithfulness", "citation_correctness")}
        assert ana.gold_answer(view.item_id, blind) is not None  # locks the blind scores: a write
        ana.submit(view.item_id, FULL, "", False, 1.0)
        ana.reveal(view.item_id)  # records the reveal: a write
        ana.progress()
        ana.summary()
    ana.skip(ana.next_item().item_id, 1.0)  # type: ignore[union-attr]
    ana.undo()
    assert reads.label_rows == [60], "the session's own labels are taken in without reading them back"
    assert reads.queue_reads == 1, "the session's own writes do not make it re-read the queue"
    other = Store.open(store.path)
    ReviewSession(other, Config(), "ben").skip(queue[0], 1.0)
    other.close()
    assert ana.progress() == Progress(done=35, assigned=40, skipped=1, flagged=0, seconds_spent=126.0)
    assert reads.queue_reads == 2, "another connection's commit makes it check the queue again"
    assert reads.label_rows == [60, 0], "and read her revisions committed since: none (the skip is ben's)"
