"""Trace exports shaped like the real thing but holding anything anywhere: each import stores its
misses or raises the project's own errors (every problem located in the file), never a traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qaeval_tui.core.curation.traces.importer import import_traces
from qaeval_tui.core.errors import InputError, QaevalError
from qaeval_tui.core.store.sqlite import Store

_scalar = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=6)
)
_any = st.recursive(
    _scalar,
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=4), kids, max_size=3),
    max_leaves=6,
)
_json_text = _any.map(json.dumps)


def _string_value(text: str) -> dict[str, str]:
    return {"stringValue": text}


_string_values = st.lists(st.builds(_string_value, st.text(max_size=4)), max_size=3)
_any_value = st.one_of(
    st.builds(lambda v: {"stringValue": v}, st.text(max_size=8) | _json_text),
    st.builds(lambda v: {"intValue": v}, st.integers() | st.text(max_size=4)),
    st.builds(lambda v: {"doubleValue": v}, _scalar),
    st.builds(lambda v: {"boolValue": v}, _scalar),
    st.builds(lambda v: {"arrayValue": {"values": v}}, _string_values | _any),
    st.builds(lambda v: {"kvlistValue": v}, _any),
    _any,
)  # fmt: skip
_keys = st.sampled_from(
    [
        "gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.prompt", "gen_ai.completion",
        "gen_ai.prompt.0.role", "gen_ai.prompt.0.content", "gen_ai.completion.0.content", "gen_ai.retrieval.documents",
        "openinference.span.kind", "input.value", "output.value", "retrieval.documents.0.document.id",
        "retrieval.documents.0.document.content", "retrieval.documents.1.document.metadata", "qaeval.citations",
        "user.feedback",
    ]
)  # fmt: skip
_attributes = st.lists(st.fixed_dictionaries({"key": _keys, "value": _any_value}), max_size=6) | _any
_ids = st.sampled_from(["5b8efff798038103d269b633813fc60c", "W47/95gDgQPSabYzgT/GDA==", "", "zz", None, 7])
_span_ids = st.sampled_from(["eee19b7ec3c1b174", "0b4c1e2f3a4d5e6f", "7uGbfsPBsXQ=", None, [], "x"])
_span = st.fixed_dictionaries(
    {
        "traceId": _ids, "spanId": _span_ids, "parentSpanId": _span_ids, "name": _scalar,
        "startTimeUnixNano": st.sampled_from(["1790000000000000000", 1790000000000000000, "-1", "9" * 30, None, 1.5]),
        "attributes": _attributes,
        "events": st.lists(st.fixed_dictionaries({"name": st.sampled_from(["gen_ai.choice", "gen_ai.user.message",
                                                  "gen_ai.content.prompt"]), "attributes": _attributes}), max_size=2)
        | _any,
    }
)  # fmt: skip
_otlp = st.builds(
    lambda spans, resource: {"resourceSpans": [{"resource": resource, "scopeSpans": [{"spans": spans}]}]},
    st.lists(_span, max_size=5),
    st.fixed_dictionaries({"attributes": _attributes}) | _any,
)
_observation = st.fixed_dictionaries(
    {
        "id": st.sampled_from(["o1", "o2", "o3", None, ["x"]]),
        "type": st.sampled_from(["SPAN", "RETRIEVER", "GENERATION", 3]),
        "parentObservationId": st.sampled_from(["o1", "o2", None, {"a": 1}]),
        "startTime": _scalar | st.just("2026-01-01T00:00:00Z"),
        "input": _any, "output": _any, "metadata": _any, "name": _scalar,
    }
)  # fmt: skip
_langfuse = st.lists(
    st.fixed_dictionaries(
        {
            "id": st.sampled_from(["lf-1", "lf-2", "bad id!", None]),
            "timestamp": st.sampled_from(["2026-01-01T00:00:00Z", "x", None]),
            "input": _any, "output": _any, "metadata": _any, "tags": _any,
            "observations": st.lists(_observation, max_size=4) | _any, "scores": _any,
        }
    ),
    max_size=3,
)  # fmt: skip


def _import(tmp: Path, fmt: str, document: Any) -> None:
    path = tmp / "traces.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    with Store.open(tmp / "q.db") as store:
        try:
            import_traces(store, path, fmt)
        except InputError as exc:
            assert exc.problems and all(p.path == str(path) for p in exc.problems)
            assert store.count("inbox") == 0
        except QaevalError:
            pass


@pytest.mark.parametrize("fmt", ["otlp", "openinference"])
@settings(max_examples=150, deadline=None)
@given(document=_otlp)
def test_any_otlp_shaped_export_is_read_or_refused(
    tmp_path_factory: pytest.TempPathFactory, fmt: str, document: Any
) -> None:
    _import(tmp_path_factory.mktemp("otlp"), fmt, document)


@settings(max_examples=150, deadline=None)
@given(document=_langfuse)
def test_any_langfuse_shaped_export_is_read_or_refused(tmp_path_factory: pytest.TempPathFactory, document: Any) -> None:
    _import(tmp_path_factory.mktemp("lf"), "langfuse", document)
