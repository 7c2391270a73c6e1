"""`--where KEY=VALUE`: how a condition reads an attribute's value, and where in a trace it looks."""

from __future__ import annotations

import pytest

from qaeval_tui.core.curation.traces.conventions import genai_case
from qaeval_tui.core.curation.traces.model import Condition, parse_conditions
from qaeval_tui.core.curation.traces.otlp import group_traces, read_spans
from qaeval_tui.core.errors import UsageError
from tests.traces.exports import Recorder, genai_trace, otlp_json


@pytest.mark.parametrize(
    ("value", "found", "accepted"),
    [
        ("negative", "negative", True),
        ("negative", "Negative", False),  # text as written
        ("0", 0, True),
        ("0", 0.0, True),  # numbers by value
        ("0.5", 0.5, True),
        ("0", "0.0", False),  # text stays text
        ("true", True, True),
        ("TRUE", True, True),
        ("1", True, False),  # a boolean is not a number
        ("b", ["a", "b"], True),  # any element of a list
        ("c", ["a", "b"], False),
        ("x", None, False),
        ("x", {"x": "x"}, False),
        ("nan", float("nan"), False),
    ],
)
def test_a_condition_reads_a_value(value: str, found: object, accepted: bool) -> None:
    assert Condition("k", value).accepts(found) is accepted  # type: ignore[arg-type]


def test_conditions_as_typed() -> None:
    assert parse_conditions(["a=b", "user.feedback==x", "k="]) == (
        Condition("a", "b"),
        Condition("user.feedback", "=x"),
        Condition("k", ""),
    )
    with pytest.raises(UsageError, match="not KEY=VALUE"):
        parse_conditions(["=b"])


def test_where_looks_at_span_event_and_resource_attributes_of_any_span() -> None:
    rec = Recorder(service="billing", seed=61)
    genai_trace(rec, feedback=None)
    with rec.span("feedback") as span:  # a separate trace whose feedback is an event
        span.add_event("user.feedback", {"rating": 1})
    spans, problems = read_spans(otlp_json(rec.spans()).encode(), "t.json")
    assert not problems
    first, second = group_traces(spans, genai_case)
    assert first.matches(Condition("service.name", "billing"))  # resource
    assert first.matches(Condition("http.route", "/ask"))  # the root span's attribute
    assert first.matches(Condition("gen_ai.operation.name", "retrieval"))  # a child span's
    assert not first.matches(Condition("rating", "1"))
    assert second.matches(Condition("rating", "1"))  # an event's attribute
