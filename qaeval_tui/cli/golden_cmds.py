"""`qaeval validate` and `qaeval cases`: look at a golden set without running anything."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from qaeval_tui.cli.common import config_from, guarded, guarded_input_as_usage, print_json, stdout
from qaeval_tui.cli.options import AsJson, GoldenPaths
from qaeval_tui.core.text import one_line

if TYPE_CHECKING:
    from qaeval_tui.core.golden.loader import GoldenSet


def _load(ctx: typer.Context, paths: list[Path] | None) -> GoldenSet:
    from qaeval_tui.core.golden.loader import load_golden  # the case models: off `qaeval --help`'s path

    config = config_from(ctx)
    return load_golden(paths or [config.path(config.paths.golden)])


@guarded
def validate(
    ctx: typer.Context,
    paths: GoldenPaths = None,
    as_json: AsJson = False,
) -> None:
    """Strict-load golden files: counts per split, difficulty, behaviour and tag, and the suite hash.

    Exit 0 valid, 1 invalid (every problem listed as path:line: field: message), 2 usage.
    """
    golden = _load(ctx, paths)
    summary = golden.summary()
    if as_json:
        print_json(
            {
                "valid": True,
                "cases": len(golden.cases),
                "suite_hash": golden.suite_hash,
                "files": list(golden.files),
                "counts": summary,
            }
        )
        return
    stdout.print(f"{len(golden.cases)} cases in {len(golden.files)} file(s): valid")
    for heading, counts in summary.items():
        stdout.print(f"  {heading:<12} " + "  ".join(f"{one_line(name)}={count}" for name, count in counts.items()))
    stdout.print(f"suite hash {golden.suite_hash}")


@guarded_input_as_usage
def cases(
    ctx: typer.Context,
    paths: GoldenPaths = None,
    split: str | None = typer.Option(None, "--split", help="Only this split (file stem, e.g. frozen, living)."),
    difficulty: str | None = typer.Option(None, "--difficulty", help="single_hop, multi_hop or aggregation."),
    behavior: str | None = typer.Option(None, "--behavior", help="answer or abstain."),
    tag: str | None = typer.Option(None, "--tag", help="Adversarial tag, or 'none' for untagged cases."),
    search: str | None = typer.Option(
        None, "--search", help="Case-insensitive text in the id, question, gold answer or sources."
    ),
    as_json: AsJson = False,
) -> None:
    """List golden cases, filtered. Exit 0, or 2 on a usage error or an invalid set (problems listed as by validate)."""
    from rich.table import Table

    from qaeval_tui.core.golden.selection import CaseFilter, select_cases

    golden = _load(ctx, paths)
    chosen = select_cases(
        golden.cases, CaseFilter(split=split, difficulty=difficulty, behavior=behavior, tag=tag, search=search)
    )
    if as_json:
        print_json(
            [
                {
                    "split": c.split,
                    "content_hash": c.content_hash,
                    "path": c.path,
                    "line": c.line,
                    **c.case.model_dump(mode="json"),
                }
                for c in chosen
            ]
        )
        return
    table = Table("id", "split", "difficulty", "behavior", "tag", "question", box=None, pad_edge=False)
    for loaded in chosen:
        case = loaded.case
        table.add_row(
            case.id,
            one_line(loaded.split, 30),
            case.difficulty,
            case.expected_behavior,
            one_line(case.adversarial, 30) if case.adversarial else "-",
            one_line(case.question, 70),
        )
    stdout.print(table)
    stdout.print(f"{len(chosen)} of {len(golden.cases)} cases")


def register(app: typer.Typer) -> None:
    app.command()(validate)
    app.command()(cases)
