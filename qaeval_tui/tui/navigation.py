"""Where the app can go: one table read by the home screen, the command palette and the app.

Each destination belongs to one role's app (DESIGN §4): the reviewer's app never lists a curator
screen, and a curator screen's factory refuses a reviewer seat, so none is built by accident.
Screens never open each other's successors: home posts `Navigate`, and the app looks the name up
here, pushes the screen and decides from its result what comes next (review -> summary -> review).
Each factory imports its screen when called, so the review TUI's cold start does not pay for
screens the reviewer may never open.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from textual.message import Message
from textual.screen import Screen

from qaeval_tui.core.review.views import Role, require_curator
from qaeval_tui.tui.commands import Scope
from qaeval_tui.tui.context import AppContext


def review_screen(context: AppContext) -> Screen[Any]:
    from qaeval_tui.tui.screens.review import ReviewScreen

    return ReviewScreen(context)


def inbox_screen(context: AppContext) -> Screen[Any]:
    require_curator(context.seat, "The inbox")
    from qaeval_tui.tui.screens.inbox import InboxScreen

    return InboxScreen(context)


def adjudication_screen(context: AppContext) -> Screen[Any]:
    require_curator(context.seat, "Adjudication")
    from qaeval_tui.tui.screens.adjudicate import AdjudicationScreen

    return AdjudicationScreen(context)


def dashboard_screen(context: AppContext) -> Screen[Any]:
    require_curator(context.seat, "The calibration dashboard")
    from qaeval_tui.tui.screens.dashboard import DashboardScreen

    return DashboardScreen(context)


def browse_screen(context: AppContext) -> Screen[Any]:
    require_curator(context.seat, "The golden browser")
    from qaeval_tui.tui.screens.browse import BrowseScreen

    return BrowseScreen(context)


def flags_screen(context: AppContext) -> Screen[Any]:
    require_curator(context.seat, "The flags queue")
    from qaeval_tui.tui.screens.flags import FlagsScreen

    return FlagsScreen(context)


def runs_screen(context: AppContext) -> Screen[Any]:
    require_curator(context.seat, "The stored runs")
    from qaeval_tui.tui.screens.runs import RunsScreen

    return RunsScreen(context)


@dataclass(frozen=True)
class Destination:
    name: str
    """Command / action name (`open_inbox` -> home's `action_open_inbox`)."""
    label: str
    description: str
    factory: Callable[[AppContext], Screen[Any]]
    scope: Scope
    """The scope of the screen it opens."""
    from_anywhere: bool = True
    """Also offered by the command palette on every other screen once the store is prepared."""
    role: Role = "curator"
    """The app that offers it: the reviewer's (`qaeval review`) or the curator's (`qaeval curate`)."""


DESTINATIONS: tuple[Destination, ...] = (
    Destination(
        "start_review",
        "Review",
        "blind-label your queue, resuming where you left off",
        review_screen,
        "review",
        from_anywhere=False,  # the queue is entered from home, so its summary returns there
        role="reviewer",
    ),
    Destination(
        "open_inbox", "Inbox", "production misses to promote into the living split, or reject", inbox_screen, "inbox"
    ),
    Destination(
        "open_adjudication",
        "Adjudication",
        "settle disagreements between blind reviewers",
        adjudication_screen,
        "adjudicate",
    ),
    Destination(
        "open_dashboard",
        "Calibration",
        "judge vs human and agreement per axis, with drill-down",
        dashboard_screen,
        "dashboard",
    ),
    Destination("open_browse", "Browse", "every golden case, filtered and searched", browse_screen, "browse"),
    Destination("open_flags", "Flags", "reviewers' flags and notes, each resolved with a note", flags_screen, "flags"),
    Destination(
        "open_runs",
        "Runs",
        "stored runs: each case's checks, metrics and verdict; two runs compared",
        runs_screen,
        "runs",
    ),
)
"""Every screen reachable from home, in home's order. Promote, drill-down and case detail are
opened from these screens (they need a selection), not from home."""

ENTRIES: tuple[Destination, ...] = tuple(destination for destination in DESTINATIONS if destination.from_anywhere)
"""The curation and oversight screens, offered from anywhere (in the curator app)."""


def destinations_for(role: Role) -> tuple[Destination, ...]:
    """What `role`'s app offers, in home's order: the reviewer reviews; the curator curates and oversees."""
    return tuple(entry for entry in DESTINATIONS if entry.role == role)


def entries_for(role: Role) -> tuple[Destination, ...]:
    """What `role`'s palette offers from every screen."""
    return tuple(entry for entry in ENTRIES if entry.role == role)


def destination(name: str) -> Destination:
    return next(entry for entry in DESTINATIONS if entry.name == name)


@dataclass
class Navigate(Message):
    """Go to the destination `name`; the app handles it."""

    name: str
