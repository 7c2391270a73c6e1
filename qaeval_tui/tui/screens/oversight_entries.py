"""The curation and oversight screens as entries for the home screen and the command palette.

Each factory takes the app's `ReviewContext` and builds its screen on a fresh `OversightGateway`
(its own connection to the same store, closed when that screen is dismissed); the curator's name
is the app's reviewer name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from textual.screen import Screen

from qaeval_tui.tui.commands import OversightScope
from qaeval_tui.tui.context import ReviewContext
from qaeval_tui.tui.screens.oversight_gateway import OversightContext, OversightGateway


def oversight_context(context: ReviewContext) -> OversightContext:
    """An OversightContext on the same config, store and golden data as the review app."""
    door = context.gateway
    gateway = OversightGateway(door.config, door.db_path, door.data_paths)
    return OversightContext(gateway, curator=context.reviewer, deterministic=context.deterministic)


def inbox_screen(context: ReviewContext) -> Screen[Any]:
    from qaeval_tui.tui.screens.inbox import InboxScreen

    return InboxScreen(oversight_context(context), owns_gateway=True)


def adjudication_screen(context: ReviewContext) -> Screen[Any]:
    from qaeval_tui.tui.screens.adjudicate import AdjudicationScreen

    return AdjudicationScreen(oversight_context(context), owns_gateway=True)


def dashboard_screen(context: ReviewContext) -> Screen[Any]:
    from qaeval_tui.tui.screens.dashboard import DashboardScreen

    return DashboardScreen(oversight_context(context), owns_gateway=True)


def browse_screen(context: ReviewContext) -> Screen[Any]:
    from qaeval_tui.tui.screens.browse import BrowseScreen

    return BrowseScreen(oversight_context(context), owns_gateway=True)


@dataclass(frozen=True)
class OversightEntry:
    name: str
    """Command / action name (`open_inbox` -> `action_open_inbox`)."""
    label: str
    description: str
    factory: Callable[[ReviewContext], Screen[Any]]
    scope: OversightScope
    """The scope of the screen it opens."""


ENTRIES: tuple[OversightEntry, ...] = (
    OversightEntry(
        "open_inbox", "Inbox", "production misses to promote into the living split, or reject", inbox_screen, "inbox"
    ),
    OversightEntry(
        "open_adjudication",
        "Adjudication",
        "settle disagreements between blind reviewers",
        adjudication_screen,
        "adjudicate",
    ),
    OversightEntry(
        "open_dashboard",
        "Calibration",
        "judge vs human and agreement per axis, with drill-down",
        dashboard_screen,
        "dashboard",
    ),
    OversightEntry("open_browse", "Browse", "every golden case, filtered and searched", browse_screen, "browse"),
)
"""Promote, drill-down and case detail are opened from these screens, not from home."""
