"""The README documents every command, and every command has help text (sqlite-utils' habit)."""

from __future__ import annotations

import re
from typing import Any

import typer.main

from qaeval_tui.cli.main import app
from tests.conftest import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")


def _walk(prefix: str, command: Any) -> list[tuple[str, Any]]:
    # typer vendors its own click, so groups are recognised by shape rather than by class.
    children = getattr(command, "commands", None)
    if not children:
        return [(prefix, command)]
    found: list[tuple[str, Any]] = []
    for sub, child in children.items():
        found.extend(_walk(f"{prefix} {sub}".strip(), child))
    return found


def all_commands() -> list[tuple[str, Any]]:
    """Every command that runs, by its full name (`labels export`), at any depth of groups."""
    return _walk("", typer.main.get_command(app))


def all_groups() -> list[tuple[str, Any]]:
    """Every group below the root (`labels`, `inbox`)."""
    root = typer.main.get_command(app)
    pending = [(name, child) for name, child in getattr(root, "commands", {}).items()]
    groups: list[tuple[str, Any]] = []
    while pending:
        name, command = pending.pop()
        children = getattr(command, "commands", None)
        if children:
            groups.append((name, command))
            pending.extend((f"{name} {sub}", child) for sub, child in children.items())
    return groups


def headings() -> list[str]:
    return [line for line in README.splitlines() if line.startswith("### `qaeval ")]


def documented(name: str, readme_headings: list[str]) -> bool:
    """A command is documented when a `### ` heading names it whole: `qaeval labels export` or, after a
    first command of its group, `inbox list`; a prefix (`qaeval val` of `qaeval validate`) is not."""
    pattern = re.compile(rf"`(qaeval )?{re.escape(name)}( [^`]*)?`")
    return any(pattern.search(heading) for heading in readme_headings)


def test_every_command_has_help_and_is_in_the_readme() -> None:
    commands = all_commands()
    assert len(commands) >= 15
    assert {"labels export", "labels import", "inbox import", "inbox list", "inbox show"} <= dict(commands).keys()
    readme_headings = headings()
    for name, command in commands:
        assert (command.help or "").strip(), f"qaeval {name} has no help text"
        assert documented(name, readme_headings), f"qaeval {name} has no section in the README's Commands"
        for param in command.params:
            if param.name == "help":
                continue
            what = param.opts[0] if getattr(param, "param_type_name", "") == "option" else param.name.upper()
            assert (getattr(param, "help", "") or "").strip(), f"qaeval {name} {what} has no help text"


def test_every_command_group_has_help_text() -> None:
    groups = all_groups()
    assert {name for name, _ in groups} >= {"labels", "inbox"}
    for name, group in groups:
        assert (group.help or "").strip(), f"qaeval {name} has no help text"


def test_a_heading_documents_a_command_only_by_its_whole_name() -> None:
    readme_headings = ["### `qaeval validate [PATH...]`", "### `qaeval inbox import [FILE]` / `inbox list`"]
    assert documented("validate", readme_headings) and documented("inbox list", readme_headings)
    assert not documented("val", readme_headings)
    assert not documented("inbox show", readme_headings)


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
