"""Shared CLI plumbing: config lookup, consoles, and turning user errors into exit codes."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

import typer

from qaeval_tui.cli.literal_console import LiteralConsole
from qaeval_tui.core.atomic_file import strict_json
from qaeval_tui.core.config import Config, load_config
from qaeval_tui.core.errors import InputError, QaevalError
from qaeval_tui.core.text import json_visible

P = ParamSpec("P")
R = TypeVar("R")

# Data prints as written: no markup, no emoji codes, control and bidi characters escaped. A
# diagnostic is one line however long, terminal or CI log: a grep for it must not meet a break.
stdout = LiteralConsole(soft_wrap=False)
stderr = LiteralConsole(stderr=True, soft_wrap=True)


def config_from(ctx: typer.Context) -> Config:
    """The configuration chosen by the global `--config` option (loaded once per invocation)."""
    root = ctx.find_root()
    if root.obj is None:
        root.obj = {}
    if "config" not in root.obj:
        root.obj["config"] = load_config(root.params.get("config"))
    config: Config = root.obj["config"]
    return config


def guarded(func: Callable[P, R], *, invalid_input_exit: int | None = None) -> Callable[P, R]:
    """Run a command; a user mistake becomes a clear message on stderr and its exit code."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except InputError as exc:
            for problem in exc.problems:
                stderr.print(str(problem))
            stderr.print(f"error: {len(exc.problems)} problem(s) in {exc.what}; nothing was changed")
            raise typer.Exit(invalid_input_exit or exc.exit_code) from exc
        except QaevalError as exc:
            stderr.print(f"error: {exc}")
            raise typer.Exit(exc.exit_code) from exc

    return wrapper


def guarded_input_as_usage(func: Callable[P, R]) -> Callable[P, R]:
    """`guarded` for a command whose documented exit codes have none for invalid input files, which
    then exit 2 like any usage error (`cases`, `queue`, `agreement`; `calibrate`, whose 1 means RETUNE)."""
    return guarded(func, invalid_input_exit=2)


def print_json(data: Any) -> None:
    """Machine-readable output to stdout, nothing else on that stream; strict JSON (no NaN, no Infinity).

    Control, bidi and invisible characters in strings are `\\u` escapes (core.text.json_visible).
    """
    document = strict_json(data, "stdout", indent=2, ensure_ascii=False, sort_keys=False)
    sys.stdout.write(json_visible(document) + "\n")
