"""The options several commands share, declared once: `db: Db = None` gives a command `--db` with
the same type, default and help everywhere.

Typer reads a command's annotations from the module that defines it, so a command module imports
the aliases it uses (and `Path`) at run time, not under TYPE_CHECKING. An option only one command
has, or one whose meaning differs between commands (`labels export --out` is a folder, `baseline
--out` is required), stays with its command.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

Db = Annotated[
    str | None,
    typer.Option(
        "--db", help="SQLite store path or postgresql:// URL (default: $QAEVAL_DB, then paths.store from the config)."
    ),
]
AsJson = Annotated[bool, typer.Option("--json", help="Print the result as JSON on stdout instead of text and tables.")]
Data = Annotated[
    list[Path] | None, typer.Option("--data", help="Golden files or folders (default: paths.golden from the config).")
]
GoldenPaths = Annotated[
    list[Path] | None,
    typer.Argument(help="Golden files or folders (default: paths.golden from the config)."),
]
Adapter = Annotated[
    str | None,
    typer.Option("--adapter", help="module:factory of the system under test (default: the bundled reference hub)."),
]
Judge = Annotated[
    str | None, typer.Option("--judge", help="module:factory of the judge (default: the bundled mechanical judge).")
]
Workers = Annotated[
    int | None,
    typer.Option("--workers", min=1, max=64, help="Adapter calls in parallel (output order stays the suite's)."),
]
Samples = Annotated[
    int | None,
    typer.Option(
        "--samples",
        min=1,
        max=100,
        help="Run and judge each case this many times; its values are the means (default: [run] samples, 1).",
    ),
]
ArtifactOut = Annotated[
    Path | None, typer.Option("--out", help="Also write the versioned JSON run artifact here ('-' for stdout).")
]
Labels = Annotated[
    list[Path] | None,
    typer.Option("--labels", help="Label files or folders (default: the store, else paths.labels)."),
]
Verdicts = Annotated[
    list[Path] | None,
    typer.Option(
        "--verdicts", help="Judge verdict files (default: judge-verdicts.jsonl beside the labels, else the store)."
    ),
]
IncludePostReveal = Annotated[
    bool,
    typer.Option("--include-post-reveal", help="Read the latest revision even if made after seeing the judge."),
]
Markdown = Annotated[
    Path | None,
    typer.Option(
        "--markdown", help="Also write the report as Markdown to PATH (fits a CI step summary; '-' for stdout)."
    ),
]
Html = Annotated[
    Path | None,
    typer.Option(
        "--html",
        help="Also write the report as one self-contained HTML file, its figures inline SVG, to PATH ('-' for stdout).",
    ),
]
Curator = Annotated[
    str,
    typer.Option(
        "--curator", envvar="QAEVAL_CURATOR", help="Who decides (recorded with the decision); or set QAEVAL_CURATOR."
    ),
]
