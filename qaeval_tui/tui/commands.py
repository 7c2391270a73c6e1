"""Every command of the TUI, declared once.

One declaration feeds the key binding, the key bar, the help screen and the command palette, so
they never disagree: a screen's own commands are declared with its destination
(`destinations.py`); home's and the app-wide ones here. Keys are remapped with `[review.keys]` in
the config (action name -> key); the scale digits are not remappable because they are the scale.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from qaeval_tui.core.errors import UsageError
from qaeval_tui.tui.destinations import DESTINATIONS, RULE_KEYS, SCORE_KEYS, Command, ScaleKeys, Scope

if TYPE_CHECKING:
    from textual.binding import BindingType

__all__ = [  # Command and Scope are declared with the destinations and read from here too
    "APP_COMMANDS",
    "BINDING_PREFIX",
    "COMMANDS",
    "HOME_COMMANDS",
    "RULE_HELP",
    "SCALE_KEYS",
    "SCOPE_TITLES",
    "SCORE_HELP",
    "Command",
    "Scope",
    "binding_id",
    "bindings",
    "commands_for",
    "keymap",
    "remappable_names",
    "resolve_keys",
    "scale_digits",
]

BINDING_PREFIX = "qaeval."

HOME_COMMANDS: tuple[Command, ...] = (
    Command("refresh", "ctrl+r", "refresh", "Reload the golden set, runs and your progress.", "home"),
)
"""Home's own commands; home's keys for the screens come from their destinations."""
APP_COMMANDS: tuple[Command, ...] = (
    Command("help", "question_mark", "help", "Show every key and what it does.", "app"),
    Command(
        "quit",
        "ctrl+q",
        "quit",
        "Quit (a partly scored item asks once first). Every submitted label is already saved.",
        "app",
        priority=True,
    ),
)
"""Bound on every screen."""

SCOPE_TITLES: dict[Scope, str] = {
    "home": "Home",
    **{entry.scope: entry.title for entry in DESTINATIONS},
    "app": "Everywhere",
}
"""The help screen's heading for each scope's keys."""

COMMANDS: tuple[Command, ...] = (
    *(command for entry in DESTINATIONS for command in (replace(c, scope=entry.scope) for c in entry.commands)),
    *(command for command in (entry.opener_command() for entry in DESTINATIONS) if command is not None),
    *HOME_COMMANDS,
    *APP_COMMANDS,
)
"""Scale digits are added per screen: "score" on the review screen, "rule as" on adjudication."""

SCALE_KEYS: dict[Scope, ScaleKeys] = {entry.scope: entry.scale for entry in DESTINATIONS if entry.scale}
"""The scale digits of each screen that binds them."""
SCORE_HELP = SCORE_KEYS.help
RULE_HELP = RULE_KEYS.help


def commands_for(scope: Scope) -> tuple[Command, ...]:
    return tuple(command for command in COMMANDS if command.scope == scope)


def binding_id(name: str) -> str:
    return BINDING_PREFIX + name


def remappable_names() -> tuple[str, ...]:
    return tuple(dict.fromkeys(command.name for command in COMMANDS))


def resolve_keys(overrides: Mapping[str, str]) -> dict[str, str]:
    """Effective key per command name after `[review.keys]`; raises UsageError on a bad remap.

    A remap may not name an unknown command, use a scale digit, or take a key another command
    of the same screen (or an app-wide command) already uses.
    """
    names = set(remappable_names())
    unknown = sorted(set(overrides) - names)
    if unknown:
        raise UsageError(f"review.keys: unknown command(s) {', '.join(unknown)}; known: {', '.join(sorted(names))}")
    keys = {command.name: overrides.get(command.name, command.key) for command in COMMANDS}
    for name, key in overrides.items():
        if not key.strip():
            raise UsageError(f"review.keys.{name}: empty key")
        if key.isdigit():
            raise UsageError(f"review.keys.{name}: {key!r} is a scale digit and scores the focused axis")
    for scope in {command.scope for command in COMMANDS} - {"app"}:
        taken: dict[str, str] = {}
        for command in COMMANDS:
            if command.scope not in (scope, "app"):
                continue
            key = keys[command.name]
            if key in taken and taken[key] != command.name:
                raise UsageError(f"review.keys: {key!r} is bound to both {taken[key]} and {command.name}")
            taken[key] = command.name
    return keys


def keymap(overrides: Mapping[str, str]) -> dict[str, str]:
    """The Textual keymap (binding id -> key) for the overrides."""
    return {binding_id(name): key for name, key in resolve_keys(overrides).items() if name in overrides}


def scale_digits(scales: Iterable[tuple[int, ...]]) -> tuple[int, ...]:
    """Scale values that a single digit key can enter, across every axis, in order."""
    return tuple(sorted({value for scale in scales for value in scale if 0 <= value <= 9}))


def bindings(scope: Scope) -> list[BindingType]:
    """Textual bindings for one screen: its commands (with ids, so the keymap remaps them) and its
    scale digits, 0-9 (`score(2)` on the review screen, `rule_with(2)` on adjudication), which share
    one label: the key bar shows them as one range, and the screen hides those off the rubric's scales.
    """
    from textual.binding import Binding

    result: list[BindingType] = [
        Binding(c.key, c.runs, c.label, show=c.in_bar, priority=c.priority, id=binding_id(c.name))
        for c in commands_for(scope)
    ]
    if scale := SCALE_KEYS.get(scope):
        result.extend(Binding(str(digit), f"{scale.action}({digit})", scale.label) for digit in range(10))
    return result
