"""The curator's flags queue: every flag or note a reviewer left (on their latest revision of an
item), filterable, each resolved once with a note. A later flagged revision is a new, open flag.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.flags import FlagRow

FlagState = Literal["open", "resolved", "all"]


@dataclass(frozen=True)
class Flag:
    """One flag or note in the curator queue; `id` is what `qaeval flags resolve` takes."""

    row: FlagRow

    @property
    def id(self) -> int:
        return self.row.id

    @property
    def is_open(self) -> bool:
        return self.row.resolved_at is None

    @property
    def kind(self) -> str:
        return "flag" if self.row.flagged else "note"


def list_flags(
    store: StoreBackend, *, state: FlagState = "open", reviewer: str | None = None, search: str | None = None
) -> list[Flag]:
    """Flags oldest first; `reviewer` matches case-insensitively, `search` in note, item id or case id."""
    wanted = reviewer.casefold() if reviewer else None
    needle = search.casefold() if search else None
    flags = []
    for row in store.flag_rows():
        flag = Flag(row)
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
        "created_at": row.created_at,
        "resolution": None
        if flag.is_open
        else {"note": row.resolution_note, "curator": row.resolved_by, "resolved_at": row.resolved_at},
    }
