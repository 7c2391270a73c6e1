"""Trace exports made by the real libraries: the OpenTelemetry SDK records the spans, its OTLP encoder
turns them into an `ExportTraceServiceRequest`, and protobuf's json_format writes the JSON; attribute
names come from the OpenTelemetry semantic-conventions and OpenInference packages. Langfuse's
export is written from its documented API schema (`TraceWithFullDetails`), which runs no code here.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from google.protobuf import json_format
from openinference.semconv.trace import (
    DocumentAttributes,
    OpenInferenceSpanKindValues,
    SpanAttributes,
)
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.id_generator import IdGenerator
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai
from opentelemetry.trace import Tracer

T0 = 1_790_000_000_000_000_000  # 2026-09-21T14:13:20Z, in nanoseconds
QUESTION = "Can I install the HB-10 in our bedroom?"
ANSWER = "Yes. The enclosure is rated IP65, so it may be installed indoors, including a bedroom."
DOCS = [
    ("s1", "HB-10 Manual §2.3", "The enclosure is rated IP65, so the unit may be installed indoors or outdoors."),
    ("s2", "HB-10 Installation §4.2", "Do not install the unit in sleeping areas or in direct sunlight."),
]


class SeededIds(IdGenerator):
    """Repeatable trace and span ids, so a fixture is the same bytes every run."""

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def generate_span_id(self) -> int:
        return self._random.getrandbits(64) or 1

    def generate_trace_id(self) -> int:
        return self._random.getrandbits(128) or 1


class Recorder:
    """A tracer whose finished spans stay in memory, with a clock the test sets."""

    def __init__(self, service: str = "support-bot", seed: int = 7, *, sender: SpanExporter | None = None) -> None:
        self.exporter = InMemorySpanExporter()
        provider = TracerProvider(resource=Resource.create({"service.name": service}), id_generator=SeededIds(seed))
        provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        if sender is not None:  # also send each span as it ends, as a live system's exporter does
            provider.add_span_processor(SimpleSpanProcessor(sender))
        self.provider = provider
        self.tracer: Tracer = provider.get_tracer("qaeval.tests")
        self.clock = T0

    @contextmanager
    def span(self, name: str, attributes: dict[str, Any] | None = None) -> Iterator[Any]:
        self.clock += 1_000_000
        with self.tracer.start_as_current_span(
            name, attributes=attributes or {}, start_time=self.clock, end_on_exit=False
        ) as span:
            yield span
            self.clock += 1_000_000
            span.end(end_time=self.clock)

    def spans(self) -> tuple[ReadableSpan, ...]:
        return self.exporter.get_finished_spans()


def otlp_json(spans: tuple[ReadableSpan, ...], *, hex_ids: bool = False) -> str:
    """The spans as OTLP JSON: protobuf's json_format (base64 ids), or with ids as hex as the
    OTLP/JSON encoding and the collector's file exporter write them."""
    document = json_format.MessageToDict(encode_spans(spans))
    if hex_ids:
        for resource_spans in document["resourceSpans"]:
            for scope_spans in resource_spans["scopeSpans"]:
                for span in scope_spans["spans"]:
                    for key in ("traceId", "spanId", "parentSpanId"):
                        if key in span:
                            span[key] = _b64_to_hex(span[key])
    return json.dumps(document)


def _b64_to_hex(value: str) -> str:
    import base64

    return base64.b64decode(value).hex()


def _docs_json(docs: list[tuple[str, str, str]]) -> str:
    return json.dumps([{"id": i, "score": 0.9, "content": text, "title": title} for i, title, text in docs])


