"""Every CLI command function stays a thin wrapper: it parses its options, calls one use case in the core
and renders the result, in at most 50 lines (decorators, signature and docstring included). Logic that
grows past that belongs in a use case (qaeval_tui/core/usecases/), where the TUI can call it too."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from typing import Any

import typer

from qaeval_tui.cli.main import app

MAX_LINES = 50


def _callbacks(group: typer.Typer, prefix: str = "qaeval") -> Iterator[tuple[str, Callable[..., Any]]]:
    """(command path, callback) of every command and group callback registered under `group`."""
    if group.registered_callback is not None and group.registered_callback.callback is not None:
        yield f"{prefix} (group)", group.registered_callback.callback
    for command in group.registered_commands:
        assert command.callback is not None
        yield f"{prefix} {command.name or command.callback.__name__}", command.callback
    for sub in group.registered_groups:
        assert sub.typer_instance is not None
        yield from _callbacks(sub.typer_instance, f"{prefix} {sub.name or sub.typer_instance.info.name}")


def _length(callback: Callable[..., Any]) -> tuple[int, str]:
    function = inspect.unwrap(callback)  # past `guarded` and its kin, to the command's own source
    lines, start = inspect.getsourcelines(function)
    return len(lines), f"{inspect.getsourcefile(function)}:{start}"


def test_the_walk_finds_every_command() -> None:
    names = {name for name, _ in _callbacks(app)}
    assert {"qaeval gate", "qaeval verdicts import", "qaeval labels export", "qaeval store copy"} <= names
    assert len(names) > 30


def test_no_command_function_is_over_fifty_lines() -> None:
    too_long = []
    for name, callback in _callbacks(app):
        length, where = _length(callback)
        if length > MAX_LINES:
            too_long.append(f"{name}: {length} lines ({where})")
    assert not too_long, "move the logic into a use case (qaeval_tui/core/usecases/):\n" + "\n".join(too_long)
