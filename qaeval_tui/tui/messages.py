"""Messages workers post back to screens (workers never touch widgets)."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from qaeval_tui.core.review.session import BlindItemView, Progress, RevealView, SessionSummary
from qaeval_tui.core.usecases.prepare import PrepareReport, StoreOverview


@dataclass
class ItemArrived(Message):
    """The next item to show (None: the queue is done, and `summary` says what was done)."""

    item: BlindItemView | None
    progress: Progress | None
    """None when it follows in a ProgressArrived (so the item shows first)."""
    summary: SessionSummary | None = None
    notice: str = ""
    submitted: str | None = None
    """Item id just saved (committed) by this call, for reveal."""


@dataclass
class ProgressArrived(Message):
    progress: Progress


@dataclass
class GoldArrived(Message):
    """The core's answer to "may the gold answer show now?" for one item (None: not yet), and the
    blind scores its showing locked ({} while it has not shown)."""

    item_id: str
    gold: str | None
    lock: dict[str, int | None]


@dataclass
class RevealArrived(Message):
    view: RevealView


@dataclass
class CallFailed(Message):
    """A core call refused or failed; nothing it would have written was written."""

    text: str
    title: str = "Not saved"


@dataclass
class PrepareStep(Message):
    text: str


@dataclass
class Prepared(Message):
    report: PrepareReport


@dataclass
class OverviewArrived(Message):
    overview: StoreOverview
    progress: Progress


@dataclass
class StoreAvailability(Message):
    """The store became unreachable (`text` says why; calls wait and retry) or came back (None)."""

    text: str | None


@dataclass
class TeamStanding(Message):
    """The picker's line about the team's queues (core.review.prepare.picker_note)."""

    text: str


@dataclass
class LabelSaved(Message):
    """The label submitted at queue position `position` is on disk: the reviewer may now read "saved"."""

    position: int
