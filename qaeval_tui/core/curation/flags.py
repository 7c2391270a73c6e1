"""The curator's flags queue: every flag or note a reviewer left (on their latest revision of an
item), filterable, each resolved once with a note. A later flagged revision is a new, open flag.

A flag is on an item, not an axis; it concerns an axis when its revision scored that axis "can't
judge", or its note names the axis (`citation_correctness` or `citation correctness`, any case).
That is what the axis filter keeps, and what `axes` lists.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.rubric import Rubric
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.flags import FlagRow

FlagState = Literal["open", "resolved", "all"]


@dataclass(frozen=True)
class Flag:
    """One flag or note in the curator queue; `id` is what `qaeval flags resolve` takes."""

    row: FlagRow
    axes: tuple[str, ...] = ()
    """The axes it concerns, in rubric order (listed when the rubric was given)."""

    @property
    def id(self) -> int:
        return self.row.id

    @property
    def is_open(self) -> bool:
        return self.row.resolved_at is None

    @property
    def kind(self) -> str:
        return "flag" if self.row.flagged else "note"


def _names(axis: str, note: str) -> bool:
    words = r"[ _]+".join(re.escape(word) for word in re.split(r"[ _]+", axis.strip()))
    return re.search(rf"(?<![\w]){words}(?![\w])", note, re.IGNORECASE) is not None


def flag_axes(rubric: Rubric, scores: Mapping[str, int | None], note: str) -> tuple[str, ...]:
    """The axes a flag concerns: scored "can't judge" on its revision, or named in its note."""
    return tuple(
        axis.name
        for axis in rubric.axes
        if (axis.name in scores and scores[axis.name] is None) or (note and _names(axis.name, note))
    )


def axis_named(rubric: Rubric, name: str) -> str:
    """`name` if the rubric has that axis; else UsageError (exit 2) naming `--axis` and the rubric's axes."""
    if name in rubric.axis_names:
        return name
    raise UsageError(f"--axis {name!r}: not an axis of the rubric; it has {', '.join(rubric.axis_names)}")


def list_flags(
    store: StoreBackend,
    *,
    state: FlagState = "open",
    reviewer: str | None = None,
    search: str | None = None,
    rubric: Rubric | None = None,
    axis: str | None = None,
) -> list[Flag]:
    """Flags oldest first; `reviewer` matches case-insensitively, `search` in note, item id or case id.

    With the `rubric`, each flag lists the axes it concerns, and `axis` keeps those that concern it
    (UsageError, exit 2, for a name the rubric does not have)."""
    if axis is not None:
        if rubric is None:
            raise ValueError("filtering flags by axis needs the rubric")
        axis = axis_named(rubric, axis)
    wanted = reviewer.casefold() if reviewer else None
    needle = search.casefold() if search else None
    scores = {revision.id: revision.label.scores for revision in store.labels()} if rubric is not None else {}
    flags = []
    for row in store.flag_rows():
        flag = Flag(row, () if rubric is None else flag_axes(rubric, scores.get(row.id, {}), row.note))
        if axis is not None and axis not in flag.axes:
            continue
        if state != "all" and flag.is_open != (state == "open"):
            continue
        if wanted is not None and row.reviewer.casefold() != wanted:
            continue
        if needle is not None and not any(needle in text.casefold() for text in (row.note, row.item_id, row.case_id)):
            continue
        flags.append(flag)
    return flags


def open_flag_count(store: StoreBackend) -> int:
    """How many flags and notes wait for a curator (the dashboard's count)."""
    return sum(1 for row in store.flag_rows() if row.resolved_at is None)


def resolve_flag(store: StoreBackend, flag_id: int, *, note: str, curator: str) -> Flag:
    """Resolve one open flag with a note. UsageError (exit 2, nothing written): unknown id, blank
    note or curator, or already resolved."""
    if not note.strip():
        raise UsageError("--note: a resolution needs a non-blank note")
    if not curator.strip():
        raise UsageError("--curator: name who resolves the flag (or set QAEVAL_CURATOR)")
    with store.transaction():
        rows = {row.id: row for row in store.flag_rows()}
        if flag_id not in rows:
            raise UsageError(f"flag {flag_id}: no such flag; `qaeval flags list --all` shows their ids")
        if rows[flag_id].resolved_at is not None:
            raise UsageError(f"flag {flag_id}: already resolved at {rows[flag_id].resolved_at}; nothing was changed")
        store.resolve_flag(flag_id, note.strip(), curator.strip())
    resolved = {row.id: row for row in store.flag_rows()}[flag_id]
    return Flag(resolved)


def flag_to_json(flag: Flag) -> dict[str, Any]:
    row = flag.row
    return {
        "id": row.id,
        "kind": flag.kind,
        "status": "open" if flag.is_open else "resolved",
        "item_id": row.item_id,
        "case_id": row.case_id,
        "reviewer": row.reviewer,
        "revision": row.revision,
        "note": row.note,
        "axes": list(flag.axes),
        "created_at": row.created_at,
        "resolution": None
        if flag.is_open
        else {"note": row.resolution_note, "curator": row.resolved_by, "resolved_at": row.resolved_at},
    }
