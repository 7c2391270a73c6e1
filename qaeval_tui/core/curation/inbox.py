"""The production-miss inbox (DESIGN §3.6, §8.4): strict import, idempotent by trace id, and status.

A miss file is imported whole or not at all: every bad line is reported as
`path:line: field: message` and nothing is stored while any exists. Re-importing the same file
changes nothing; a different payload under a trace id already in the inbox is an error for that
line, because silently keeping either version would hide which one a curator promoted.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from qaeval_tui.core.errors import InputError, Problem, UsageError
from qaeval_tui.core.golden.loader import iter_lines, problems_from_validation
from qaeval_tui.core.jsonl import json_problem, loads, lone_surrogate_column, lone_surrogate_message
from qaeval_tui.core.models.golden import parse_timestamp
from qaeval_tui.core.models.miss import TRACE_ID_PATTERN as TRACE_ID_PATTERN
from qaeval_tui.core.models.miss import MissCitation as MissCitation
from qaeval_tui.core.models.miss import ProductionMiss as ProductionMiss
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.rows import InboxDecision as InboxDecision  # the curation API names it here
from qaeval_tui.core.store.rows import InboxMiss, InboxRecord, StoredMiss

InboxStatus = Literal["pending", "promoted", "rejected"]
STATUSES: tuple[InboxStatus, ...] = ("pending", "promoted", "rejected")


@dataclass(frozen=True)
class InboxEntry:
    """One miss in the inbox with where it came from and its decision, if any."""

    miss: ProductionMiss
    source: str
    imported_at: str
    decision: InboxDecision | None

    @property
    def trace_id(self) -> str:
        return self.miss.trace_id

    @property
    def status(self) -> InboxStatus:
        return "pending" if self.decision is None else self.decision.decision


@dataclass(frozen=True)
class ImportReport:
    """What one import did: trace ids newly stored, and those already stored identically."""

    path: str
    added: tuple[str, ...]
    unchanged: tuple[str, ...]


def parse_misses(data: bytes, path: str) -> tuple[list[tuple[int, ProductionMiss]], list[Problem]]:
    """Every valid miss with its line number, and every problem of every line."""
    misses: list[tuple[int, ProductionMiss]] = []
    problems: list[Problem] = []
    first_seen: dict[str, int] = {}
    for number, raw in iter_lines(data.split(b"\n")):
        miss, line_problems = _parse_line(raw, path, number)
        problems.extend(line_problems)
        if miss is None:
            continue
        if miss.trace_id in first_seen:
            where = f"{path}:{first_seen[miss.trace_id]}"
            problems.append(
                Problem(path, number, "trace_id", f"duplicate trace id {miss.trace_id!r} (first at {where})")
            )
            continue
        first_seen[miss.trace_id] = number
        misses.append((number, miss))
    return misses, problems


def _parse_line(raw: bytes, path: str, line: int) -> tuple[ProductionMiss | None, list[Problem]]:
    if line == 1 and raw.startswith(b"\xef\xbb\xbf"):
        return None, [Problem(path, line, "(file)", "starts with a UTF-8 byte order mark; save without BOM")]
    try:
        text = raw.decode("utf-8")
        obj = loads(text)
    except UnicodeDecodeError as exc:
        return None, [Problem(path, line, "(line)", f"invalid UTF-8 at byte {exc.start}")]
    except json.JSONDecodeError as exc:
        return None, [json_problem(exc, path, line)]
    if not isinstance(obj, dict):
        return None, [Problem(path, line, "(line)", "each line must be a JSON object")]
    column = lone_surrogate_column(text)
    if column is not None:
        return None, [Problem(path, line, "(line)", lone_surrogate_message(column))]
    try:
        return ProductionMiss.model_validate(obj), []
    except ValidationError as exc:
        return None, problems_from_validation(exc, path, line)


def import_misses(store: StoreBackend, path: str | Path) -> ImportReport:
    """Import a production-miss JSONL file: all lines or none. Raises InputError listing every problem."""
    file = Path(path)
    display = str(path)
    if not file.is_file():
        raise UsageError(f"{display}: no such file")
    try:
        data = file.read_bytes()
    except OSError as exc:
        raise UsageError(f"{display}: cannot read: {exc.strerror}") from exc
    misses, problems = parse_misses(data, display)
    located = [(miss, _at_line(display, number)) for number, miss in misses]
    return store_misses(store, display, located, problems)


Locate = Callable[[str, str], Problem]
"""Makes a problem (field, message) at where one miss was read: its line, or its span."""


def _at_line(path: str, line: int) -> Locate:
    return lambda field, message: Problem(path, line, field, message)


def store_misses(
    store: StoreBackend, display: str, misses: Sequence[tuple[ProductionMiss, Locate]], problems: list[Problem]
) -> ImportReport:
    """Store the misses read from one file, all or none: raises InputError with `problems` and every
    trace id already stored with other content; a trace id stored identically is left as it is."""
    stored = store.inbox_payloads(miss.trace_id for miss, _ in misses)
    new: list[tuple[ProductionMiss, Locate]] = []
    unchanged: list[str] = []
    for miss, locate in misses:
        if miss.trace_id not in stored:
            new.append((miss, locate))
        elif ProductionMiss.model_validate_json(stored[miss.trace_id].miss_json) == miss:
            unchanged.append(miss.trace_id)
        else:
            problems.append(_conflict(locate, miss.trace_id, stored[miss.trace_id]))
    if problems:
        raise InputError(problems, what=_WHAT)
    done = store.add_inbox_misses([InboxMiss(miss.trace_id, miss.canonical(), display) for miss, _ in new])
    if done.conflicts:
        # Another import stored these trace ids between our check and our write.
        stored = store.inbox_payloads(done.conflicts)
        where = {miss.trace_id: locate for miss, locate in new}
        problems = [_conflict(where[t], t, stored[t]) for t in done.conflicts]
        raise InputError(problems, what=_WHAT)
    return ImportReport(path=display, added=done.added, unchanged=tuple(unchanged))


_WHAT = "production-miss file"


def _conflict(locate: Locate, trace_id: str, stored: StoredMiss) -> Problem:
    source, imported_at = stored.source, stored.imported_at
    return locate(
        "trace_id",
        f"{trace_id!r} is already in the inbox with different content (imported from {source} at {imported_at}); "
        "give this miss its own trace id",
    )


def _entry(row: InboxRecord) -> InboxEntry:
    return InboxEntry(
        miss=row.miss,
        source=row.source,
        imported_at=row.imported_at,
        decision=row.decision,
    )


def parse_status(value: str | None) -> InboxStatus | None:
    """A status filter as typed (None: every status). Raises UsageError for an unknown one."""
    if value is None:
        return None
    if value not in STATUSES:
        raise UsageError(f"--status: must be one of {', '.join(STATUSES)}, not {value!r}")
    return value


def _haystack(entry: InboxEntry) -> str:
    miss = entry.miss
    return "\n".join((miss.trace_id, miss.question, miss.answer, miss.reason, miss.reporter)).casefold()


def list_inbox(store: StoreBackend, status: str | None = None, search: str | None = None) -> list[InboxEntry]:
    """Inbox entries, oldest report first; `status` and case-insensitive `search` narrow them."""
    wanted = parse_status(status)
    entries = [_entry(row) for row in store.inbox_entries()]
    chosen = [
        entry
        for entry in entries
        if (wanted is None or entry.status == wanted) and (not search or search.casefold() in _haystack(entry))
    ]
    return sorted(chosen, key=lambda e: (_timestamp(e.miss.reported_at), e.trace_id))


def _timestamp(value: str) -> datetime:
    parsed = parse_timestamp(value)
    # A timestamp without a zone is read as UTC, so that a file mixing both still sorts.
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def status_counts(entries: list[InboxEntry]) -> dict[InboxStatus, int]:
    """How many entries have each status (every status present, zero included)."""
    counts: dict[InboxStatus, int] = dict.fromkeys(STATUSES, 0)
    for entry in entries:
        counts[entry.status] += 1
    return counts


def inbox_entry(store: StoreBackend, trace_id: str) -> InboxEntry:
    """One entry by trace id. Raises UsageError when it is not in the inbox."""
    rows = store.inbox_entries(trace_id)
    if not rows:
        raise UsageError(f"no production miss with trace id {trace_id!r} in the inbox; see `qaeval inbox list`")
    return _entry(rows[0])


def entry_to_json(entry: InboxEntry) -> dict[str, Any]:
    """The miss as imported (§8.4 keys) plus status, where it came from, and the decision."""
    decision = entry.decision
    return {
        **entry.miss.as_json(),
        "status": entry.status,
        "imported_from": entry.source,
        "imported_at": entry.imported_at,
        "decision": None
        if decision is None
        else {
            "decision": decision.decision,
            "case_id": decision.case_id,
            "reason": decision.reason,
            "curator": decision.curator,
            "decided_at": decision.decided_at,
        },
    }
