"""Queue a run for review (`qaeval queue`): its outputs become review items, assigned to reviewers.

`queue_more_labels` (`qaeval queue --more-labels`) offers the items labelled by fewer than
`calibration.min_reviewers` blind reviewers to team members who have not labelled them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from qaeval_tui.core.config import Config
from qaeval_tui.core.curation.adjudication import adjudication_queue
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.golden.loader import GoldenSet, load_golden
from qaeval_tui.core.review.queue import (
    AssignmentReport,
    MoreLabelsReport,
    assign,
    assign_more_labels,
    build_review_items,
)
from qaeval_tui.core.store.backend import StoreBackend


@dataclass(frozen=True)
class QueueOutcome:
    run_id: str
    new_review_items: int
    report: AssignmentReport


def queue_from_run(
    config: Config,
    store: StoreBackend,
    *,
    reviewers: Sequence[str] | None = None,
    overlap: int | None = None,
    seed: int | None = None,
    run_id: str | None = None,
    golden_paths: Sequence[Path] = (),
    replace: bool = False,
) -> QueueOutcome:
    """Review items from the run (default: the latest), then a balanced, seeded assignment.

    The golden files are read only when the store lacks the content of one of the run's cases.
    Reviewers, overlap and seed default to the config's `review` section.
    """
    run = store.get_run(run_id) if run_id else store.latest_run()
    if run is None:
        raise UsageError(
            f"no run {'named ' + repr(run_id) if run_id else 'yet'} in {store.path}; run `qaeval run` first"
        )
    golden: GoldenSet | None = None
    missing = [o for o in store.run_outputs(run.run_id) if store.case_json(o.case_hash) is None]
    if missing:
        golden = load_golden(golden_paths)
    created = build_review_items(store, run.run_id, golden)
    if run_id is None:
        created += _cases_new_since_the_last_queue(store, run.run_id, golden_paths)
    report = assign(
        store,
        _current_names(store, list(config.review.reviewers) if reviewers is None else reviewers),
        config.review.overlap if overlap is None else overlap,
        config.review.seed if seed is None else seed,
        replace=replace,
    )
    return QueueOutcome(run.run_id, created, report)


def _cases_new_since_the_last_queue(store: StoreBackend, latest: str, golden_paths: Sequence[Path]) -> int:
    """Review items for the cases that runs stored since the last queued run answered and no review
    item holds yet (a run of newly promoted cases followed by another run does not hide them)."""
    queued_runs = {item.run_id for item in store.review_items()}
    covered = {item.case_hash for item in store.review_items()}
    created = 0
    for run in sorted(store.list_runs(), key=lambda r: r.started_at, reverse=True):
        if run.run_id == latest:
            continue
        if run.run_id in queued_runs:
            break  # the last queue: older runs were offered then
        new = {o.case_hash for o in store.run_outputs(run.run_id)} - covered
        if new:
            missing = any(store.case_json(h) is None for h in new)
            golden = load_golden(golden_paths) if missing else None
            created += build_review_items(store, run.run_id, golden, only_cases=new)
            covered |= new
    return created


def queue_more_labels(
    config: Config, store: StoreBackend, *, reviewers: Sequence[str] | None = None, seed: int | None = None
) -> MoreLabelsReport:
    """Assign every item with too few blind reviewers (and no ruling) to others who have not labelled it.

    The items are the adjudication queue's `too_few_reviewers` with fewer blind reviewers than a
    consensus needs: exactly what calibration counts as "unresolved: one reviewer" by default.
    """
    minimum = config.calibration.min_reviewers
    short: dict[str, frozenset[str]] = {}
    for entry in adjudication_queue(store, config).too_few_reviewers:
        # A "can't judge" is no blind value on that axis: it leaves the item as short as no label.
        blind = frozenset(score.reviewer for score in entry.scores if score.value is not None)
        if len(blind) < minimum:
            known = short.get(entry.item_id)
            short[entry.item_id] = blind if known is None or len(blind) < len(known) else known
    return assign_more_labels(
        store,
        _current_names(store, list(config.review.reviewers) if reviewers is None else reviewers),
        short,
        minimum,
        config.review.seed if seed is None else seed,
    )


def _current_names(store: StoreBackend, reviewers: Sequence[str]) -> list[str]:
    """`reviewers` as given, refusing a name a renamed person had before (`qaeval team rename`): a queue is
    made under the name a person signs in with now."""
    people = store.person_names()
    for name in reviewers:
        now = people.current(name)
        if now != name:
            raise UsageError(f"reviewer {name!r} was renamed to {now!r} (qaeval team rename): queue {now!r} instead")
    return list(reviewers)


@dataclass(frozen=True)
class QueueRequest:
    """What `qaeval queue` asks for, checked before the store is opened; None: the config's `review` value."""

    reviewers: tuple[str, ...] | None = None
    overlap: int | None = None
    seed: int | None = None
    run_id: str | None = None
    golden_paths: tuple[Path, ...] = ()
    replace: bool = False
    more_labels: bool = False
    """Assign only the items short of blind reviewers (`queue_more_labels`), not a run's."""


