"""The `qaeval` command. Each command group lives in its own module and registers itself here.

Nothing here imports textual: `qaeval review` imports the TUI lazily, so `qaeval --help` stays fast.
Nor does importing this module load typer, rich or pydantic: the console entry point first decides
whether the command runs user code and must be supervised (cli/supervisor.py), and the typer app
is built on first use (`app`, from `_build_app`).
"""

from __future__ import annotations

import os
import sys
from importlib import import_module
from pathlib import Path  # typer reads the annotations below, which name it, from this module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import typer

    app: typer.Typer


def _build_app(alone: str | None = None) -> typer.Typer:
    """The `qaeval` app: every command, or with `alone` only that command module's (`_app_for`)."""
    import typer

    from qaeval_tui import __version__

    built = typer.Typer(
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

    @built.callback()
    def main(
        config: Path | None = typer.Option(
            None, "--config", help="Config file (default: ./qaeval.toml, then [tool.qaeval] in ./pyproject.toml)."
        ),
        version: bool = typer.Option(
            False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ) -> None:
        """qaeval: golden sets, runs, CI gate, blind labels and judge calibration."""

    if alone is None:
        _register(built)
    else:
        import_module(f"qaeval_tui.cli.{alone}").register(built)
    return built


# Typer builds every registered command (its parameters, their pydantic adapters) before it dispatches,
# ~20 ms for this app's forty. A command a person waits on to start (the review TUI's cold start,
# issue 26) is run from the console script with only its own module registered; its parsing, help
# and errors are the same (tests/cli/test_main_alone.py). Any other word, or none, gets the whole app.
_ALONE: dict[str, str] = {"review": "review_cmd", "curate": "curate_cmd"}


def _app_for(argv: list[str]) -> typer.Typer:
    """The app to run `qaeval argv` with: built with only the command's module when `_ALONE` names it."""
    words = iter(argv)
    for word in words:
        if word == "--config":
            next(words, None)
        elif not word.startswith("-"):
            alone = _ALONE.get(word)
            return _app() if alone is None else _build_app(alone)
        elif word == "--" or not word.startswith("--config="):
            break  # an option of qaeval itself (--help, --version) or anything unusual: the whole app
    return _app()


def _register(target: typer.Typer) -> None:
    from qaeval_tui.cli import golden_cmds

    golden_cmds.register(target)
    from qaeval_tui.cli import review_cmd

    review_cmd.register(target)
    from qaeval_tui.cli import curate_cmd

    curate_cmd.register(target)
    from qaeval_tui.cli import label_cmds

    label_cmds.register(target)
    from qaeval_tui.cli import curation_cmds

    curation_cmds.register(target)
    from qaeval_tui.cli import run_cmds

    run_cmds.register(target)
    from qaeval_tui.cli import plan_cmd

    plan_cmd.register(target)
    from qaeval_tui.cli import flag_cmds

    flag_cmds.register(target)
    from qaeval_tui.cli import team_cmds

    team_cmds.register(target)
    from qaeval_tui.cli import store_cmds

    store_cmds.register(target)
    from qaeval_tui.cli import verdict_cmds

    verdict_cmds.register(target)
    from qaeval_tui.cli import table_cmds

    table_cmds.register(target)

    from qaeval_tui.cli import runs_cmds

    runs_cmds.register(target)

    from qaeval_tui.cli import serve_cmd

    serve_cmd.register(target)

    from qaeval_tui.cli import rubric_cmds

    rubric_cmds.register(target)


def _app() -> typer.Typer:
    built: typer.Typer | None = globals().get("app")
    if built is None:
        built = globals()["app"] = _build_app()  # once; later lookups of `app` find it directly
    return built


def __getattr__(name: str) -> Any:
    if name == "app":
        return _app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def run() -> None:
    """Console-script entry point: a command that runs user code runs supervised, in a child process."""
    from qaeval_tui.cli import supervisor

    report_fd = supervisor.take_report_fd()
    if report_fd is None:
        command = supervisor.supervised_command(sys.argv[1:])
        if command is not None and os.name == "posix":  # pass_fds is POSIX only: elsewhere, in-process
            sys.exit(supervisor.supervise(command, sys.argv[1:]))
        _app_for(sys.argv[1:])()
        return
    supervisor.interrupt_once()
    try:
        _app()(prog_name="qaeval")
    except SystemExit as exc:  # every end of a command, 0 included, is an exit: report it
        supervisor.report_exit(report_fd, exc.code)
        raise