def genai_trace(
    rec: Recorder,
    *,
    feedback: str | None = "negative",
    question: str = QUESTION,
    answer: str = ANSWER,
    docs: list[tuple[str, str, str]] | None = None,
    style: str = "messages",
    citations: list[Any] | None = None,
) -> str:
    """One request traced with the GenAI conventions; returns its trace id (hex).

    style: "messages" (gen_ai.input/output.messages attributes), "details" (the same on a
    gen_ai.client.inference.operation.details event), "flat" (older gen_ai.prompt.N /
    gen_ai.completion.N attributes), "events" (older gen_ai.content.prompt / completion events),
    "choice" (gen_ai.user.message / gen_ai.choice events).
    """
    root_attributes = {"http.route": "/ask"}
    if feedback is not None:
        root_attributes["user.feedback"] = feedback
    if citations is not None:
        root_attributes["qaeval.citations"] = json.dumps(citations)
    with rec.span("POST /ask", root_attributes) as root:
        with rec.span(
            "retrieval kb",
            {
                gen_ai.GEN_AI_OPERATION_NAME: "retrieval",
                gen_ai.GEN_AI_RETRIEVAL_QUERY_TEXT: question,
                gen_ai.GEN_AI_RETRIEVAL_DOCUMENTS: _docs_json(DOCS if docs is None else docs),
            },
        ):
            pass
        chat: dict[str, Any] = {gen_ai.GEN_AI_OPERATION_NAME: "chat", gen_ai.GEN_AI_PROVIDER_NAME: "openai"}
        system = {"role": "system", "content": "Answer from the sources."}
        inputs = json.dumps(
            [
                {"role": "system", "parts": [{"type": "text", "content": "Answer from the sources."}]},
                {"role": "user", "parts": [{"type": "text", "content": question}]},
            ]
        )
        outputs = json.dumps(
            [{"role": "assistant", "parts": [{"type": "text", "content": answer}], "finish_reason": "stop"}]
        )
        if style == "messages":
            chat[gen_ai.GEN_AI_INPUT_MESSAGES] = inputs
            chat[gen_ai.GEN_AI_OUTPUT_MESSAGES] = outputs
        elif style == "flat":
            chat |= {
                f"{gen_ai.GEN_AI_PROMPT}.0.role": "system",
                f"{gen_ai.GEN_AI_PROMPT}.0.content": system["content"],
                f"{gen_ai.GEN_AI_PROMPT}.1.role": "user",
                f"{gen_ai.GEN_AI_PROMPT}.1.content": question,
                f"{gen_ai.GEN_AI_COMPLETION}.0.role": "assistant",
                f"{gen_ai.GEN_AI_COMPLETION}.0.content": answer,
            }
        with rec.span("chat gpt-4.1", chat) as span:
            if style == "events":
                prompt = json.dumps([system, {"role": "user", "content": question}])
                span.add_event("gen_ai.content.prompt", {gen_ai.GEN_AI_PROMPT: prompt}, timestamp=rec.clock)
                span.add_event("gen_ai.content.completion", {gen_ai.GEN_AI_COMPLETION: answer}, timestamp=rec.clock)
            elif style == "details":  # the newer event form of the same attributes
                details = {gen_ai.GEN_AI_INPUT_MESSAGES: inputs, gen_ai.GEN_AI_OUTPUT_MESSAGES: outputs}
                span.add_event("gen_ai.client.inference.operation.details", details, timestamp=rec.clock)
            elif style == "choice":  # per-message events: gen_ai.user.message, gen_ai.choice
                span.add_event("gen_ai.user.message", {"content": question}, timestamp=rec.clock)
                span.add_event("gen_ai.choice", {"index": 0, "message": json.dumps({"content": answer})})
        return format(root.get_span_context().trace_id, "032x")


def health_check(rec: Recorder) -> str:
    """A trace with no question-answering span at all."""
    with rec.span("GET /health", {"http.route": "/health"}) as span:
        return format(span.get_span_context().trace_id, "032x")


