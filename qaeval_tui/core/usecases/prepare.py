"""Getting a store ready for one reviewer, and what the home screen shows about it.

`qaeval review` on a fresh machine must work with nothing set up: `ensure_prepared` runs the
configured system and judge over the golden data (as `qaeval run` does: the judge answers from the
store's verdict cache and fills it), builds the review items and the queue. On a
store that is already prepared for the reviewer it does nothing, so a restart resumes.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from qaeval_tui.core.config import Config
from qaeval_tui.core.errors import QaevalError, UsageError
from qaeval_tui.core.golden.loader import GoldenSet, load_golden
from qaeval_tui.core.models.label import reviewer_name_problem as reviewer_name_problem  # the one rule
from qaeval_tui.core.review.session import Progress, assign, build_review_items
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.opening import StoreLocation, open_store
from qaeval_tui.core.store.rows import QueueEntry

Step = Callable[[str], object]


@dataclass(frozen=True)
class PrepareReport:
    """What `ensure_prepared` had to do; all zeros and False on a store that was ready."""

    ran: bool
    run_id: str
    items_created: int
    newly_assigned: int
    queue_length: int

    @property
    def changed(self) -> bool:
        return self.ran or self.items_created > 0 or self.newly_assigned > 0


@dataclass(frozen=True)
class RunLine:
    """One stored run as the home screen lists it (no system or judge name: those would unblind)."""

    run_id: str
    started_at: str
    n_cases: int
    matches_golden: bool


@dataclass(frozen=True)
class StoreOverview:
    """The golden set at a glance and the runs in the store."""

    golden_cases: int
    golden_counts: dict[str, dict[str, int]]
    golden_problem: str | None
    runs: tuple[RunLine, ...]
    review_items: int


def pace(progress: Progress) -> float | None:
    """Seconds per labeled item so far, or None before the first label."""
    return progress.seconds_spent / progress.done if progress.done else None


@contextmanager
def _preparation_lock(store: StoreBackend) -> Iterator[None]:
    """Two reviewers starting on one fresh store at once must not both run the suite."""
    with store.exclusive("prepare"):
        yield


def _announce_progress(cases: int, say: Step) -> Callable[[int, int], None]:
    """Progress of the first run in words, about every twentieth of the cases."""
    every = max(1, cases // 20)

    def progress(done: int, total: int) -> None:
        if done == total or done % every == 0:
            say(f"Running the system and the judge: {done} of {total} cases")

    return progress


def _join_queue(store: StoreBackend, reviewer: str, config: Config) -> int:
    """Give a reviewer who arrives after the queue was built their share of the items.

    They take the items with the fewest reviewers so far (seeded tie-break), as many as the
    average load, so their labels overlap with others' and agreement stays measurable.
    """
    existing = store.assignments()
    items = [row.item_id for row in store.review_items()]
    if not items:
        return 0
    reviewers_per_item = Counter({item_id: 0 for item_id in items})
    for _, item_id, _ in existing:
        reviewers_per_item[item_id] += 1
    others = {name for name, _, _ in existing}
    share = math.ceil(len(existing) / len(others)) if others else len(items)
    rng = random.Random(f"{config.review.seed}:{reviewer}")
    tie_break = {item_id: rng.random() for item_id in items}
    chosen = sorted(items, key=lambda item_id: (reviewers_per_item[item_id], tie_break[item_id]))[:share]
    rng.shuffle(chosen)
    return store.write_assignments(
        (QueueEntry(reviewer, item_id, position, config.review.seed) for position, item_id in enumerate(chosen, 1)),
        replace=False,
    )


def ensure_prepared(
    store: StoreBackend,
    config: Config,
    data_paths: Sequence[Path],
    reviewer: str,
    *,
    step: Step | None = None,
    enrol: bool = True,
) -> PrepareReport:
    """Make sure the store has a run, review items and a queue for `reviewer`; idempotent.

    The first queue is built for the configured team (`review.reviewers`) alone, so their queues
    are the ones `qaeval queue` builds (the demo's labels pair with them); anyone else joins it
    with a share of their own, which never reshuffles a queue someone already holds. With
    `enrol=False` (a curator opening the curator app) the store is prepared but no queue is made
    for `reviewer`.
    """
    say: Step = step or (lambda _message: None)
    problem = reviewer_name_problem(reviewer)
    if problem:
        raise UsageError(f"reviewer {reviewer!r}: {problem}")
    with _preparation_lock(store):
        ran, items_created, newly_assigned = False, 0, 0
        golden: GoldenSet | None = None
        run = store.latest_run()
        if run is None and store.queue_length(reviewer):
            # A queue with no run in sight: a reviewer's login on a team store, where the database hides
            # the runs (they name the system that answered). Their queue is ready; nothing to prepare.
            return PrepareReport(False, "", 0, 0, store.queue_length(reviewer))
        if run is None:
            say("Loading the golden set…")
            from qaeval_tui.core.usecases.run import plan_suite, run_and_store

            plan = plan_suite(config, data_paths)
            golden = plan.golden
            progress = _announce_progress(len(golden.cases), say)
            # the review app's store is pinned to its thread: the run's writes stay on it
            result = run_and_store(store, plan, update=progress, write_on_a_thread=False)
            run_id = result.run_id
            ran = True
        else:
            run_id = run.run_id
        if store.count("review_items") == 0:
            say("Building the review items…")
            items_created = build_review_items(store, run_id, golden)
        queue_length = store.queue_length(reviewer)
        if store.count("assignments") == 0 and config.review.reviewers:
            say("Building the team's review queues…")
            team = tuple(config.review.reviewers)
            assign(store, team, min(config.review.overlap, len(team)), config.review.seed)
            queue_length = store.queue_length(reviewer)
            newly_assigned = queue_length if enrol else 0
        if queue_length == 0 and enrol:
            say("Building your review queue…")
            if store.count("assignments"):
                newly_assigned = _join_queue(store, reviewer, config)
            else:
                assign(store, (reviewer,), 1, config.review.seed)
                newly_assigned = store.queue_length(reviewer)
            queue_length = newly_assigned
        return PrepareReport(ran, run_id, items_created, newly_assigned, queue_length)


@dataclass(frozen=True)
class QueueStanding:
    """How far one team member is through their queue (the reviewer picker shows it)."""

    name: str
    queued: int
    labelled: int

    @property
    def done(self) -> bool:
        return self.queued > 0 and self.labelled >= self.queued


def team_standing(store: StoreBackend, names: Sequence[str]) -> tuple[QueueStanding, ...]:
    """Each named reviewer's queue length and how many of its items they have labelled (a skip is
    not a label)."""
    standing = []
    for name in names:
        queue = set(store.queue_item_ids(name))
        labelled = {row.label.item_id for row in store.labels(reviewer=name) if not row.label.skipped}
        standing.append(QueueStanding(name, len(queue), len(labelled & queue)))
    return tuple(standing)


def queue_progress(store: StoreBackend) -> tuple[QueueStanding, ...]:
    """Every reviewer with a queue, by name: how many items they were assigned and how many of those
    they have labelled (`qaeval serve`'s status page for curators)."""
    return team_standing(store, sorted({entry.reviewer for entry in store.assignments()}))


def queue_progress_at(location: StoreLocation) -> tuple[QueueStanding, ...]:
    """`queue_progress` of the store at `location` (a SQLite path, or a team login's URL), opened and closed."""
    with open_store(location) as store:
        return queue_progress(store)


def _names(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def picker_note(standing: Sequence[QueueStanding]) -> str:
    """The picker's line about the team: who has finished, who has items left, and that a newcomer
    types a name of their own."""
    done = [s.name for s in standing if s.done]
    left = [f"{s.name} ({s.queued - s.labelled} of {s.queued} left)" for s in standing if s.queued and not s.done]
    parts = []
    if done:
        one = len(done) == 1
        parts.append(f"{_names(done)} {'has' if one else 'have'} finished {'their queue' if one else 'their queues'}")
    if left:
        parts.append(f"not finished: {', '.join(left)}")
    parts.append("new here? type a name of your own for a queue of your own")
    text = "; ".join(parts)
    return text[0].upper() + text[1:] + "."


def store_overview(store: StoreBackend, data_paths: Sequence[Path]) -> StoreOverview:
    """Golden-set counts (from the files now) and every stored run, newest first."""
    golden: GoldenSet | None = None
    problem: str | None = None
    try:
        golden = load_golden(data_paths)
    except QaevalError as exc:
        problem = str(exc).splitlines()[0]
    suite = golden.suite_hash if golden else None
    runs = tuple(RunLine(run.run_id, run.started_at, run.n_cases, run.suite_hash == suite) for run in store.list_runs())
    return StoreOverview(
        golden_cases=len(golden.cases) if golden else 0,
        golden_counts=golden.summary() if golden else {},
        golden_problem=problem,
        runs=runs,
        review_items=store.count("review_items"),
    )
