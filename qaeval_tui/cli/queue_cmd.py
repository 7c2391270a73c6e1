"""`qaeval queue`: review items from a run, assigned to reviewers (balanced, k per item, seeded order).

Exit 0, or 2 on a usage or input error (an invalid golden set included).
"""

from __future__ import annotations

import typer

from qaeval_tui.cli.common import config_from, guarded_input_as_usage, open_store, print_json, stdout
from qaeval_tui.cli.options import AsJson, Data, Db
from qaeval_tui.core.limits import MAX_SEED


@guarded_input_as_usage
def queue(
    ctx: typer.Context,
    reviewers: str | None = typer.Option(
        None, "--reviewers", help="Comma-separated reviewer names (default: review.reviewers)."
    ),
    overlap: int | None = typer.Option(None, "--overlap", help="Reviewers per item (default: review.overlap)."),
    seed: int | None = typer.Option(
        None,
        "--seed",
        min=0,
        max=MAX_SEED,
        help="Seed of the assignment and of each reviewer's order (default: review.seed).",
    ),
    run_id: str | None = typer.Option(
        None, "--run", help="Run whose outputs become review items (default: the latest run)."
    ),
    data: Data = None,
    replace: bool = typer.Option(
        False, "--replace", help="Rebuild every queue from scratch (labels are kept) instead of adding new items only."
    ),
    db: Db = None,
    as_json: AsJson = False,
) -> None:
    """Create review items from a run and assign them to reviewers: balanced, k per item, seeded order.

    Exit 0, or 2 on a usage or input error (no run, bad reviewer names, overlap larger than the team,
    invalid --data). --data is read only for cases whose content the store lacks.
    """
    from rich.table import Table

    from qaeval_tui.core.usecases.queue import queue_from_run

    config = config_from(ctx)
    names = [n.strip() for n in reviewers.split(",")] if reviewers else None
    with open_store(ctx, db, must_exist=True) as store:
        outcome = queue_from_run(
            config,
            store,
            reviewers=names,
            overlap=overlap,
            seed=seed,
            run_id=run_id,
            golden_paths=data or [config.path(config.paths.golden)],
            replace=replace,
        )
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


def register(app: typer.Typer) -> None:
    app.command()(queue)
