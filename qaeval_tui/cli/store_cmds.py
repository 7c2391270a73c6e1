"""`qaeval store copy --from SRC --to DST`: move a whole store between SQLite files and PostgreSQL.

Exit codes: 0 copied and checked · 1 the target did not read back what the source holds (rolled
back) · 2 usage (a missing source, the same store twice, a target that is not empty).
"""

from __future__ import annotations

import typer

from qaeval_tui.cli.common import guarded, print_json, stdout
from qaeval_tui.cli.options import AsJson

store_app = typer.Typer(
    help="The store as a whole: copy it between SQLite and PostgreSQL.", no_args_is_help=True, rich_markup_mode=None
)


@guarded
def store_copy(
    source: str = typer.Option(
        ..., "--from", metavar="SRC", help="The store to copy: a SQLite file or a postgresql:// URL."
    ),
    target: str = typer.Option(
        ..., "--to", metavar="DST", help="An empty store to copy into (a new SQLite file is created)."
    ),
    as_json: AsJson = False,
) -> None:
    """Copy every table, ids and history included, into an empty store; check counts and hashes.

    Exit 0 copied and equal, 1 a table differs (nothing kept), 2 usage (missing source, target not empty)."""
    from qaeval_tui.core.usecases.store_copy import copy_between

    report = copy_between(source, target)
    if as_json:
        print_json(
            {
                "source": report.source,
                "target": report.target,
                "tables": [
                    {"table": check.table, "rows": check.target_rows, "sha256": check.target_hash}
                    for check in report.tables
                ],
                "equal": True,
            }
        )
        return
    from rich.table import Table  # rich: loaded by the command that prints, not by `qaeval --help`

    table = Table("table", "rows", "sha256", box=None, pad_edge=False)
    for check in report.tables:
        table.add_row(check.table, str(check.target_rows), check.target_hash[:16])
    stdout.print(table)
    stdout.print(
        f"copied {report.rows} row(s) in {len(report.tables)} tables from {report.source} to {report.target}: "
        "row counts and content hashes equal in every table"
    )


def register(app: typer.Typer) -> None:
    store_app.command("copy")(store_copy)
    app.add_typer(store_app, name="store")
