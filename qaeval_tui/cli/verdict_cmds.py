"""`qaeval verdicts import`: another judge's scores as a §8.3 verdict file `calibrate --verdicts` reads.

Exit codes: 0 written · 1 invalid (every problem listed as file:line: field: message, nothing
written) · 2 usage (a missing file, an unknown format, field or axis, a bad --values, no --out).
"""

from __future__ import annotations

from pathlib import Path

import typer

from qaeval_tui.cli.common import config_from, guarded, optional_store, print_json, stdout
from qaeval_tui.cli.options import AsJson, Db
from qaeval_tui.core.errors import UsageError

verdicts_app = typer.Typer(
    help="Import judge scores produced elsewhere (CSV or JSONL) as verdicts calibrate can judge.",
    no_args_is_help=True,
)


@verdicts_app.command("import")
@guarded
def verdicts_import(
    ctx: typer.Context,
    paths: list[Path] = typer.Argument(..., help="CSV or JSONL files of another judge's scores."),
    judge: str = typer.Option(..., "--judge-name", help="Name of the judge that produced the scores (e.g. gpt-4)."),
    out: Path = typer.Option(..., "--out", help="The verdict file to write (§8.3 JSONL; give it to calibrate)."),
    model: str | None = typer.Option(None, "--model", help="The judge's model id (default: the --judge name)."),
    fmt: str | None = typer.Option(None, "--format", help="jsonl or csv (default: from each file's extension)."),
    mapping: list[str] | None = typer.Option(
        None,
        "--map",
        help="field=column, e.g. --map item_id=id,faithfulness=faith_score (fields: item_id, case_id, "
        "created_at and the rubric's axes; repeatable).",
    ),
    values: list[str] | None = typer.Option(
        None,
        "--values",
        help="axis:from=to,... maps the judge's own scale onto the rubric's, e.g. faithfulness:1=0,3=1,5=2.",
    ),
    rounding: bool = typer.Option(
        False, "--round", help="Round a value between two scale points to the nearer one (a tie: the lower)."
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Validate and count, write nothing."),
    db: Db = None,
    as_json: AsJson = False,
) -> None:
    """Import another judge's scores; calibrate them with `qaeval calibrate --verdicts OUT`.

    Strict: a value off the rubric's scale (unless --values or --round declares how it maps), an
    unknown item or a missing column is listed as file:line: field: message and nothing is written.
    Exit 0 written, 1 invalid input, 2 usage.
    """
    from qaeval_tui.core.atomic_file import check_output_target, strict_json, write_output
    from qaeval_tui.core.review.labels_io import FieldMapping
    from qaeval_tui.core.review.verdicts_import import ValueMap, foreign_judge, read_foreign_verdicts
    from qaeval_tui.core.store.sqlite import utc_now

    config = config_from(ctx)
    rubric = config.rubric
    if fmt is not None and fmt not in ("jsonl", "csv"):
        raise UsageError(f"--format must be jsonl or csv, not {fmt!r}")
    for path in paths:
        if not path.is_file():
            raise UsageError(f"{path}: no such file")
    if str(out) == "-":
        raise UsageError("--out -: a verdict file is written to a path (calibrate reads it from there)")
    check_output_target(out)
    judge_config = foreign_judge(judge, model, rubric)
    value_map = ValueMap.parse(values or [], rubric)
    formats = {path: fmt or ("csv" if path.suffix.lower() == ".csv" else "jsonl") for path in paths}
    with optional_store(ctx, db) as store:
        case_ids = store.case_ids_by_item() if store is not None else {}
    imported = read_foreign_verdicts(
        paths,
        formats,
        FieldMapping.parse(mapping or []),
        rubric,
        judge_config,
        case_ids,
        values=value_map,
        rounding=rounding,
        now=utc_now(),
    )
    lines = [
        strict_json(verdict.to_json(), f"{out}:{n}", ensure_ascii=False) + "\n"
        for n, verdict in enumerate(imported.verdicts, 1)
    ]
    if not dry_run:
        write_output(out, "".join(lines))
    unknown = sum(1 for verdict in imported.verdicts if verdict.item_id not in case_ids)
    config_hash = judge_config.config_hash()
    if as_json:
        print_json(
            {
                "verdicts": len(imported.verdicts),
                "written": not dry_run,
                "out": str(out),
                "judge": {"name": judge_config.name, "model": judge_config.model, "config_hash": config_hash},
                "mapped": imported.mapped,
                "rounded": imported.rounded,
                "unknown_items": unknown,
            }
        )
        return
    verb = "would write" if dry_run else "wrote"
    stdout.print(
        f"{verb} {len(imported.verdicts)} verdict(s) of judge {judge_config.name} "
        f"(config hash {config_hash[:12]}) to {out}; {imported.mapped} mapped by --values, "
        f"{imported.rounded} rounded"
    )
    if unknown:
        stdout.print(f"note: {unknown} item(s) are not review items in this store; calibrate cannot pair them")
    stdout.print(f"calibrate it: qaeval calibrate --verdicts {out}")


def register(app: typer.Typer) -> None:
    app.add_typer(verdicts_app, name="verdicts")
