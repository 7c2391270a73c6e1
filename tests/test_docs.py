"""The README documents every command, and every command has help text (sqlite-utils' habit)."""

from __future__ import annotations

from typing import Any

import typer.main

from qaeval_tui.cli.main import app
from tests.conftest import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")


def all_commands() -> list[tuple[str, Any]]:
    # typer vendors its own click, so groups are recognised by shape rather than by class.
    root = typer.main.get_command(app)
    found: list[tuple[str, Any]] = []
    for name, command in getattr(root, "commands", {}).items():
        children = getattr(command, "commands", None)
        if children:
            found.extend((f"{name} {sub}", child) for sub, child in children.items())
        else:
            found.append((name, command))
    return found


def test_every_command_has_help_and_is_in_the_readme() -> None:
    commands = all_commands()
    assert len(commands) >= 15
    for name, command in commands:
        assert (command.help or "").strip(), f"qaeval {name} has no help text"
        documented = f"qaeval {name}" in README or f"`{name}`" in README or f"`{name} " in README
        assert documented, f"qaeval {name} is not documented"
        for param in command.params:
            if getattr(param, "param_type_name", "") == "option" and param.name != "help":
                assert (getattr(param, "help", "") or "").strip(), f"qaeval {name} {param.opts[0]} has no help text"


def test_readme_shows_the_two_setup_commands_and_ci_calls_the_test_one() -> None:
    assert "make run" in README and "make test" in README
    assert "make test" in (REPO / ".ci" / "run").read_text(encoding="utf-8")


def test_every_tui_command_and_screenshot_is_in_the_readme() -> None:
    from qaeval_tui.tui.commands import COMMANDS

    for command in COMMANDS:
        assert f"| `{command.name}` | {command.help} |" in README, f"key for {command.name} is not documented"
    shots = sorted(path.name for path in (REPO / "screenshots").glob("*.svg"))
    assert len(shots) >= 20
    for name in shots:
        assert f"(screenshots/{name})" in README, f"screenshots/{name} is not shown in the README"