def openinference_trace(
    rec: Recorder,
    *,
    feedback: str | None = "negative",
    question: str = QUESTION,
    answer: str = ANSWER,
    docs: list[tuple[str, str, str] | tuple[str, str, None]] | None = None,
    json_input: bool = False,
) -> str:
    """One request traced with OpenInference: a CHAIN root, a RETRIEVER child, an LLM child."""
    kind = SpanAttributes.OPENINFERENCE_SPAN_KIND
    root_attributes: dict[str, Any] = {
        kind: OpenInferenceSpanKindValues.CHAIN.value,
        SpanAttributes.INPUT_VALUE: json.dumps({"query": question}) if json_input else question,
        SpanAttributes.OUTPUT_VALUE: answer,
    }
    if json_input:
        root_attributes[SpanAttributes.INPUT_MIME_TYPE] = "application/json"
    if feedback is not None:
        root_attributes["user.feedback"] = feedback
    retriever: dict[str, Any] = {
        kind: OpenInferenceSpanKindValues.RETRIEVER.value,
        SpanAttributes.INPUT_VALUE: question,
    }
    for index, (doc_id, title, text) in enumerate(DOCS if docs is None else docs):
        prefix = f"{SpanAttributes.RETRIEVAL_DOCUMENTS}.{index}"
        retriever[f"{prefix}.{DocumentAttributes.DOCUMENT_ID}"] = doc_id
        if text is not None:
            retriever[f"{prefix}.{DocumentAttributes.DOCUMENT_CONTENT}"] = text
        retriever[f"{prefix}.{DocumentAttributes.DOCUMENT_METADATA}"] = json.dumps({"title": title})
    with rec.span("rag", root_attributes) as root:
        with rec.span("retrieve", retriever):
            pass
        llm = {
            kind: OpenInferenceSpanKindValues.LLM.value,
            SpanAttributes.INPUT_VALUE: f"Sources: ...\nQuestion: {question}",
            SpanAttributes.OUTPUT_VALUE: answer,
        }
        with rec.span("llm", llm):
            pass
        return format(root.get_span_context().trace_id, "032x")


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def langfuse_trace(
    trace_id: str,
    *,
    feedback: float | None = 0,
    question: str = QUESTION,
    answer: str = ANSWER,
    docs: list[dict[str, Any]] | None = None,
    citations: list[Any] | None = None,
) -> dict[str, Any]:
    """A trace as Langfuse's `GET /api/public/traces/{id}` returns it (TraceWithFullDetails)."""
    documents = (
        docs
        if docs is not None
        else [{"id": i, "content": text, "metadata": {"title": title}} for i, title, text in DOCS]
    )
    output: dict[str, Any] = {"answer": answer}
    if citations is not None:
        output["citations"] = citations
    scores = []
    if feedback is not None:
        scores.append(
            {"id": f"{trace_id}-score", "traceId": trace_id, "name": "user-feedback", "value": feedback,
             "dataType": "NUMERIC", "source": "API", "timestamp": "2026-09-21T14:14:00.000Z",
             "comment": "thumbs down"}
        )  # fmt: skip
    return {
        "id": trace_id,
        "timestamp": "2026-09-21T14:13:20.000Z",
        "name": "rag-answer",
        "input": {"question": question},
        "output": output,
        "userId": "u-17",
        "sessionId": "s-4",
        "release": "2026.09.1",
        "version": None,
        "metadata": {"resourceAttributes": {"service.name": "support-bot"}, "channel": "web"},
        "tags": ["production"],
        "public": False,
        "environment": "production",
        "htmlPath": f"/project/p1/traces/{trace_id}",
        "latency": 1.2,
        "totalCost": 0.0031,
        "observations": [
            {"id": f"{trace_id}-root", "traceId": trace_id, "type": "SPAN", "name": "rag-answer",
             "startTime": "2026-09-21T14:13:20.010Z", "endTime": "2026-09-21T14:13:21.100Z",
             "parentObservationId": None, "input": {"question": question}, "output": output,
             "metadata": {}, "level": "DEFAULT"},
            {"id": f"{trace_id}-ret", "traceId": trace_id, "type": "RETRIEVER", "name": "vector-search",
             "startTime": "2026-09-21T14:13:20.020Z", "endTime": "2026-09-21T14:13:20.200Z",
             "parentObservationId": f"{trace_id}-root", "input": question, "output": documents,
             "metadata": {}, "level": "DEFAULT"},
            {"id": f"{trace_id}-gen", "traceId": trace_id, "type": "GENERATION", "name": "chat",
             "startTime": "2026-09-21T14:13:20.300Z", "endTime": "2026-09-21T14:13:21.000Z",
             "parentObservationId": f"{trace_id}-root", "model": "gpt-4.1",
             "input": [{"role": "system", "content": "Sources: ..."}, {"role": "user", "content": question}],
             "output": {"role": "assistant", "content": answer}, "metadata": {}, "level": "DEFAULT"},
        ],
        "scores": scores,
    }  # fmt: skip


Build = Callable[[Recorder], str]
