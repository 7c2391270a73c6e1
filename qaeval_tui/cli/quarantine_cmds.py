"""`qaeval labels check|quarantine`: stored label rows a reader would refuse, and a curator's quarantine of one.

Exit codes: check 0 no bad row · 1 bad rows listed · 2 usage; quarantine 0 recorded · 2 usage (unknown
row, a row with nothing wrong, already quarantined, blank reason or curator).
"""

from __future__ import annotations

import typer

from qaeval_tui.cli.common import config_from, guarded, open_store, print_json, stderr, stdout
from qaeval_tui.cli.options import AsJson, Curator, Db
from qaeval_tui.core.text import one_line


@guarded
def labels_check(ctx: typer.Context, db: Db = None, as_json: AsJson = False) -> None:
    """List every stored label row a reader would refuse (table, row id, field, problem) and the
    quarantined ones. Exit 0 none, 1 some listed (quarantine them), 2 usage."""
    from qaeval_tui.core.review.quarantine import check_labels

    config = config_from(ctx)
    with open_store(ctx, db, must_exist=True) as store:
        found = check_labels(store, config.rubric)
    if as_json:
        print_json(
            {
                "bad": [row._asdict() for row in found.bad],
                "quarantined": [entry._asdict() for entry in found.quarantined],
            }
        )
    else:
        if found.bad:
            from rich.table import Table  # rich loads with the first table, not with --help

            table = Table("table", "row", "field", "problem", box=None, pad_edge=False)
            for row in found.bad:
                table.add_row(row.table, str(row.row_id), one_line(row.field), one_line(row.problem, 120))
            stdout.print(table)
        stdout.print(
            f"{len(found.bad)} problem(s) in {len({row.row_id for row in found.bad})} label row(s); "
            f"{len(found.quarantined)} row(s) quarantined"
        )
        if found.bad:
            stderr.print("a curator quarantines each row with `qaeval labels quarantine ID --reason TEXT`")
    if found.bad:
        raise typer.Exit(1)


@guarded
def labels_quarantine(
    ctx: typer.Context,
    label_id: int = typer.Argument(..., help="Label row id, as `qaeval labels check` shows it."),
    *,
    reason: str = typer.Option(..., "--reason", help="Why the row is set aside (recorded, never changed)."),
    curator: Curator,
    db: Db = None,
) -> None:
    """Quarantine one bad label row: every figure, export and screen leaves it out from now on and
    counts it. Only a row `labels check` lists may be quarantined. Exit 0 recorded, 2 usage."""
    from qaeval_tui.core.review.quarantine import quarantine_label

    config = config_from(ctx)
    with open_store(ctx, db, must_exist=True) as store:
        entry = quarantine_label(store, label_id, reason=reason, curator=curator, rubric=config.rubric)
    stdout.print(f"quarantined label row {entry.label_id} by {one_line(entry.curator)} at {entry.quarantined_at}")


def register(labels_app: typer.Typer) -> None:
    labels_app.command("check")(labels_check)
    labels_app.command("quarantine")(labels_quarantine)
