"""Queue a run for review (`qaeval queue`): its outputs become review items, assigned to reviewers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from qaeval_tui.core.config import Config
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.golden.loader import GoldenSet, load_golden
from qaeval_tui.core.review.queue import AssignmentReport, assign, build_review_items
from qaeval_tui.core.store.sqlite import Store


@dataclass(frozen=True)
class QueueOutcome:
    run_id: str
    new_review_items: int
    report: AssignmentReport


def queue_from_run(
    config: Config,
    store: Store,
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
    report = assign(
        store,
        list(config.review.reviewers) if reviewers is None else reviewers,
        config.review.overlap if overlap is None else overlap,
        config.review.seed if seed is None else seed,
        replace=replace,
    )
    return QueueOutcome(run.run_id, created, report)
