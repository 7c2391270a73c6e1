"""Going somewhere: the one factory of every destination's screen, and the message that asks for one.

Screens never build or push each other: a screen posts `Navigate` (home for a key of its list, the
inbox for the selected miss), and the app looks the destination up (`destinations.py`), builds
its screen here and pushes it; the screen `dismiss()`es its result and the app or the asking
screen decides what comes next. (A modal dialog is a screen's own: it pushes it with a callback
for the dialog's typed result.) The factory is the one gate: it refuses a seat a destination is
not for before anything is imported, and it imports a screen's module only when the screen is
first opened, so the review TUI's cold start does not pay for screens the reviewer may never open.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from typing import Any

from textual.message import Message
from textual.screen import Screen

from qaeval_tui.core.review.views import require_curator
from qaeval_tui.tui.context import AppContext
from qaeval_tui.tui.destinations import Destination, Scope


def build_screen(entry: Destination, context: AppContext, *selection: object) -> Screen[Any]:
    """The screen of `entry` for `context`'s seat, on `selection`; CuratorOnly for a reviewer and a curator screen."""
    if entry.role == "curator":
        require_curator(context.seat, entry.title)
    module, _, name = entry.screen.partition(":")
    screen: Screen[Any] = getattr(import_module(module), name)(context, *selection)
    return screen


@dataclass
class Navigate(Message):
    """Open the destination `scope` on `selection`; the app handles it (and refuses another role's)."""

    scope: Scope
    selection: tuple[object, ...] = ()
    then: Callable[[Any], None] | None = None
    """Called with the screen's result when it is dismissed, when the asking screen wants it."""
