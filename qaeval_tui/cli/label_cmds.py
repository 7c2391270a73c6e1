"""`qaeval labels export|import`, `agreement`, `calibrate` (and `queue`, from queue_cmd): thin wrappers.

Exit codes (DESIGN §8.5): queue 0 · 2; labels export/import 0 · 1 invalid input (nothing imported)
· 2 usage; agreement 0 · 2; calibrate 0 all TRUSTED · 1 some axis RETUNE · 3 none RETUNE but some
INSUFFICIENT · 2 usage/input.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from qaeval_tui.cli import quarantine_cmds, queue_cmd
from qaeval_tui.cli.common import (
    config_from,
    guarded,
    guarded_input_as_usage,
    open_store,
    optional_store,
    print_json,
    stderr,
    stdout,
)
from qaeval_tui.cli.options import AsJson, Db, Html, IncludePostReveal, Labels, Markdown, Verdicts
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.limits import MAX_SEED

if TYPE_CHECKING:
    from qaeval_tui.core.gate.calibration_file import CalibrationArtifact
    from qaeval_tui.core.review.label_export import ExportReport
    from qaeval_tui.core.review.labels_io import Format, ImportReport
    from qaeval_tui.core.statistics.calibration import CalibrationReport

# The statistics (numpy, krippendorff) and report modules are imported inside the commands
# that use them, so `qaeval --help`, `validate` and `review` start without them.

labels_app = typer.Typer(
    help="Export labels to JSONL, or import them (idempotent) from JSONL or CSV.", no_args_is_help=True
)

FORMATS: dict[str, Format] = {"jsonl": "jsonl", "csv": "csv"}


def _emit(text: str, target: Path | None, what: str) -> None:
    if target is None:
        return
    if str(target) == "-":
        stdout.file.write(text)
        return
    from qaeval_tui.core.atomic_file import write_output

    write_output(target, text)
    stderr.print(f"{what} written to {target}")


def _check_outputs(as_json: bool, markdown: Path | None, html: Path | None, out: Path | None = None) -> bool:
    """True when the console table should be printed (nothing else claims stdout)."""
    claims = (("--json", as_json), ("--markdown -", str(markdown) == "-"), ("--html -", str(html) == "-"))
    to_stdout = [name for name, flag in (*claims, ("--out -", str(out) == "-")) if flag]
    if len(to_stdout) > 1:
        raise UsageError(f"{' and '.join(to_stdout)} both write to stdout; send one to a file")
    from qaeval_tui.core.atomic_file import check_output_target

    for target in (markdown, html, out):
        if target is not None and str(target) != "-":
            check_output_target(target)  # a golden split or a folder: refused before any work
    return not to_stdout


# -- labels export / import --------------------------------------------------------------------------


ExportOut = Annotated[
    Path | None, typer.Option("--out", help="Folder for <reviewer>.jsonl files (default: paths.labels).")
]
ExportReviewers = Annotated[list[str] | None, typer.Option("--reviewer", help="Only these reviewers (repeatable).")]
ExportVerdicts = Annotated[
    bool,
    typer.Option(
        "--verdicts", help="Also write judge-verdicts.jsonl (the latest run's judge, or --judge-config-hash)."
    ),
]
ExportJudge = Annotated[str | None, typer.Option("--judge-config-hash", help="Which judge's verdicts to export.")]
ExportTable = Annotated[
    str | None,
    typer.Option("--format", help="csv or jsonl: one table, a row per revision and axis, to --out FILE or stdout."),
]


@labels_app.command("export")
@guarded
def labels_export(
    ctx: typer.Context,
    out: ExportOut = None,
    reviewer: ExportReviewers = None,
    verdicts: ExportVerdicts = False,
    judge_config_hash: ExportJudge = None,
    db: Db = None,
    as_json: AsJson = False,
    table: ExportTable = None,
) -> None:
    """Merge every label revision (history included) into one JSONL file per reviewer (DESIGN §8.2).

    A file's lines are kept and the revisions it lacks appended (by item, reviewer, revision); the
    same revision with other content is a conflict, refused with file:line and nothing written.
    Never into the golden folder; a reviewer whose file name is unsafe or clashes with a golden
    split or the verdict export is refused before anything is written. Exit 0, 1 on a conflict or
    a line that is not a label, 2 on a usage error.
    """
    from qaeval_tui.core.usecases.export import export_labels

    if table is not None:
        from qaeval_tui.cli.table_cmds import labels_table

        if verdicts or as_json:
            raise UsageError("--format: a table holds labels only; export verdicts with `qaeval verdicts export`")
        labels_table(ctx, db, table, out or Path("-"), reviewer)
        return
    if out is not None and str(out) == "-":  # elsewhere `-` is stdout; a folder of files cannot be
        raise UsageError("--out -: an export is a folder of files, one per reviewer; name a folder")
    config = config_from(ctx)
    with open_store(ctx, db, must_exist=True) as store:
        report = export_labels(
            config, store, out, reviewers=reviewer, verdicts=verdicts, judge_config_hash=judge_config_hash
        )
    _print_export(report, as_json)


def _print_export(report: ExportReport, as_json: bool) -> None:
    from qaeval_tui.core.models.label import VERDICTS_FILENAME

    folder = report.folder
    for leftover in report.removed:
        stderr.print(f"removed {leftover}, left by an export that was cut short")
    written, verdict_count = report.labels, report.verdicts
    if as_json:
        print_json(
            {
                "folder": str(folder),
                "labels": written,
                "added": report.added,
                "verdicts": verdict_count,
                "quarantined_excluded": report.quarantined,
            }
        )
        return
    for name, count in written.items():
        stdout.print(f"{folder / (name + '.jsonl')}: {count} revision(s), {report.added.get(name, 0)} added")
    if verdict_count is not None:
        stdout.print(f"{folder / VERDICTS_FILENAME}: {verdict_count} verdict(s)")
    if report.quarantined:
        stderr.print(f"{report.quarantined} quarantined label row(s) left out (`qaeval labels check` lists them)")
    if not written:
        stderr.print("no labels in the store yet: nothing exported")


ImportPaths = Annotated[
    list[Path], typer.Argument(help="Label files or folders (JSONL per §8.2, or CSV/JSONL from other tools).")
]
ImportFormat = Annotated[
    str | None, typer.Option("--format", help="jsonl or csv (default: from each file's extension).")
]
ImportMap = Annotated[
    list[str] | None,
    typer.Option(
        "--map",
        help="field=column for another tool's files, e.g. --map reviewer=annotator,faithfulness=faith (repeatable).",
    ),
]
ImportReviewer = Annotated[
    str | None, typer.Option("--reviewer", help="Reviewer for lines that name none (other tools' files).")
]
DryRun = Annotated[bool, typer.Option("--dry-run", help="Validate and count, write nothing.")]


@labels_app.command("import")
@guarded
def labels_import(
    ctx: typer.Context,
    paths: ImportPaths,
    fmt: ImportFormat = None,
    mapping: ImportMap = None,
    reviewer: ImportReviewer = None,
    dry_run: DryRun = False,
    db: Db = None,
    as_json: AsJson = False,
) -> None:
    """Import labels; importing the same file again changes nothing.

    Strict: every problem is listed as file:line: field: message and nothing is imported.
    Exit 0 imported, 1 invalid input, 2 usage.
    """
    from qaeval_tui.core.review.labels_io import FieldMapping, import_labels

    config = config_from(ctx)
    if fmt is not None and fmt not in FORMATS:
        raise UsageError(f"--format must be jsonl or csv, not {fmt!r}")
    field_mapping = FieldMapping.parse(mapping) if mapping else None
    with open_store(ctx, db) as store:
        report = import_labels(
            store,
            paths,
            config.rubric,
            fmt=FORMATS.get(fmt or ""),
            mapping=field_mapping,
            reviewer=reviewer,
            dry_run=dry_run,
        )
    _print_import(report, dry_run, as_json)


def _print_import(report: ImportReport, dry_run: bool, as_json: bool) -> None:
    if as_json:
        print_json(report.to_json())
        return
    verb = "would add" if dry_run else "added"
    stdout.print(
        f"{report.lines} label line(s) in {len(report.files)} file(s): "
        f"{verb} {report.added}, {report.unchanged} already present"
    )
    for name, count in report.added_by_reviewer.items():
        stdout.print(f"  {name}: {count}")
    if report.unknown_items:
        stderr.print(
            f"note: {report.unknown_items} item(s) are not review items in this store; "
            "calibration cannot pair them with verdicts"
        )


# -- agreement / calibrate -------------------------------------------------------------------------------


def _note(message: str) -> None:
    stderr.print(message)


@guarded_input_as_usage
def agreement(
    ctx: typer.Context,
    labels: Labels = None,
    include_post_reveal: IncludePostReveal = False,
    replicates: int | None = typer.Option(
        None, "--replicates", min=100, help="Bootstrap replicates (default: calibration.bootstrap_replicates)."
    ),
    seed: int | None = typer.Option(
        None, "--seed", min=0, max=MAX_SEED, help="Bootstrap seed (default: calibration.seed)."
    ),
    db: Db = None,
    as_json: AsJson = False,
    markdown: Markdown = None,
    html: Html = None,
) -> None:
    """Inter-rater agreement per axis: Krippendorff's alpha with a seeded bootstrap CI, raw agreement,
    the label distribution and pairwise reviewer agreement. Exit 0, or 2 on a usage/input error.
    """
    from qaeval_tui.cli.label_render import print_agreement
    from qaeval_tui.core.statistics.report_html import agreement_html
    from qaeval_tui.core.statistics.report_markdown import agreement_markdown
    from qaeval_tui.core.usecases.statistics import agreement_report

    config = config_from(ctx)
    console = _check_outputs(as_json, markdown, html)
    with optional_store(ctx, db, whole_view_for="agreement") as store:
        report = agreement_report(
            config,
            store,
            labels,
            include_post_reveal=include_post_reveal,
            replicates=replicates,
            seed=seed,
            say=_note,
        )
    if as_json:
        print_json(report.to_json())
    elif console:
        print_agreement(report)
    _emit(agreement_markdown(report), markdown, "Markdown report")
    _emit(agreement_html(report), html, "HTML report")


CalibrateJudge = Annotated[
    str | None,
    typer.Option("--judge-config-hash", help="Calibrate this judge config (needed when verdicts mix judges)."),
]
CalibrateOut = Annotated[
    Path | None,
    typer.Option(
        "--out",
        help="Also write the calibration artifact the gate reads (commit it beside the baseline; '-' for stdout).",
    ),
]
CalibrateCheck = Annotated[
    Path | None,
    typer.Option(
        "--check",
        help="Calibrate again and compare with this artifact: exit 0 it matches, 1 it differs (each field named).",
    ),
]


@guarded_input_as_usage
def calibrate(
    ctx: typer.Context,
    labels: Labels = None,
    verdicts: Verdicts = None,
    judge_config_hash: CalibrateJudge = None,
    include_post_reveal: IncludePostReveal = False,
    db: Db = None,
    as_json: AsJson = False,
    markdown: Markdown = None,
    html: Html = None,
    out: CalibrateOut = None,
    check: CalibrateCheck = None,
) -> None:
    """Judge versus human per axis, with a TRUSTED / RETUNE / INSUFFICIENT verdict bound to the judge config.

    Exit 0 all axes TRUSTED, 1 some axis RETUNE, 3 none RETUNE but some INSUFFICIENT, 2 usage/input error.
    """
    from qaeval_tui.core.usecases.calibration_artifact import calibrate as calibrate_labels

    config = config_from(ctx)
    if check is not None and (out is not None or as_json):
        raise UsageError("--check prints its own result: give it without --out and --json")
    console = _check_outputs(as_json, markdown, html, out)
    committed = None
    if check is not None:
        from qaeval_tui.core.gate.calibration_file import read_calibration

        committed = read_calibration(check, "--check").artifact  # a bad file is exit 2 before any work
    with optional_store(ctx, db, whole_view_for="calibrate") as store:
        report, artifact = calibrate_labels(
            config, store, labels, verdicts, with_artifact=out is not None or check is not None,
            judge_config_hash=judge_config_hash, include_post_reveal=include_post_reveal, say=_note,
        )  # fmt: skip
    if check is not None and committed is not None and artifact is not None:
        _emit_reports(report, markdown, html)
        raise typer.Exit(_compare_artifact(check, committed, artifact))
    _print_calibration(report, as_json=as_json, console=console)
    _emit_reports(report, markdown, html)
    if artifact is not None:
        from qaeval_tui.core.gate.calibration_file import artifact_text

        _emit(artifact_text(artifact, str(out)), out, "calibration artifact")
    raise typer.Exit(report.exit_code)


def _print_calibration(report: CalibrationReport, *, as_json: bool, console: bool) -> None:
    from qaeval_tui.cli.label_render import print_calibration

    if as_json:
        print_json(report.to_json())
    elif console:
        print_calibration(report)


def _emit_reports(report: CalibrationReport, markdown: Path | None, html: Path | None) -> None:
    from qaeval_tui.core.statistics.report_html import calibration_html
    from qaeval_tui.core.statistics.report_markdown import calibration_markdown

    _emit(calibration_markdown(report), markdown, "Markdown report")
    _emit(calibration_html(report), html, "HTML report")


def _compare_artifact(path: Path, committed: CalibrationArtifact, fresh: CalibrationArtifact) -> int:
    """`calibrate --check`: 0 when the artifact is what these labels give, else 1 with each differing field."""
    from qaeval_tui.core.gate.calibration_file import MAX_DIFFERENCES, artifact_differences
    from qaeval_tui.core.text import one_line

    differences = artifact_differences(path, committed, fresh)
    if not differences:
        stdout.print(one_line(f"{path}: matches a calibration of these labels"), soft_wrap=True)
        return 0
    for problem in differences:
        stdout.print(one_line(str(problem)), soft_wrap=True, markup=False)
    more = f" (the first {MAX_DIFFERENCES})" if len(differences) == MAX_DIFFERENCES else ""
    stdout.print(
        one_line(f"{path} differs from a calibration of these labels{more}: remake it with `qaeval calibrate --out` "
                 "from the labels it names and review the diff"),
        soft_wrap=True,
    )  # fmt: skip
    return 1


# -- console rendering ------------------------------------------------------------------------------------


def register(app: typer.Typer) -> None:
    queue_cmd.register(app)
    app.command()(agreement)
    app.command()(calibrate)
    quarantine_cmds.register(labels_app)
    app.add_typer(labels_app, name="labels")
