"""Import production misses into the inbox (`qaeval inbox import`): production-miss JSONL or a trace export.

The request is checked before any store is opened (an unknown format, a malformed `--where`, or a
trace-export option given with JSONL is a UsageError that creates nothing); the import then reads
the file with the reader its format names: `import_misses` for JSONL, `import_traces` for the others.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from qaeval_tui.core.config import Config
from qaeval_tui.core.curation.inbox import ImportReport, import_misses
from qaeval_tui.core.curation.traces.importer import TraceImportReport, import_traces, parse_format
from qaeval_tui.core.curation.traces.model import Condition, parse_conditions
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.store.backend import StoreBackend


@dataclass(frozen=True)
class InboxImportRequest:
    """What `qaeval inbox import` reads and how it selects, checked before the store is opened."""

    path: Path
    fmt: str
    """`jsonl` (production-miss lines) or a trace export's format."""
    conditions: tuple[Condition, ...] = ()
    skip_incomplete: bool = False
    reason: str | None = None

    @property
    def traces(self) -> bool:
        """The file is a trace export (not production-miss JSONL)."""
        return self.fmt != "jsonl"


@dataclass(frozen=True)
class InboxImport:
    """What an import stored; for a trace export, also what it read and left out."""

    stored: ImportReport
    traces: TraceImportReport | None = None
    """None for production-miss JSONL."""


def plan_inbox_import(
    config: Config,
    file: Path | None,
    fmt: str,
    where: Sequence[str] = (),
    *,
    skip_incomplete: bool = False,
    reason: str | None = None,
) -> InboxImportRequest:
    """The import `--format`, `--where`, `--skip-incomplete` and `--reason` ask for, of `file` (default:
    the configured `paths.inbox`); UsageError for an unknown format, a malformed condition, or a
    trace-export option with JSONL."""
    chosen = parse_format(fmt)
    conditions = parse_conditions(where)
    if chosen == "jsonl" and (conditions or skip_incomplete or reason is not None):
        raise UsageError("--where, --skip-incomplete and --reason apply to trace exports (--format otlp, ...)")
    path = file or config.path(config.paths.inbox)
    return InboxImportRequest(path, chosen, conditions, skip_incomplete, reason)


def import_into_inbox(store: StoreBackend, request: InboxImportRequest) -> InboxImport:
    """Import the request's file into the open `store`: all its misses or none, idempotent by trace id."""
    if not request.traces:
        return InboxImport(import_misses(store, request.path))
    traced = import_traces(
        store,
        request.path,
        request.fmt,
        request.conditions,
        skip_incomplete=request.skip_incomplete,
        reason=request.reason,
    )
    return InboxImport(traced.stored, traced)
