"""OTLP JSON as OpenTelemetry writes it: `{"resourceSpans": [{"resource", "scopeSpans": [{"spans"}]}]}`.

Read as the collector's file exporter and the OTLP/HTTP JSON encoding write it (one request object,
or one per line), and as protobuf's `json_format` writes an `ExportTraceServiceRequest`: camelCase or
the proto's snake_case keys, ids as hex (the OTLP/JSON rule) or base64 (protobuf's JSON for bytes),
64-bit integers as strings or numbers, attribute values as `AnyValue` objects.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from qaeval_tui.core.curation.traces.model import Condition, FoundCase, Span, SpanEvent, Value, iso_from_nanos
from qaeval_tui.core.errors import InputError, Problem, SpanProblem
from qaeval_tui.core.golden.loader import iter_lines
from qaeval_tui.core.jsonl import json_problem, loads

_HEX = re.compile(r"[0-9a-fA-F]+")
_LATEST_NANOS = 253_402_300_799 * 10**9  # 9999-12-31T23:59:59Z: later is no time datetime can show


def _get(obj: Mapping[str, Any], camel: str, snake: str) -> Any:
    return obj[camel] if camel in obj else obj.get(snake)


def read_requests(data: bytes, path: str) -> list[dict[str, Any]]:
    """The export requests in a file: one JSON object, or one per line. Raises InputError when unreadable."""
    if data.startswith(b"\xef\xbb\xbf"):
        raise InputError([Problem(path, 1, "(file)", "starts with a UTF-8 byte order mark; save without BOM")])
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError([Problem(path, line, "(line)", f"invalid UTF-8 at byte {exc.start}")]) from None
    try:
        whole = loads(text)
    except json.JSONDecodeError:
        whole = None
    if isinstance(whole, dict):
        return [whole]
    if isinstance(whole, list):  # an array of requests
        if all(isinstance(item, dict) for item in whole):
            return whole
        raise InputError([Problem(path, 1, "(file)", "an array of export requests holds something that is no object")])
    requests: list[dict[str, Any]] = []
    problems: list[Problem] = []
    for number, raw in iter_lines(data.split(b"\n")):
        try:
            obj = loads(raw)
        except json.JSONDecodeError as exc:
            problems.append(json_problem(exc, path, number))
            continue
        if not isinstance(obj, dict):
            problems.append(Problem(path, number, "(line)", "each line must be a JSON object (an export request)"))
            continue
        requests.append(obj)
    if problems:
        raise InputError(problems, what="trace export")
    return requests


def any_value(value: Any) -> Value:
    """OTLP's AnyValue as a plain value (kvlist as a dict, bytes as base64 text, empty as None)."""
    if not isinstance(value, dict):
        return None
    for camel, snake in (("stringValue", "string_value"), ("boolValue", "bool_value")):
        found = _get(value, camel, snake)
        if found is not None:
            return found if isinstance(found, str | bool) else None
    found = _get(value, "intValue", "int_value")
    if found is not None:
        try:
            return int(found)
        except (TypeError, ValueError, OverflowError):
            return None
    found = _get(value, "doubleValue", "double_value")
    if found is not None:
        return float(found) if isinstance(found, int | float) and not isinstance(found, bool) else None
    found = _get(value, "arrayValue", "array_value")
    if isinstance(found, dict):
        values = found.get("values")
        return [any_value(item) for item in values] if isinstance(values, list) else []
    found = _get(value, "kvlistValue", "kvlist_value")
    if isinstance(found, dict):
        return key_values(found.get("values"))
    found = _get(value, "bytesValue", "bytes_value")
    return found if isinstance(found, str) else None


def key_values(items: Any) -> dict[str, Value]:
    """A list of OTLP KeyValue as a dict (a later repeat of a key wins, as in the SDK)."""
    out: dict[str, Value] = {}
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and isinstance(item.get("key"), str):
            out[item["key"]] = any_value(item.get("value"))
    return out


def _hex_id(value: Any, size: int) -> str | None:
    """An id as lowercase hex: given as hex (2*size digits) or base64 of `size` bytes; None if neither or zero."""
    if not isinstance(value, str) or not value:
        return None
    if len(value) == 2 * size and _HEX.fullmatch(value):
        text = value.lower()
    else:
        try:
            raw = base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            return None
        if len(raw) != size:
            return None
        text = raw.hex()
    return None if text == "0" * (2 * size) else text


def read_spans(data: bytes, path: str) -> tuple[list[Span], list[SpanProblem]]:
    """Every span of an OTLP JSON file, and every span that cannot be read (located by id or position)."""
    return request_spans(read_requests(data, path), path)


