"""The `qaeval` command. Each command group lives in its own module and registers itself here.

Nothing here imports textual: `qaeval review` imports the TUI lazily, so `qaeval --help` stays fast.
"""

from __future__ import annotations

from pathlib import Path

import typer

from qaeval_tui import __version__

app = typer.Typer(
    name="qaeval",
    help="Keep a retrieval-augmented QA system's evaluation honest: golden sets, runs, gate, labels, calibration.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"qaeval {__version__}")
        raise typer.Exit(0)


@app.callback()
def main(
    config: Path | None = typer.Option(
        None, "--config", help="Config file (default: ./qaeval.toml, then [tool.qaeval] in ./pyproject.toml)."
    ),
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """qaeval: golden sets, runs, CI gate, blind labels and judge calibration."""


def _register() -> None:
    from qaeval_tui.cli import golden_cmds

    golden_cmds.register(app)
    from qaeval_tui.cli import review_cmd

    review_cmd.register(app)
    from qaeval_tui.cli import label_cmds

    label_cmds.register(app)
    from qaeval_tui.cli import curation_cmds

    curation_cmds.register(app)
    from qaeval_tui.cli import run_cmds

    run_cmds.register(app)


_register()


def run() -> None:
    """Console-script entry point."""
    app()
