"""Finding the question-answering case in a trace's spans, by the GenAI or the OpenInference conventions.

GenAI (`--format otlp`): the question-answering span is the one nearest the root that records chat
content: the newer `gen_ai.input.messages` / `gen_ai.output.messages` (attributes, or attributes of a
`gen_ai.client.inference.operation.details` event), or the older `gen_ai.prompt` / `gen_ai.completion`
(whole JSON or flattened `gen_ai.prompt.N.role|content`, as attributes or as `gen_ai.content.prompt` /
`gen_ai.content.completion` events), or `gen_ai.user.message` / `gen_ai.choice` events. The question is
the last user message; the answer the first output message.

OpenInference (`--format openinference`): the span nearest the root of kind CHAIN, AGENT or LLM with
`input.value` and `output.value` (JSON values are searched for a question and an answer key; an LLM
span's `llm.input_messages` / `llm.output_messages` serve when its values are not text).

Either way the retrieved documents are those of every retrieval span of the trace, in start order:
`gen_ai.retrieval.documents` (objects with id and content) and OpenInference RETRIEVER spans'
`retrieval.documents.N.document.{id, content, metadata}`; a document's title is its metadata's
`title`. Citations, which neither convention defines, are read from a `qaeval.citations` attribute on
any span (a list of source ids, or of {source_id, quote}, or its JSON).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from qaeval_tui.core.curation.traces.model import (
    Citation,
    Document,
    FoundCase,
    Incomplete,
    Span,
    Value,
    citations_from,
    first_reply_text,
    json_value,
    last_user_text,
    message_text,
)
from qaeval_tui.core.curation.traces.otlp import OtlpTrace
from qaeval_tui.core.errors import SpanProblem

CITATIONS_ATTRIBUTE = "qaeval.citations"
_FLAT = re.compile(r"^(gen_ai\.(?:prompt|completion)|llm\.(?:input|output)_messages)\.(\d{1,9})\.(.+)$")
_DOC = re.compile(r"^retrieval\.documents\.(\d{1,9})\.document\.(id|content|metadata)$")

# --- GenAI ----------------------------------------------------------------------------------------


def _flattened(attributes: Mapping[str, Value], prefix: str) -> list[Value]:
    """`prefix.N.key` attributes as a list of messages, N in order (OpenLLMetry and OpenInference flatten so)."""
    rows: dict[int, dict[str, Value]] = {}
    for key, value in attributes.items():
        match = _FLAT.match(key)
        if match and match.group(1) == prefix:
            rest = match.group(3).removeprefix("message.")
            rows.setdefault(int(match.group(2)), {})[rest] = value
    return [rows[index] for index in sorted(rows)]


def _genai_sources(span: Span) -> list[Mapping[str, Value]]:
    """Where GenAI content may sit on a span: its attributes, then its events' attributes."""
    return [span.attributes, *(event.attributes for event in span.events)]


def _genai_question(span: Span) -> str | None:
    for attributes in _genai_sources(span):
        if "gen_ai.input.messages" in attributes:
            found = last_user_text(json_value(attributes["gen_ai.input.messages"]))
            if found is not None:
                return found
    flat = _flattened(span.attributes, "gen_ai.prompt")
    if flat:
        return last_user_text(flat)
    for attributes in _genai_sources(span):
        if "gen_ai.prompt" in attributes:
            prompt = json_value(attributes["gen_ai.prompt"])
            return prompt if isinstance(prompt, str) else last_user_text(prompt)
    users = [event for event in span.events if event.name == "gen_ai.user.message"]
    if users:
        return message_text(dict(users[-1].attributes))
    return None


def _genai_answer(span: Span) -> str | None:
    for attributes in _genai_sources(span):
        if "gen_ai.output.messages" in attributes:
            found = first_reply_text(json_value(attributes["gen_ai.output.messages"]))
            if found is not None:
                return found
    flat = _flattened(span.attributes, "gen_ai.completion")
    if flat:
        return first_reply_text(flat)
    for attributes in _genai_sources(span):
        if "gen_ai.completion" in attributes:
            completion = json_value(attributes["gen_ai.completion"])
            return completion if isinstance(completion, str) else first_reply_text(completion)
    choices = [event for event in span.events if event.name == "gen_ai.choice"]
    if choices:
        message = choices[0].attributes.get("message")
        return message_text(json_value(message)) if message is not None else message_text(dict(choices[0].attributes))
    return None


_GENAI_EVENTS = {
    "gen_ai.content.prompt",
    "gen_ai.content.completion",
    "gen_ai.user.message",
    "gen_ai.choice",
    "gen_ai.client.inference.operation.details",
}


def _is_genai_chat(span: Span) -> bool:
    if any(event.name in _GENAI_EVENTS for event in span.events):
        return True
    return any(
        key in ("gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.prompt", "gen_ai.completion")
        or key.startswith(("gen_ai.prompt.", "gen_ai.completion."))
        for key in span.attributes
    )


def genai_case(trace: OtlpTrace, path: str) -> FoundCase | None:
    """The trace's case by the GenAI conventions; None when no span records chat content."""
    span = trace.topmost([span for span in trace.spans if _is_genai_chat(span)])
    if span is None:
        return None
    return _case(trace, span, path, _genai_question(span), _genai_answer(span), "gen_ai.input.messages")


# --- OpenInference --------------------------------------------------------------------------------

_QUESTION_KEYS = ("question", "query", "input", "user_input", "message", "prompt")
_ANSWER_KEYS = ("answer", "output", "response", "result", "text", "content")


