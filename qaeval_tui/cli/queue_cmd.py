"""`qaeval queue`: review items from a run, assigned to reviewers (balanced, k per item, seeded order);
`--more-labels` offers the items short of blind reviewers to others who have not labelled them.

Exit 0, or 2 on a usage or input error (an invalid golden set included).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from qaeval_tui.cli.common import config_from, guarded_input_as_usage, open_store, print_json, stdout
from qaeval_tui.cli.options import AsJson, Data, Db
from qaeval_tui.core.limits import MAX_SEED

if TYPE_CHECKING:
    from qaeval_tui.core.review.queue import MoreLabelsReport
    from qaeval_tui.core.usecases.queue import QueueOutcome


Reviewers = Annotated[
    str | None, typer.Option("--reviewers", help="Comma-separated reviewer names (default: review.reviewers).")
]
Overlap = Annotated[int | None, typer.Option("--overlap", help="Reviewers per item (default: review.overlap).")]
Seed = Annotated[
    int | None,
    typer.Option(
        "--seed",
        min=0,
        max=MAX_SEED,
        help="Seed of the assignment and of each reviewer's order (default: review.seed).",
    ),
]
RunId = Annotated[
    str | None, typer.Option("--run", help="Run whose outputs become review items (default: the latest run).")
]
Replace = Annotated[
    bool,
    typer.Option(
        "--replace", help="Rebuild every queue from scratch (labels are kept) instead of adding new items only."
    ),
]
MoreLabels = Annotated[
    bool,
    typer.Option(
        "--more-labels",
        help="Assign only the items with fewer than calibration.min_reviewers blind reviewers, each to "
        "reviewers who have not labelled it (takes --reviewers and --seed only).",
    ),
]


@guarded_input_as_usage
def queue(
    ctx: typer.Context,
    reviewers: Reviewers = None,
    overlap: Overlap = None,
    seed: Seed = None,
    run_id: RunId = None,
    data: Data = None,
    replace: Replace = False,
    more_labels: MoreLabels = False,
    db: Db = None,
    as_json: AsJson = False,
) -> None:
    """Create review items from a run and assign them to reviewers: balanced, k per item, seeded order.

    Exit 0, or 2 on a usage or input error (no run, bad reviewer names, overlap larger than the team,
    invalid --data). --data is read only for cases whose content the store lacks. --more-labels
    offers the items short of blind reviewers to others who have not labelled them.
    """
    from qaeval_tui.core.review.queue import MoreLabelsReport
    from qaeval_tui.core.usecases.queue import plan_queue, queue_review

    config = config_from(ctx)  # the request is checked before the store is opened
    request = plan_queue(
        config, reviewers=reviewers, overlap=overlap, seed=seed, run_id=run_id, data=data, replace=replace,
        more_labels=more_labels,
    )  # fmt: skip
    with open_store(ctx, db, must_exist=True) as store:
        outcome = queue_review(config, store, request)
    if isinstance(outcome, MoreLabelsReport):
        _print_more_labels(outcome, as_json=as_json)
    else:
        _print_queue(outcome, replace=replace, as_json=as_json)


def _print_queue(outcome: QueueOutcome, *, replace: bool, as_json: bool) -> None:
    from rich.table import Table

    report, created, chosen_run = outcome.report, outcome.new_review_items, outcome.run_id
    if as_json:
        print_json({"run_id": chosen_run, "new_review_items": created, **report.to_json()})
        return
    stdout.print(f"run {chosen_run}: {created} new review item(s), {report.items} in all")
    stdout.print(
        f"{report.newly_assigned_items} item(s) assigned to {len(report.reviewers)} reviewers, "
        f"overlap {report.overlap}, seed {report.seed}" + (" (queues rebuilt)" if replace else "")
    )
    table = Table("reviewer", "assigned items")
    for name, load in report.load.items():
        table.add_row(name, str(load))
    stdout.print(table)
    if report.pair_overlap:
        stdout.print("shared items per pair: " + ", ".join(f"{a}+{b} {n}" for (a, b), n in report.pair_overlap.items()))


def _print_more_labels(report: MoreLabelsReport, *, as_json: bool) -> None:
    if as_json:
        print_json(report.to_json())
        return
    added = sum(len(items) for items in report.assigned.values())
    stdout.print(
        f"{report.short_items} item(s) with fewer than {report.min_reviewers} blind reviewers; "
        f"{added} assignment(s) added, {report.already_offered} item(s) already in another reviewer's queue"
    )
    for name, items in sorted(report.assigned.items()):
        stdout.print(f"  {name}: +{len(items)}")
    if report.no_reviewer_left:
        stdout.print(
            f"{len(report.no_reviewer_left)} item(s) still short: every other reviewer has labelled them "
            "(add a reviewer with --reviewers, or rule on them in the adjudication screen)"
        )


def register(app: typer.Typer) -> None:
    app.command()(queue)
