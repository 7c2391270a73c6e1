"""`qaeval verdicts import`: another judge's scores as a §8.3 verdict file `calibrate --verdicts` reads.

Exit codes: 0 written · 1 invalid (every problem listed as file:line: field: message, nothing
written) · 2 usage (a missing file, an unknown format, field or axis, a bad --values, no --out).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from qaeval_tui.cli.common import config_from, guarded, optional_store, print_json, stdout
from qaeval_tui.cli.options import AsJson, Db

if TYPE_CHECKING:
    from qaeval_tui.core.usecases.verdicts_import import ImportedVerdicts

verdicts_app = typer.Typer(
    help="Import judge scores produced elsewhere (CSV or JSONL) as verdicts calibrate can judge.",
    no_args_is_help=True,
)


Paths = Annotated[list[Path], typer.Argument(help="CSV or JSONL files of another judge's scores.")]
JudgeName = Annotated[
    str, typer.Option("--judge-name", help="Name of the judge that produced the scores (e.g. gpt-4).")
]
Out = Annotated[Path, typer.Option("--out", help="The verdict file to write (§8.3 JSONL; give it to calibrate).")]
Model = Annotated[str | None, typer.Option("--model", help="The judge's model id (default: the --judge name).")]
Format = Annotated[str | None, typer.Option("--format", help="jsonl or csv (default: from each file's extension).")]
Mapping = Annotated[
    list[str] | None,
    typer.Option(
        "--map",
        help="field=column, e.g. --map item_id=id,faithfulness=faith_score (fields: item_id, case_id, "
        "created_at and the rubric's axes; repeatable).",
    ),
]
Values = Annotated[
    list[str] | None,
    typer.Option(
        "--values",
        help="axis:from=to,... maps the judge's own scale onto the rubric's, e.g. faithfulness:1=0,3=1,5=2.",
    ),
]
Rounding = Annotated[
    bool,
    typer.Option("--round", help="Round a value between two scale points to the nearer one (a tie: the lower)."),
]
DryRun = Annotated[bool, typer.Option("--dry-run", help="Validate and count, write nothing.")]


@verdicts_app.command("import")
@guarded
def verdicts_import(
    ctx: typer.Context,
    paths: Paths,
    judge: JudgeName,
    out: Out,
    model: Model = None,
    fmt: Format = None,
    mapping: Mapping = None,
    values: Values = None,
    rounding: Rounding = False,
    dry_run: DryRun = False,
    db: Db = None,
    as_json: AsJson = False,
) -> None:
    """Import another judge's scores; calibrate them with `qaeval calibrate --verdicts OUT`.

    Strict: a value off the rubric's scale (unless --values or --round declares how it maps), an
    unknown item or a missing column is listed as file:line: field: message and nothing is written.
    Exit 0 written, 1 invalid input, 2 usage.
    """
    from qaeval_tui.core.usecases.verdicts_import import VerdictImport, check_import, import_verdicts

    request = VerdictImport(paths, judge, out, model, fmt, mapping or (), values or (), rounding, dry_run)
    rubric = config_from(ctx).rubric
    check_import(request, rubric)
    with optional_store(ctx, db) as store:
        case_ids = store.case_ids_by_item() if store is not None else {}
    _print_import(import_verdicts(request, rubric, case_ids), out, dry_run=dry_run, as_json=as_json)


def _print_import(imported: ImportedVerdicts, out: Path, *, dry_run: bool, as_json: bool) -> None:
    config_hash = imported.config_hash
    if as_json:
        print_json(
            {
                "verdicts": imported.count,
                "written": not dry_run,
                "out": str(out),
                "judge": {"name": imported.judge_name, "model": imported.judge_model, "config_hash": config_hash},
                "mapped": imported.mapped,
                "rounded": imported.rounded,
                "unknown_items": imported.unknown_items,
            }
        )
        return
    verb = "would write" if dry_run else "wrote"
    stdout.print(
        f"{verb} {imported.count} verdict(s) of judge {imported.judge_name} "
        f"(config hash {config_hash[:12]}) to {out}; {imported.mapped} mapped by --values, "
        f"{imported.rounded} rounded"
    )
    if imported.unknown_items:
        stdout.print(
            f"note: {imported.unknown_items} item(s) are not review items in this store; calibrate cannot pair them"
        )
    stdout.print(f"calibrate it: qaeval calibrate --verdicts {out}")


def register(app: typer.Typer) -> None:
    app.add_typer(verdicts_app, name="verdicts")
