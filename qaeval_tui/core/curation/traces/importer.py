"""`qaeval inbox import --format FORMAT`: production misses from trace exports, all or nothing.

Each trace format is one `TraceFormat` in `TRACE_FORMATS` (a reader from bytes to trace records);
adding a format is one declaration here and a reader module beside it. The import keeps the
inbox's rules (DESIGN §3.6): strict, every problem listed as `file:span-id: field: message`, nothing
stored while any exists, idempotent by trace id.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from qaeval_tui.core.curation.inbox import ImportReport, Locate, ProductionMiss, import_misses, store_misses
from qaeval_tui.core.curation.traces.conventions import genai_case, openinference_case
from qaeval_tui.core.curation.traces.langfuse import read_langfuse
from qaeval_tui.core.curation.traces.model import Condition, FoundCase, Incomplete, TraceRecord
from qaeval_tui.core.curation.traces.otlp import Extractor, group_traces, read_spans
from qaeval_tui.core.errors import InputError, Problem, SpanProblem, UsageError
from qaeval_tui.core.golden.loader import problems_from_validation
from qaeval_tui.core.jsonl import loads
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


@dataclass(frozen=True)
class Selection:
    """How to turn traces into misses: the format, `--where`, `--skip-incomplete`, `--reason`."""

    fmt: str
    conditions: tuple[Condition, ...] = ()
    skip_incomplete: bool = False
    reason: str | None = None


@dataclass
class Chosen:
    """The misses found in some traces, the problems that stop them, and what was left out."""

    misses: list[tuple[ProductionMiss, Locate]]
    problems: list[Problem]
    traces: int = 0
    not_selected: int = 0
    without_case: int = 0
    skipped: list[str] = field(default_factory=list)


def choose_misses(records: Sequence[TraceRecord], selection: Selection, display: str) -> Chosen:
    """The production misses of the traces `selection` picks; problems located in `display`.

    A trace selected by `--where` that has no question-answering span is a problem; without
    `--where`, such traces (health checks, background jobs) are only counted.
    """
    conditions = selection.conditions
    chosen = Chosen([], [], len(records))
    seen: set[str] = set()
    for record in records:
        if not all(record.matches(condition) for condition in conditions):
            chosen.not_selected += 1
            continue
        if record.trace_id in seen:
            message = f"trace {record.trace_id!r} appears twice in the file"
            chosen.problems.append(SpanProblem(display, record.ordinal, "id", message, record.trace_id))
            continue
        seen.add(record.trace_id)
        try:
            case = record.extract(display)
        except Incomplete as gap:
            if selection.skip_incomplete:
                chosen.skipped.append(record.trace_id)
            else:
                chosen.problems.extend(gap.problems)
            continue
        if case is None:
            if conditions:
                message = "selected by --where, but no span records a question and an answer"
                chosen.problems.append(SpanProblem(display, record.ordinal, "(trace)", message, record.trace_id))
            else:
                chosen.without_case += 1
            continue
        miss, located = _miss(case, selection.fmt, conditions, selection.reason, display, record.ordinal)
        if miss is None:
            chosen.problems.extend(located)
        else:
            chosen.misses.append((miss, _at_span(display, record.ordinal, case.span_id or case.trace_id)))
    return chosen


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
    """
    if fmt not in TRACE_FORMATS:
        raise UsageError(f"--format: must be one of {', '.join(TRACE_FORMATS)}, not {fmt!r}")
    display = str(path)
    data = _read(Path(path), display)
    records, problems = TRACE_FORMATS[fmt].read(data, display)
    chosen = choose_misses(records, Selection(fmt, tuple(where), skip_incomplete, reason), display)
    if problems or chosen.problems:
        raise InputError([*problems, *chosen.problems], what="trace export")
    stored = store_misses(store, display, chosen.misses, [])
    return TraceImportReport(stored, chosen.traces, chosen.not_selected, chosen.without_case, tuple(chosen.skipped))


def detect_format(data: bytes) -> str:
    """Which format a file is, by its first JSON object: OTLP (`resourceSpans`; OpenInference when an
    `openinference.span.kind` attribute appears), Langfuse (a trace with `observations`, or a page
    of them), else production-miss lines (jsonl)."""
    first: object = None
    for raw in data.split(b"\n"):
        if raw.strip():
            try:
                first = loads(data) if raw.lstrip().startswith(b"[") else loads(raw)
            except ValueError:
                try:
                    first = loads(data)
                except ValueError:
                    return "jsonl"
            break
    if isinstance(first, list):
        first = first[0] if first else None
    if isinstance(first, dict) and ("resourceSpans" in first or "resource_spans" in first):
        return "openinference" if b"openinference.span.kind" in data else "otlp"
    if isinstance(first, dict) and ("observations" in first or isinstance(first.get("data"), list)):
        return "langfuse"
    return "jsonl"


def import_file(store: StoreBackend, path: str | Path) -> ImportReport:
    """Import production misses or a trace export, whichever the file is (`detect_format`), every
    trace with a question-answering span: what the curator app's import does."""
    data = _read(Path(path), str(path))
    fmt = detect_format(data)
    if fmt == "jsonl":
        return import_misses(store, path)
    return import_traces(store, path, fmt).stored


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
