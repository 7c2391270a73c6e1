"""`qaeval inbox import --format FORMAT`: production misses from trace exports, all or nothing.

Each trace format is one `TraceFormat` in `TRACE_FORMATS` (a reader from bytes to trace records);
adding a format is one declaration here and a reader module beside it. The import keeps the
inbox's rules (DESIGN §3.6): strict, every problem listed as `file:span-id: field: message`, nothing
stored while any exists, idempotent by trace id.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from qaeval_tui.core.curation.inbox import ImportReport, Locate, ProductionMiss, store_misses
from qaeval_tui.core.curation.traces.conventions import genai_case, openinference_case
from qaeval_tui.core.curation.traces.langfuse import read_langfuse
from qaeval_tui.core.curation.traces.model import Condition, FoundCase, Incomplete, TraceRecord
from qaeval_tui.core.curation.traces.otlp import Extractor, group_traces, read_spans
from qaeval_tui.core.errors import InputError, Problem, SpanProblem, UsageError
from qaeval_tui.core.golden.loader import problems_from_validation
from qaeval_tui.core.store.backend import StoreBackend

Reader = Callable[[bytes, str], tuple[Sequence[TraceRecord], list[SpanProblem]]]


def _otlp_reader(extractor: Extractor) -> Reader:
    def read(data: bytes, path: str) -> tuple[Sequence[TraceRecord], list[SpanProblem]]:
        spans, problems = read_spans(data, path)
        return group_traces(spans, extractor), problems

    return read


def _read_langfuse(data: bytes, path: str) -> tuple[Sequence[TraceRecord], list[SpanProblem]]:
    return read_langfuse(data, path), []


@dataclass(frozen=True)
class TraceFormat:
    name: str
    summary: str
    read: Reader


TRACE_FORMATS: dict[str, TraceFormat] = {
    fmt.name: fmt
    for fmt in (
        TraceFormat("otlp", "OTLP JSON, OpenTelemetry GenAI semantic conventions", _otlp_reader(genai_case)),
        TraceFormat("openinference", "OTLP JSON, OpenInference span attributes", _otlp_reader(openinference_case)),
        TraceFormat("langfuse", "Langfuse traces with observations and scores", _read_langfuse),
    )
}
FORMATS = ("jsonl", *TRACE_FORMATS)


def parse_format(value: str) -> str:
    """A `--format` as typed. Raises UsageError for an unknown one."""
    if value not in FORMATS:
        raise UsageError(f"--format: must be one of {', '.join(FORMATS)}, not {value!r}")
    return value


@dataclass(frozen=True)
class TraceImportReport:
    """What a trace import did, and what it left out and why."""

    stored: ImportReport
    traces: int  # traces in the file
    not_selected: int  # left out by --where
    without_case: int  # no question-answering span (and no --where selected them)
    skipped: tuple[str, ...]  # trace ids left out as incomplete (--skip-incomplete)


def import_traces(
    store: StoreBackend,
    path: str | Path,
    fmt: str,
    where: Iterable[Condition] = (),
    *,
    skip_incomplete: bool = False,
    reason: str | None = None,
) -> TraceImportReport:
    """Import the question-answering cases of the traces a `--where` selects as production misses.

    Raises InputError listing every problem (nothing stored), UsageError for a missing file.
    A trace selected by `--where` that has no question-answering span is a problem; without
    `--where`, such traces (health checks, background jobs) are only counted.
    """
    trace_format = TRACE_FORMATS[parse_format(fmt)] if fmt != "jsonl" else None
    if trace_format is None:
        raise UsageError("--format jsonl: use import_misses")
    display = str(path)
    data = _read(Path(path), display)
    conditions = tuple(where)
    records, problems = trace_format.read(data, display)
    problems_all: list[Problem] = list(problems)
    misses: list[tuple[ProductionMiss, Locate]] = []
    not_selected = without_case = 0
    skipped: list[str] = []
    seen: dict[str, int] = {}
    for record in records:
        if not all(record.matches(condition) for condition in conditions):
            not_selected += 1
            continue
        if record.trace_id in seen:
            message = f"trace {record.trace_id!r} appears twice in the file"
            problems_all.append(SpanProblem(display, record.ordinal, "id", message, record.trace_id))
            continue
        seen[record.trace_id] = record.ordinal
        try:
            case = record.extract(display)
        except Incomplete as gap:
            if skip_incomplete:
                skipped.append(record.trace_id)
            else:
                problems_all.extend(gap.problems)
            continue
        if case is None:
            if conditions:
                message = "selected by --where, but no span records a question and an answer"
                problems_all.append(SpanProblem(display, record.ordinal, "(trace)", message, record.trace_id))
            else:
                without_case += 1
            continue
        miss, located = _miss(case, trace_format.name, conditions, reason, display, record.ordinal)
        if miss is None:
            problems_all.extend(located)
        else:
            misses.append((miss, _at_span(display, record.ordinal, case.span_id or case.trace_id)))
    if problems_all:
        raise InputError(problems_all, what="trace export")
    stored = store_misses(store, display, misses, [])
    return TraceImportReport(stored, len(records), not_selected, without_case, tuple(skipped))


def _read(file: Path, display: str) -> bytes:
    if not file.is_file():
        raise UsageError(f"{display}: no such file")
    try:
        return file.read_bytes()
    except OSError as exc:
        raise UsageError(f"{display}: cannot read: {exc.strerror}") from exc


def _at_span(path: str, ordinal: int, span: str) -> Locate:
    return lambda field, message: SpanProblem(path, ordinal, field, message, span)


def default_reason(fmt: str, conditions: Sequence[Condition]) -> str:
    """Why a miss was imported, unless `--reason` says: the `--where` that selected it."""
    if conditions:
        return "selected by " + ", ".join(map(str, conditions))
    return f"imported from a {fmt} trace export"


def _miss(
    case: FoundCase,
    fmt: str,
    conditions: Sequence[Condition],
    reason: str | None,
    path: str,
    ordinal: int,
) -> tuple[ProductionMiss | None, list[SpanProblem]]:
    data = {
        "trace_id": case.trace_id,
        "question": case.question,
        "sources": [
            {"id": doc.id, "text": doc.text, **({"title": doc.title} if doc.title is not None else {})}
            for doc in case.documents
        ],
        "answer": case.answer,
        "citations": [
            {"source_id": c.source_id, **({"quote": c.quote} if c.quote is not None else {})} for c in case.citations
        ],
        "reason": reason if reason is not None else default_reason(fmt, conditions),
        "reported_at": case.time,
        "reporter": case.service or f"{fmt} trace export",
        "provenance": {
            "origin": fmt,
            "trace_id": case.trace_id,
            "span_id": case.span_id,
            "service": case.service,
            "time": case.time,
        },
    }
    try:
        return ProductionMiss.model_validate(data), []
    except ValidationError as exc:
        span = case.span_id or case.trace_id
        return None, [
            SpanProblem(path, ordinal, p.field, p.message, span) for p in problems_from_validation(exc, path, ordinal)
        ]
