"""What every trace format is read into: spans of a trace, the case found in them, and `--where`.

A reader turns its file into `TraceRecord`s; the importer asks each record whether it is selected
(`matches`) and for its question-answering case (`extract`). A case that lacks what a miss needs is
an `Incomplete` naming the span and the field, so the importer can list it or skip it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Protocol

from qaeval_tui.core.errors import SpanProblem, UsageError
from qaeval_tui.core.jsonl import loads

# A decoded attribute value: what OTLP's AnyValue or a JSON document can hold.
Value = str | int | float | bool | None | list["Value"] | dict[str, "Value"]


@dataclass(frozen=True)
class SpanEvent:
    name: str
    attributes: Mapping[str, Value]


@dataclass(frozen=True)
class Span:
    """One span of an OTLP export, ids as lowercase hex, times as ISO 8601 UTC."""

    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    start: str
    attributes: Mapping[str, Value]
    events: tuple[SpanEvent, ...]
    resource: Mapping[str, Value]
    ordinal: int  # position in the file, so problems come out in file order

    @property
    def service(self) -> str | None:
        name = self.resource.get("service.name")
        return name if isinstance(name, str) and name.strip() else None


@dataclass(frozen=True)
class Document:
    id: str
    text: str
    title: str | None = None


@dataclass(frozen=True)
class Citation:
    source_id: str
    quote: str | None = None


@dataclass(frozen=True)
class FoundCase:
    """The question-answering case of one trace, with where it was found."""

    trace_id: str
    span_id: str | None
    service: str | None
    time: str
    question: str
    answer: str
    documents: tuple[Document, ...]
    citations: tuple[Citation, ...] = ()


@dataclass
class Incomplete(Exception):
    """A trace whose question-answering span lacks what a miss needs (every gap, each located)."""

    problems: list[SpanProblem] = field(default_factory=list)


class TraceRecord(Protocol):
    """One trace of an export, whatever its format."""

    @property
    def trace_id(self) -> str: ...

    @property
    def ordinal(self) -> int: ...

    def matches(self, condition: Condition) -> bool:
        """Whether the trace carries KEY=VALUE where the format's `--where` rules look."""
        ...

    def extract(self, path: str) -> FoundCase | None:
        """The trace's question-answering case; None when it has no such span. Raises Incomplete."""
        ...


@dataclass(frozen=True)
class Condition:
    """One `--where KEY=VALUE`: every condition must hold for a trace to be imported."""

    key: str
    value: str

    def __str__(self) -> str:
        return f"{self.key}={self.value}"

    def accepts(self, found: Value) -> bool:
        """Whether an attribute's value is this condition's VALUE: text as written, true/false for a
        boolean, numbers by value (0 is 0.0), a list when any element is."""
        if isinstance(found, list):
            return any(self.accepts(item) for item in found)
        if isinstance(found, bool):
            return self.value.casefold() == ("true" if found else "false")
        if isinstance(found, int | float):
            try:
                wanted = float(self.value)
            except ValueError:
                return False
            return math.isfinite(wanted) and float(found) == wanted
        if isinstance(found, str):
            return found == self.value
        return False


def parse_conditions(specs: Iterable[str]) -> tuple[Condition, ...]:
    """`--where` options as typed. Raises UsageError for one without `=` or with an empty key."""
    conditions = []
    for spec in specs:
        key, sep, value = spec.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--where: {spec!r} is not KEY=VALUE (e.g. --where user.feedback=negative)")
        conditions.append(Condition(key.strip(), value))
    return tuple(conditions)


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def iso_from_nanos(nanos: int) -> str:
    """An OTLP timestamp (nanoseconds since the epoch) as ISO 8601 UTC, to the microsecond."""
    moment = _EPOCH + timedelta(microseconds=nanos // 1000)
    return moment.isoformat(timespec="microseconds").replace("+00:00", "Z")


def json_value(value: Value) -> Value:
    """A value that may be JSON text (attributes may hold structures as a JSON string) as the structure."""
    if isinstance(value, str) and value[:1] in ("[", "{"):
        try:
            parsed: Value = loads(value)
        except ValueError:  # not JSON after all (or refused: deep, non-finite): kept as text
            return value
        return parsed
    return value


def message_text(message: Value, depth: int = 0) -> str | None:
    """The text of one chat message in any of the shapes traces record it: GenAI `parts` (type
    text), `content` as text or as a list of parts, or plain text."""
    if isinstance(message, str):
        return message
    if not isinstance(message, dict) or depth > 8:
        return None
    parts = message.get("parts")
    if isinstance(parts, list):
        texts = [_part_text(part) for part in parts]
        joined = "".join(text for text in texts if text is not None)
        return joined if any(text is not None for text in texts) else None
    for key in ("content", "text", "message"):
        if key in message:
            content = message[key]
            if isinstance(content, str):
                return content
            if isinstance(content, list):
                texts = [_part_text(part) for part in content]
                return "".join(text for text in texts if text is not None)
            if isinstance(content, dict):
                return message_text(content, depth + 1)
    return None


def _part_text(part: Value) -> str | None:
    if isinstance(part, str):
        return part
    if isinstance(part, dict) and part.get("type", "text") == "text":
        for key in ("content", "text"):
            if isinstance(part.get(key), str):
                return str(part[key])
    return None


def last_user_text(messages: Value) -> str | None:
    """The last user message's text in a list of chat messages (the question being asked)."""
    if not isinstance(messages, list):
        return None
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            return message_text(message)
    return None


def first_reply_text(messages: Value) -> str | None:
    """The first output message's text (the answer; other choices are alternatives not shown)."""
    if isinstance(messages, list):
        return message_text(messages[0]) if messages else None
    return message_text(messages)


def citations_from(value: Value) -> tuple[list[Citation], str | None]:
    """Citations recorded as a list of source ids or of {source_id, quote}; or why they cannot be read."""
    value = json_value(value)
    if not isinstance(value, list):
        return [], "must be a list of source ids or of {source_id, quote} objects"
    citations = []
    for index, item in enumerate(value):
        if isinstance(item, str) and item:
            citations.append(Citation(item))
        elif isinstance(item, dict) and isinstance(item.get("source_id"), str) and item["source_id"]:
            quote = item.get("quote")
            if quote is not None and not isinstance(quote, str):
                return [], f"[{index}].quote: must be text"
            citations.append(Citation(str(item["source_id"]), quote))
        else:
            return [], f"[{index}]: must be a source id or an object with a source_id"
    return citations, None
