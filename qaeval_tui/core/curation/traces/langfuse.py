"""Langfuse's trace export: traces with their observations and scores, as its public API returns them.

Each trace is a `TraceWithFullDetails` (`GET /api/public/traces/{id}`: id, timestamp, name, input,
output, metadata, tags, userId, sessionId, release, version, environment, `observations` as objects,
`scores`). A file holds one such object, a JSON array of them, a `{"data": [...]}` page, or one per
line. A list page whose observations are only ids cannot be imported (no content): fetch each trace.

The question-answering observation is the one nearest the root (by `parentObservationId`) with an
input and an output, other than a retriever; else the trace's own input and output. The question is
its input (text, a `question`/`query`/`input` key, or the last user message), the answer its output
(text, an `answer`/`output`/`content` key, or the first message); `citations` in the output object or
its metadata are the citations. Retrieved documents come from RETRIEVER observations (or one whose
name contains "retriev"): their output as a list of documents or `{"documents": [...]}`, each with
`id` (or `metadata.id`), `content`/`text`/`page_content` and an optional title.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from qaeval_tui.core.curation.traces.conventions import add_document
from qaeval_tui.core.curation.traces.model import (
    Citation,
    Condition,
    Document,
    FoundCase,
    Incomplete,
    Value,
    citations_from,
    first_reply_text,
    json_value,
    last_user_text,
    message_text,
)
from qaeval_tui.core.curation.traces.otlp import read_requests
from qaeval_tui.core.errors import InputError, Problem, SpanProblem

_QUESTION_KEYS = ("question", "query", "input", "user_input", "prompt")
_ANSWER_KEYS = ("answer", "output", "response", "result", "text", "content")
_TRACE_FIELDS = ("name", "userId", "sessionId", "release", "version", "environment", "tags")


def read_langfuse(data: bytes, path: str) -> list[LangfuseTrace]:
    """Every trace of a Langfuse export. Raises InputError when the file is not one."""
    objects: list[Any] = []
    for document in read_requests(data, path):
        if isinstance(document.get("data"), list):
            objects.extend(document["data"])
        else:
            objects.append(document)
    traces: list[LangfuseTrace] = []
    problems: list[Problem] = []
    for ordinal, obj in enumerate(objects, start=1):
        where = str(obj["id"]) if isinstance(obj, dict) and isinstance(obj.get("id"), str) else f"trace #{ordinal}"
        if not isinstance(obj, dict) or not isinstance(obj.get("id"), str) or not obj["id"]:
            problems.append(SpanProblem(path, ordinal, "id", "a trace needs an id", where))
            continue
        observations = obj.get("observations", [])
        if not isinstance(observations, list) or not all(isinstance(o, dict) for o in observations):
            message = "must be a list of observation objects (a trace list holds only ids: export each trace)"
            problems.append(SpanProblem(path, ordinal, "observations", message, where))
            continue
        if not isinstance(obj.get("timestamp"), str):
            problems.append(SpanProblem(path, ordinal, "timestamp", "missing or not text", where))
            continue
        traces.append(LangfuseTrace(obj, ordinal))
    if problems:
        raise InputError(problems, what="trace export")
    return traces


def _path(mapping: Any, key: str) -> tuple[bool, Value]:
    """KEY in a metadata object: the key as written, else a dotted path into nested objects."""
    if not isinstance(mapping, dict):
        return False, None
    if key in mapping:
        return True, mapping[key]
    head, dot, rest = key.partition(".")
    while dot and head not in mapping:
        more, dot, rest = rest.partition(".")
        head = f"{head}.{more}"
    if dot and head in mapping:
        return _path(mapping[head], rest)
    return False, None


@dataclass
class LangfuseTrace:
    raw: dict[str, Any]
    ordinal: int

    @property
    def trace_id(self) -> str:
        return str(self.raw["id"])

    @property
    def observations(self) -> list[dict[str, Any]]:
        return list(self.raw.get("observations") or [])

    def matches(self, condition: Condition) -> bool:
        """KEY is a trace field (name, userId, sessionId, release, version, environment, tags), a key of
        the trace's or any observation's metadata (dotted for nested objects), or a score's name."""
        key = condition.key
        if key in _TRACE_FIELDS and key in self.raw and condition.accepts(self.raw[key]):
            return True
        for metadata in (self.raw.get("metadata"), *(o.get("metadata") for o in self.observations)):
            found, value = _path(metadata, key)
            if found and condition.accepts(value):
                return True
        for score in self.raw.get("scores") or []:
            if isinstance(score, dict) and score.get("name") == key:
                values = [score.get("value"), score.get("stringValue")]
                if any(value is not None and condition.accepts(value) for value in values):
                    return True
        return False

    def _depth(self, observation: Mapping[str, Any]) -> int:
        by_id = {o["id"]: o for o in self.observations if isinstance(o.get("id"), str)}
        depth, seen, parent = 0, set(), observation.get("parentObservationId")
        while isinstance(parent, str) and parent in by_id and parent not in seen:
            seen.add(parent)
            depth += 1
            parent = by_id[parent].get("parentObservationId")
        return depth

    def extract(self, path: str) -> FoundCase | None:
        observations = self.observations
        retrievers = [o for o in observations if _is_retriever(o)]
        answering = [
            o
            for o in observations
            if not _is_retriever(o)
            and o.get("type") not in ("EVENT", "EMBEDDING")
            and o.get("input") is not None
            and o.get("output") is not None
        ]
        problems: list[SpanProblem] = []
        if answering:
            chosen = min(answering, key=lambda o: (self._depth(o), str(o.get("startTime")), observations.index(o)))
            where, span_id, source = str(chosen.get("id") or self.trace_id), chosen.get("id"), chosen
            time = chosen.get("startTime") if isinstance(chosen.get("startTime"), str) else self.raw["timestamp"]
        elif self.raw.get("input") is not None and self.raw.get("output") is not None:
            where, span_id, source, time = self.trace_id, None, self.raw, self.raw["timestamp"]
        else:
            return None
        question = _text(source.get("input"), _QUESTION_KEYS, last_user_text)
        answer = _text(source.get("output"), _ANSWER_KEYS, first_reply_text)
        if question is None or not question.strip():
            problems.append(SpanProblem(path, self.ordinal, "input", "no question in the input", where))
        if answer is None:
            problems.append(SpanProblem(path, self.ordinal, "output", "no answer in the output", where))
        documents: dict[str, Document] = {}
        for retriever in retrievers:
            rid = str(retriever.get("id") or self.trace_id)
            for index, raw in enumerate(_retrieved(retriever.get("output"))):
                error = add_document(documents, raw) if isinstance(raw, dict) else ("", "must be an object")
                if error is not None:
                    field = f"output.documents[{index}]" + (f".{error[0]}" if error[0] else "")
                    problems.append(SpanProblem(path, self.ordinal, field, error[1], rid))
        if not documents and not problems:
            message = "no retrieved documents: no RETRIEVER observation with documents in its output"
            problems.append(SpanProblem(path, self.ordinal, "observations", message, where))
        citations = self._citations(source, path, where, problems)
        if problems:
            raise Incomplete(problems)
        return FoundCase(
            trace_id=self.trace_id,
            span_id=str(span_id) if span_id is not None else None,
            service=self._service(),
            time=str(time),
            question=question or "",
            answer=answer or "",
            documents=tuple(documents.values()),
            citations=tuple(citations),
        )

    def _citations(
        self, source: Mapping[str, Any], path: str, where: str, problems: list[SpanProblem]
    ) -> list[Citation]:
        output = json_value(source.get("output"))
        for holder, name in ((output, "output.citations"), (source.get("metadata"), "metadata.citations")):
            if isinstance(holder, dict) and "citations" in holder:
                citations, error = citations_from(holder["citations"])
                if error is not None:
                    problems.append(SpanProblem(path, self.ordinal, name, error, where))
                return citations
        return []

    def _service(self) -> str | None:
        found, value = _path(self.raw.get("metadata"), "resourceAttributes")
        if found and isinstance(value, dict) and isinstance(value.get("service.name"), str):
            return str(value["service.name"])
        return None


def _is_retriever(observation: Mapping[str, Any]) -> bool:
    return observation.get("type") == "RETRIEVER" or "retriev" in str(observation.get("name") or "").casefold()


def _retrieved(output: Any) -> list[Any]:
    output = json_value(output)
    if isinstance(output, dict) and isinstance(output.get("documents"), list):
        return list(output["documents"])
    return list(output) if isinstance(output, list) else []


def _text(raw: Any, keys: tuple[str, ...], pick: Any) -> str | None:
    value = json_value(raw)
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        for key in keys:
            if isinstance(value.get(key), str):
                return str(value[key])
        if "messages" in value:
            found: str | None = pick(value["messages"])
            return found
        return message_text(value)
    if isinstance(value, list):
        found = pick(value)
        return found
    return None
