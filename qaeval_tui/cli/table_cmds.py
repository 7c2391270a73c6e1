"""Tables for other tools: `qaeval verdicts export`, `qaeval results export`, and the writer
`qaeval labels export --format` shares with them (core.usecases.tables builds the rows).

Exit codes: 0 written · 2 usage (no store, no such run, an unknown format, an unwritable --out).
"""

from __future__ import annotations

from pathlib import Path

import typer

from qaeval_tui.cli.common import config_from, guarded, open_store, stderr
from qaeval_tui.cli.options import Db

results_app = typer.Typer(
    help="Export a stored run's results as a table (CSV or JSONL) for other tools.", no_args_is_help=True
)

TableOut = typer.Option(Path("-"), "--out", help="The table file to write ('-', the default: stdout).")
TableFormatOption = typer.Option(..., "--format", help="csv or jsonl: one row per item and axis (see README).")


def write_table(rows: list[dict[str, object]], columns: tuple[str, ...], fmt: str, out: Path, labels: Path) -> None:
    """Write `rows` to `out` (a file, whole or not at all, or stdout for `-`).

    To stdout, hidden characters in the data show as escapes (JSON `\\u` escapes for JSONL, which
    read back unchanged); a file holds the data as stored. A `.jsonl` table is refused inside the
    label folder `labels`, where `--labels` would read it as labels.
    """
    from qaeval_tui.core.atomic_file import check_output_target, write_output
    from qaeval_tui.core.errors import UsageError
    from qaeval_tui.core.text import json_visible, literal
    from qaeval_tui.core.usecases.tables import parse_table_format, render_table

    chosen = parse_table_format(fmt)
    if str(out) == "-":
        text = render_table(rows, columns, chosen)
        stdout_text = json_visible(text) if chosen == "jsonl" else literal(text)
        typer.echo(stdout_text, nl=False)
        return
    if out.suffix == ".jsonl" and out.resolve().parent == labels.resolve():
        raise UsageError(f"{out}: refused: a table in the label folder would be read as labels; write it elsewhere")
    check_output_target(out)
    text = render_table(rows, columns, chosen)
    write_output(out, json_visible(text) if chosen == "jsonl" else text)
    stderr.print(f"{len(rows)} row(s) written to {out}")


@guarded
def verdicts_export(
    ctx: typer.Context,
    fmt: str = TableFormatOption,
    out: Path = TableOut,
    run: str | None = typer.Option(None, "--run", help="Only the verdicts of this run (RUN_ID)."),
    judge_config_hash: str | None = typer.Option(
        None, "--judge-config-hash", help="Only this judge configuration's verdicts (default: all)."
    ),
    db: Db = None,
) -> None:
    """Export stored judge verdicts as a table: one row per item, judge configuration and axis.

    Exit 0 written, 2 usage.
    """
    from qaeval_tui.core.usecases.tables import VERDICT_COLUMNS, verdict_rows

    config = config_from(ctx)
    with open_store(ctx, db, must_exist=True) as store:
        rows = verdict_rows(store.verdicts(run_id=run, config_hash=judge_config_hash))
    write_table(rows, VERDICT_COLUMNS, fmt, out, config.path(config.paths.labels))


@results_app.command("export")
@guarded
def results_export(
    ctx: typer.Context,
    fmt: str = TableFormatOption,
    out: Path = TableOut,
    run: str | None = typer.Option(None, "--run", help="The run to export (RUN_ID; default: the latest)."),
    db: Db = None,
) -> None:
    """Export a stored run's results as a table: one row per case and check, and per case and metric.

    Exit 0 written, 2 usage (no store, no such run).
    """
    from qaeval_tui.core.usecases.tables import RESULT_COLUMNS, stored_result_rows

    config = config_from(ctx)
    with open_store(ctx, db, must_exist=True) as store:
        _, rows = stored_result_rows(store, run)
    write_table(rows, RESULT_COLUMNS, fmt, out, config.path(config.paths.labels))


def labels_table(ctx: typer.Context, db: str | None, fmt: str, out: Path, reviewers: list[str] | None) -> None:
    """`qaeval labels export --format csv|jsonl`: every label revision, one row per axis."""
    from qaeval_tui.core.usecases.tables import LABEL_COLUMNS, label_rows

    config = config_from(ctx)
    with open_store(ctx, db, must_exist=True) as store:
        names = reviewers or store.label_reviewers()
        labels = [row.label for name in names for row in store.labels(reviewer=name)]
    write_table(label_rows(labels), LABEL_COLUMNS, fmt, out, config.path(config.paths.labels))


def register(app: typer.Typer) -> None:
    from qaeval_tui.cli.verdict_cmds import verdicts_app

    verdicts_app.command("export")(verdicts_export)
    app.add_typer(results_app, name="results")