def _value_text(raw: Value, keys: tuple[str, ...], pick: Callable[[Value], str | None]) -> str | None:
    value = json_value(raw)
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        for key in keys:
            if isinstance(value.get(key), str):
                return str(value[key])
        if "messages" in value:
            return pick(value["messages"])
    if isinstance(value, list):
        return pick(value)
    return None


def _oi_question(span: Span) -> str | None:
    found = _value_text(span.attributes.get("input.value"), _QUESTION_KEYS, last_user_text)
    if found is None:
        found = last_user_text(_flattened(span.attributes, "llm.input_messages"))
    return found


def _oi_answer(span: Span) -> str | None:
    found = _value_text(span.attributes.get("output.value"), _ANSWER_KEYS, first_reply_text)
    if found is None:
        found = first_reply_text(_flattened(span.attributes, "llm.output_messages"))
    return found


def _oi_kind(span: Span) -> str:
    kind = span.attributes.get("openinference.span.kind")
    return kind.upper() if isinstance(kind, str) else ""


def openinference_case(trace: OtlpTrace, path: str) -> FoundCase | None:
    """The trace's case by the OpenInference conventions; None when it has no CHAIN, AGENT or LLM span
    with an input and an output."""
    answering = [
        span
        for span in trace.spans
        if _oi_kind(span) in ("CHAIN", "AGENT", "LLM")
        and ("input.value" in span.attributes or "llm.input_messages.0.message.role" in span.attributes)
        and ("output.value" in span.attributes or "llm.output_messages.0.message.role" in span.attributes)
    ]
    span = trace.topmost(answering)
    if span is None:
        return None
    return _case(trace, span, path, _oi_question(span), _oi_answer(span), "input.value")


# --- shared ---------------------------------------------------------------------------------------


def _case(
    trace: OtlpTrace, span: Span, path: str, question: str | None, answer: str | None, question_field: str
) -> FoundCase:
    problems: list[SpanProblem] = []

    def gap(at: Span, name: str, message: str) -> None:
        problems.append(SpanProblem(path, at.ordinal, name, message, at.span_id))

    if question is None or not question.strip():
        gap(span, question_field, "no question: the span records no user message (or an empty one)")
    if answer is None:
        gap(span, "output", "no answer: the span records no output message")
    documents = _documents(trace, path, problems)
    if not documents and not problems:
        gap(span, "retrieval.documents", "no retrieved documents anywhere in the trace (a miss needs the sources)")
    citations: list[Citation] = []
    for other in sorted(trace.spans, key=lambda s: s.ordinal):
        if CITATIONS_ATTRIBUTE in other.attributes:
            citations, error = citations_from(other.attributes[CITATIONS_ATTRIBUTE])
            if error is not None:
                gap(other, CITATIONS_ATTRIBUTE, error)
            break
    if problems:
        raise Incomplete(problems)
    return FoundCase(
        trace_id=trace.trace_id,
        span_id=span.span_id,
        service=span.service,
        time=span.start,
        question=question or "",
        answer=answer or "",
        documents=tuple(documents),
        citations=tuple(citations),
    )


def _documents(trace: OtlpTrace, path: str, problems: list[SpanProblem]) -> list[Document]:
    documents: dict[str, Document] = {}
    for span in sorted(trace.spans, key=lambda s: (s.start, s.ordinal)):
        for name, raw in _span_documents(span):
            error = add_document(documents, raw)
            if error is not None:
                problems.append(SpanProblem(path, span.ordinal, f"{name}.{error[0]}", error[1], span.span_id))
    return list(documents.values())


def _span_documents(span: Span) -> list[tuple[str, dict[str, Value]]]:
    """(field name, document) for every retrieved document a span records, in either convention."""
    found: list[tuple[str, dict[str, Value]]] = []
    for attributes in _genai_sources(span):
        value = json_value(attributes.get("gen_ai.retrieval.documents"))
        if isinstance(value, list):
            for index, item in enumerate(value):
                document = item if isinstance(item, dict) else {}
                found.append((f"gen_ai.retrieval.documents[{index}]", document))
    rows: dict[int, dict[str, Value]] = {}
    for key, value in span.attributes.items():
        match = _DOC.match(key)
        if match:
            rows.setdefault(int(match.group(1)), {})[match.group(2)] = value
    for index in sorted(rows):
        found.append((f"retrieval.documents.{index}.document", rows[index]))
    return found


def add_document(documents: dict[str, Document], raw: Mapping[str, Value]) -> tuple[str, str] | None:
    """Add one retrieved document; (field, why) it cannot be a source, if it cannot."""
    metadata = json_value(raw.get("metadata"))
    doc_id = raw.get("id", metadata.get("id") if isinstance(metadata, dict) else None)
    if isinstance(doc_id, int) and not isinstance(doc_id, bool):
        doc_id = str(doc_id)
    if not isinstance(doc_id, str) or not doc_id.strip():
        return "id", "missing or empty (a source needs an id)"
    text = next((raw[key] for key in ("content", "text", "page_content") if key in raw), None)
    text = message_text(text) if isinstance(text, list | dict) else text
    if not isinstance(text, str):
        return "content", f"document {doc_id!r} has no text (record the document content to import the trace)"
    title = metadata.get("title") if isinstance(metadata, dict) else None
    title = raw.get("title", title)
    document = Document(doc_id, text, title if isinstance(title, str) else None)
    earlier = documents.get(doc_id)
    if earlier is not None and earlier.text != document.text:
        return "content", f"document {doc_id!r} was retrieved twice with different text"
    documents.setdefault(doc_id, document)
    return None