def plan_queue(
    config: Config,
    *,
    reviewers: str | None = None,
    overlap: int | None = None,
    seed: int | None = None,
    run_id: str | None = None,
    data: Sequence[Path] | None = None,
    replace: bool = False,
    more_labels: bool = False,
) -> QueueRequest:
    """The queue the options ask for: `reviewers` comma-separated, `data` the golden files (default: the
    configured ones); UsageError for an option `more_labels` does not take (it assigns existing items)."""
    if more_labels:
        extra = [flag for flag, given in (("--overlap", overlap), ("--run", run_id), ("--data", data)) if given]
        if replace:
            extra.append("--replace")
        if extra:
            raise UsageError(
                f"--more-labels assigns existing items and takes --reviewers and --seed only, not {', '.join(extra)}"
            )
    names = tuple(name.strip() for name in reviewers.split(",")) if reviewers else None
    golden = tuple(data or [config.path(config.paths.golden)])
    return QueueRequest(names, overlap, seed, run_id, golden, replace, more_labels)


def queue_review(config: Config, store: StoreBackend, request: QueueRequest) -> QueueOutcome | MoreLabelsReport:
    """The request's queue in the open `store`: a run's items assigned (`queue_from_run`), or with
    `more_labels` the items short of blind reviewers offered to others (`queue_more_labels`)."""
    if request.more_labels:
        return queue_more_labels(config, store, reviewers=request.reviewers, seed=request.seed)
    return queue_from_run(
        config,
        store,
        reviewers=request.reviewers,
        overlap=request.overlap,
        seed=request.seed,
        run_id=request.run_id,
        golden_paths=request.golden_paths,
        replace=request.replace,
    )


@dataclass(frozen=True)
class NewCasesQueued:
    """What `run_new_cases_and_queue` did: the cases it ran, and the review items it queued."""

    ran: tuple[str, ...]
    queued_items: int
    run_id: str | None


def run_new_cases_and_queue(config: Config, store: StoreBackend, golden_paths: Sequence[Path]) -> NewCasesQueued:
    """After a promotion, one step to review: run only the golden cases no run has answered (the
    configured system and judge, through `run_and_store` and its verdict cache), store that run, and queue
    what is new for the roster (`review.reviewers`)."""
    from qaeval_tui.core.review.queue import unreviewed_cases
    from qaeval_tui.core.usecases.run import plan_suite, run_and_store

    plan = plan_suite(config, golden_paths)
    pending = unreviewed_cases(store, plan.golden)
    if not pending.not_run and not pending.not_queued:
        return NewCasesQueued((), 0, None)
    run_id: str | None = None
    if pending.not_run:
        # the review app's store is pinned to its thread: the run's writes stay on it
        result = run_and_store(store, plan, only_cases=pending.not_run, write_on_a_thread=False)
        run_id = result.run_id
    outcome = queue_from_run(config, store, golden_paths=golden_paths)
    return NewCasesQueued(pending.not_run, outcome.new_review_items, run_id)
