"""The view models of blind review: plain frozen dataclasses, and how they are built from stored content.

`BlindItemView` has no field that could carry the judge verdict, another reviewer's label, the
system's name or the readable case id (DESIGN §4); the review screen renders nothing else. A
reviewer seat (`Seat`) reaches no curator view: `require_curator` refuses it before one is built.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from qaeval_tui.core.config import Config
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.rubric import Rubric

Role = Literal["reviewer", "curator"]
"""A reviewer labels blind; a curator sees verdicts, labels and consensus (inbox, adjudication,
calibration, golden browser). `qaeval review` is the reviewer's app, `qaeval curate` the curator's."""


@dataclass(frozen=True)
class Seat:
    """Who works in one app, and in which role: every view an app builds is checked against it."""

    name: str
    role: Role


def seat_for(name: str, role: Role, config: Config) -> Seat:
    """`name` in `role`; a curator seat only for a name `[review] roster` gives the curator role
    (case-insensitive; with no roster configured, one person does everything: core/review/roster.py).

    Raises UsageError (exit 2) naming the config key for anyone else, so the curator app never opens
    for a reviewer.
    """
    from qaeval_tui.core.review.roster import roles_of  # its imports (label export) stay off the review start

    if role == "curator" and "curator" not in roles_of(config, name):
        listed = ", ".join(m.name for m in config.review.roster if "curator" in m.roles) or "nobody"
        raise UsageError(f"review.roster: {name!r} is not a curator (curators: {listed})")
    return Seat(name, role)


class CuratorOnly(UsageError):
    """A curator view asked for from a reviewer seat: refused, nothing is shown."""


def require_curator(seat: Seat, what: str) -> None:
    """The gate of every curator-only view: verdicts, other reviewers' labels, consensus, case ids."""
    if seat.role != "curator":
        raise CuratorOnly(f"{what} is for curators (qaeval curate); this is a reviewer session")


@dataclass(frozen=True)
class AxisView:
    name: str
    scale: tuple[int, ...]
    anchors: tuple[str, ...]
    needs_gold: bool


@dataclass(frozen=True)
class CitationView:
    marker: int  # 1-based, as shown in the answer "[1]"
    source_id: str
    quote: str | None
    span: tuple[int, int] | None  # char offsets of the quote inside the source text, None if not found
    resolvable: bool  # the source id exists in this item's sources


@dataclass(frozen=True)
class SourceView:
    source_id: str
    title: str | None
    text: str
    cited_spans: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class BlindItemView:
    """The only thing the review screen renders before submit."""

    item_id: str
    position: int  # 1-based position in this reviewer's queue (0 if the item is not in it)
    total: int  # items assigned to this reviewer
    question: str
    answer: str
    abstained: bool
    citations: tuple[CitationView, ...]
    sources: tuple[SourceView, ...]
    axes: tuple[AxisView, ...]
    rubric_version: str
    previous_scores: dict[str, int | None]  # this reviewer's own latest revision when reopened, else {}
    previous_note: str
    previous_flagged: bool
    gold_lock: dict[str, int | None] = field(default_factory=dict)
    """The blind scores locked because this reviewer was shown the item's gold answer ({} while not)."""


@dataclass(frozen=True)
class Progress:
    done: int
    assigned: int
    skipped: int
    flagged: int
    seconds_spent: float


@dataclass(frozen=True)
class OtherLabel:
    """Another reviewer's latest submitted label on a revealed item: their scores and note."""

    reviewer: str
    scores: dict[str, int | None]
    note: str


@dataclass(frozen=True)
class RevealView:
    """Shown only after this reviewer's submit. `status` is "ok", "error", or "missing" (no verdict stored)."""

    item_id: str
    case_id: str
    judge_name: str
    status: str
    judge_scores: dict[str, int | None]
    evidence: dict[str, str]
    your_scores: dict[str, int | None]
    agrees: dict[str, bool | None]
    others: tuple[OtherLabel, ...] = ()
    """The other reviewers' latest submitted labels on the item (row security shows them after the reveal)."""


@dataclass(frozen=True)
class SessionSummary:
    """What this session did (labeled, skipped, flagged, time), and what is left in the queue."""

    labeled: int
    skipped: int
    flagged: int
    seconds_spent: float
    remaining: int

    def parting_line(self, reviewer: str) -> str:
        """The one line `qaeval review` prints on quitting."""
        return (
            f"{reviewer}: {self.labeled} label(s) saved this session, {self.skipped} skipped; "
            f"{self.remaining} item(s) left in your queue"
        )


@dataclass
class CuratorTally:
    """What a curator decided in one `qaeval curate` session, counted as each decision is recorded:
    the line the curator app prints on quitting. Only decisions the store accepted are counted."""

    rulings: int = 0
    promoted: int = 0
    rejected: int = 0
    flags_resolved: int = 0

    def parting_line(self, curator: str) -> str:
        """The one line `qaeval curate` prints on quitting."""
        if not (self.rulings or self.promoted or self.rejected or self.flags_resolved):
            return f"{curator} (curator): nothing decided this session"
        return (
            f"{curator} (curator): {self.rulings} ruling(s) recorded, {self.promoted} case(s) promoted, "
            f"{self.rejected} trace(s) rejected, {self.flags_resolved} flag(s) resolved this session"
        )


def find_quote(text: str, quote: str | None) -> tuple[int, int] | None:
    """Where `quote` sits in `text`: exact first, then ignoring case and runs of whitespace."""
    if not quote or not quote.strip():
        return None
    start = text.find(quote)
    if start >= 0:
        return (start, start + len(quote))
    pattern = r"\s+".join(re.escape(word) for word in quote.split())
    match = re.search(pattern, text, flags=re.IGNORECASE)
    return None if match is None else (match.start(), match.end())


def axis_views(rubric: Rubric) -> tuple[AxisView, ...]:
    return tuple(AxisView(a.name, a.scale, a.anchors, a.needs_gold) for a in rubric.axes)


def content_views(
    case: Mapping[str, Any], output: Mapping[str, Any]
) -> tuple[tuple[CitationView, ...], tuple[SourceView, ...]]:
    sources = {str(s["id"]): s for s in case.get("sources", [])}
    citations: list[CitationView] = []
    spans: dict[str, list[tuple[int, int]]] = {source_id: [] for source_id in sources}
    for marker, citation in enumerate(output.get("citations", []), start=1):
        source_id = str(citation.get("source_id", ""))
        quote = citation.get("quote")
        source = sources.get(source_id)
        span = find_quote(str(source["text"]), quote) if source is not None else None
        if span is not None:
            spans[source_id].append(span)
        citations.append(CitationView(marker, source_id, quote, span, source is not None))
    source_views = tuple(
        SourceView(source_id, s.get("title"), str(s["text"]), tuple(sorted(set(spans[source_id]))))
        for source_id, s in sources.items()
    )
    return tuple(citations), source_views