def request_spans(requests: list[dict[str, Any]], path: str) -> tuple[list[Span], list[SpanProblem]]:
    """Every span of some export requests, and every span that cannot be read."""
    spans: list[Span] = []
    problems: list[SpanProblem] = []
    ordinal = 0
    for request in requests:
        for resource_spans in _list(_get(request, "resourceSpans", "resource_spans")):
            raw_resource = resource_spans.get("resource")
            resource = key_values(raw_resource.get("attributes") if isinstance(raw_resource, dict) else None)
            for scope_spans in _list(_get(resource_spans, "scopeSpans", "scope_spans")):
                for raw in _list(scope_spans.get("spans")):
                    ordinal += 1
                    span = _span(raw, resource, ordinal, path, problems)
                    if span is not None:
                        spans.append(span)
    return spans, problems


def _list(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, list):
        yield from (item for item in value if isinstance(item, dict))


def _span(
    raw: dict[str, Any], resource: dict[str, Value], ordinal: int, path: str, problems: list[SpanProblem]
) -> Span | None:
    span_id = _hex_id(_get(raw, "spanId", "span_id"), 8)
    where = span_id or f"span #{ordinal}"
    trace_id = _hex_id(_get(raw, "traceId", "trace_id"), 16)
    start = _get(raw, "startTimeUnixNano", "start_time_unix_nano")
    bad = []
    if span_id is None:
        bad.append(("spanId", "missing or not 8 bytes of hex or base64"))
    if trace_id is None:
        bad.append(("traceId", "missing or not 16 bytes of hex or base64"))
    try:
        nanos = int(start) if isinstance(start, str | int) and not isinstance(start, bool) else -1
        if nanos < 0 or nanos > _LATEST_NANOS:
            raise ValueError(start)
    except (TypeError, ValueError):
        bad.append(("startTimeUnixNano", "missing or not a whole number of nanoseconds"))
        nanos = 0
    if bad or span_id is None or trace_id is None:
        problems.extend(SpanProblem(path, ordinal, name, message, where) for name, message in bad)
        return None
    parent = _hex_id(_get(raw, "parentSpanId", "parent_span_id"), 8)
    events = tuple(
        SpanEvent(str(event.get("name") or ""), key_values(event.get("attributes")))
        for event in _list(raw.get("events"))
    )
    return Span(
        trace_id=trace_id,
        span_id=span_id,
        parent_id=parent,
        name=str(raw.get("name") or ""),
        start=iso_from_nanos(nanos),
        attributes=key_values(raw.get("attributes")),
        events=events,
        resource=resource,
        ordinal=ordinal,
    )


Extractor = Callable[["OtlpTrace", str], FoundCase | None]


@dataclass
class OtlpTrace:
    """The spans of one trace, and the conventions (GenAI or OpenInference) its case is read by."""

    spans: list[Span]
    extractor: Extractor

    @property
    def trace_id(self) -> str:
        return self.spans[0].trace_id

    @property
    def ordinal(self) -> int:
        return self.spans[0].ordinal

    def matches(self, condition: Condition) -> bool:
        """KEY is a span attribute, a span event's attribute, or a resource attribute of any span of the trace."""
        key = condition.key
        for span in self.spans:
            for attributes in (span.attributes, span.resource, *(event.attributes for event in span.events)):
                if key in attributes and condition.accepts(attributes[key]):
                    return True
        return False

    def extract(self, path: str) -> FoundCase | None:
        return self.extractor(self, path)

    def depth(self, span: Span) -> int:
        """How many ancestors of `span` are in the trace (a root has none)."""
        by_id = self.by_id()
        depth, seen, parent = 0, {span.span_id}, span.parent_id
        while parent is not None and parent in by_id and parent not in seen:
            seen.add(parent)
            depth += 1
            parent = by_id[parent].parent_id
        return depth

    def by_id(self) -> dict[str, Span]:
        return {span.span_id: span for span in self.spans}

    def topmost(self, candidates: list[Span]) -> Span | None:
        """The candidate nearest the root (the first to start among equals): the case the user saw."""
        if not candidates:
            return None
        return min(candidates, key=lambda span: (self.depth(span), span.start, span.ordinal))


def group_traces(spans: list[Span], extractor: Extractor) -> list[OtlpTrace]:
    """Spans grouped by trace id, in the order each trace first appears in the file."""
    traces: dict[str, list[Span]] = {}
    for span in spans:
        traces.setdefault(span.trace_id, []).append(span)
    return [OtlpTrace(group, extractor) for group in traces.values()]
