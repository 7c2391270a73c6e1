"""`qaeval flags list|resolve`: the curator's queue of reviewers' flags and notes.

Exit codes: 0 done · 2 usage (unknown flag id, already resolved, blank note, both --open and --all,
an axis the rubric does not have).
"""

from __future__ import annotations

import typer

from qaeval_tui.cli.common import config_from, guarded, open_store, print_json, stdout
from qaeval_tui.cli.options import AsJson, Curator, Db
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.text import one_line

flags_app = typer.Typer(
    help="Reviewers' flags and notes waiting for a curator: list, resolve.", no_args_is_help=True, rich_markup_mode=None
)


@guarded
def flags_list(
    ctx: typer.Context,
    open_only: bool = typer.Option(False, "--open", help="Only open flags (the default)."),
    show_all: bool = typer.Option(False, "--all", help="Open and resolved flags."),
    reviewer: str | None = typer.Option(None, "--reviewer", help="Only this reviewer's (case-insensitive)."),
    search: str | None = typer.Option(None, "--search", help="Case-insensitive text in note, item id or case id."),
    axis: str | None = typer.Option(
        None, "--axis", help="Only flags about this rubric axis: scored can't judge, or named in the note."
    ),
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """List flags and notes reviewers left, oldest first. Exit 0, or 2 on a usage error."""
    from qaeval_tui.core.curation.flags import axis_named, flag_to_json, list_flags

    if open_only and show_all:
        raise UsageError("--open and --all: choose one")
    rubric = config_from(ctx).rubric
    if axis is not None:
        axis_named(rubric, axis)  # before the store is opened (or created)
    with open_store(ctx, db) as store:
        flags = list_flags(
            store, state="all" if show_all else "open", reviewer=reviewer, search=search, rubric=rubric, axis=axis
        )
    if as_json:
        print_json([flag_to_json(flag) for flag in flags])
        return
    if not flags:
        stdout.print("no open flags" if not show_all else "no flags")
        return
    from rich.table import Table  # rich: loaded by the command that prints, not by `qaeval --help`

    table = Table("id", "kind", "status", "reviewer", "item", "case", "axes", "note", box=None, pad_edge=False)
    for flag in flags:
        row = flag.row
        status = "open" if flag.is_open else f"resolved: {one_line(row.resolution_note or '', 60)}"
        axes = ", ".join(flag.axes) or "-"
        table.add_row(
            str(row.id), flag.kind, status, row.reviewer, row.item_id, row.case_id, axes, one_line(row.note, 80) or "-"
        )
    stdout.print(table)
    stdout.print(f"{len(flags)} flag(s)")


@guarded
def flags_resolve(
    ctx: typer.Context,
    flag_id: int = typer.Argument(..., help="Flag id, as `qaeval flags list` shows it."),
    *,
    note: str = typer.Option(..., "--note", help="How the flag was resolved (recorded, never changed)."),
    curator: Curator,
    db: Db = None,
) -> None:
    """Resolve one open flag with a note. Exit 0 resolved, 2 usage (unknown id, already resolved, blank note)."""
    from qaeval_tui.core.curation.flags import resolve_flag

    with open_store(ctx, db) as store:
        flag = resolve_flag(store, flag_id, note=note, curator=curator)
    stdout.print(f"resolved flag {flag.id} ({flag.row.reviewer} on {flag.row.item_id}) by {flag.row.resolved_by}")


def register(app: typer.Typer) -> None:
    flags_app.command("list")(flags_list)
    flags_app.command("resolve")(flags_resolve)
    app.add_typer(flags_app, name="flags")
