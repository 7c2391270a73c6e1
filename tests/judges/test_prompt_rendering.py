"""The case a judge is sent is rendered exactly as `json.dumps(..., ensure_ascii=False, indent=1)` renders it
(the fast renderer changes no byte of any prompt): any JSON value, hostile text included; and the request body
around it exactly as `json.dumps(body, ensure_ascii=False)` writes it."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from qaeval_tui.core.judges.prompt import indented_json, user_message
from qaeval_tui.core.judges.providers import PROTOCOLS, BodyWriter
from qaeval_tui.core.models.golden import GoldenCase
from qaeval_tui.core.models.run import Citation, SUTOutput
from qaeval_tui.core.rubric import Rubric
from tests.core.run_fixtures import RUBRIC, case, quoting_output

TEXT = st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=12)
LEAVES = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True) | TEXT
VALUES = st.recursive(
    LEAVES, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4), max_leaves=25
)


@settings(max_examples=400, deadline=None)
@given(VALUES)
def test_any_json_value_renders_as_the_standard_encoder_renders_it(value: Any) -> None:
    assert indented_json(value) == json.dumps(value, ensure_ascii=False, indent=1)


def test_a_case_renders_as_before_and_a_value_json_cannot_take_is_refused_the_same_way() -> None:
    golden = case(question='Is it \x1b[2J\u202e 10 years?\n"quoted"')
    output = quoting_output(golden)
    document = json.loads(user_message(golden, output, RUBRIC))
    assert user_message(golden, output, RUBRIC) == json.dumps(document, ensure_ascii=False, indent=1)
    for bad in ({1: "a key that is a number"}, {"set": {1, 2}}):
        try:
            expected = json.dumps(bad, ensure_ascii=False, indent=1)
        except TypeError as exc:
            expected = f"TypeError: {exc}"
        try:
            got = indented_json(bad)
        except TypeError as exc:
            got = f"TypeError: {exc}"
        assert got == expected


def _as_before(golden: GoldenCase, output: SUTOutput, rubric: Rubric) -> str:
    """The user message as the general encoder writes it, citations dumped by pydantic."""
    document: dict[str, Any] = {
        "question": golden.question,
        "sources": [{"id": s.id, "title": s.title, "text": s.text} for s in golden.sources],
        "answer": output.answer,
        "abstained": output.abstained,
        "citations": [c.model_dump(mode="json", exclude_none=True) for c in output.citations],
    }
    if any(axis.needs_gold for axis in rubric.axes):
        document["reference_answer"] = (
            golden.gold_answer if golden.expected_behavior == "answer" else "(the system must abstain on this question)"
        )
    return json.dumps(document, ensure_ascii=False, indent=1)


PLAIN = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=()), min_size=1, max_size=12)


@settings(max_examples=300, deadline=None)
@given(PLAIN, PLAIN, st.none() | PLAIN, PLAIN, st.booleans(), st.none() | PLAIN, st.booleans())
def test_a_case_of_any_text_renders_as_the_standard_encoder_renders_it(
    question: str, text: str, title: str | None, answer: str, abstained: bool, quote: str | None, gold: bool
) -> None:
    """ASCII, DEL, control characters, quotes, backslashes and text beyond ASCII, a missing title or quote, no
    citation at all, with and without the reference answer: the same bytes as the general encoder's."""
    source = {"id": "s1", "title": title, "text": f"T{text}"}  # a case's question and texts are never blank
    golden = case(question=f"Q{question}", sources=[source], gold_source_ids=["s1"])
    citations = () if quote is None else (Citation(source_id="s1", quote=quote),)
    output = SUTOutput(answer=answer, abstained=abstained, citations=citations)
    rubric = RUBRIC if gold else Rubric(axes=tuple(axis for axis in RUBRIC.axes if not axis.needs_gold))
    assert user_message(golden, output, rubric) == _as_before(golden, output, rubric)


@settings(max_examples=200, deadline=None)
@given(PLAIN, PLAIN, PLAIN, st.sampled_from(sorted(PROTOCOLS)))
def test_a_request_body_is_the_standard_encoders_whatever_the_text(
    system: str, user: str, model: str, protocol: str
) -> None:
    """The body each call sends is `json.dumps(body, ensure_ascii=False)` in UTF-8, byte for byte, for any
    system message, user message and model name (one holding the writer's own mark included)."""
    wire = PROTOCOLS[protocol]
    write = BodyWriter(wire, model=model, temperature=0.25, seed=7, max_tokens=300)
    for system_message, user_message_ in ((system, user), (system, user + "\x00qaeval:user-message\x00"),
                                           (system + "\x00qaeval:user-message\x00", user), (system, user)):  # fmt: skip
        expected = wire.body(
            model=model, system=system_message, user=user_message_, temperature=0.25, seed=7, max_tokens=300
        )
        assert write(system_message, user_message_) == json.dumps(expected, ensure_ascii=False).encode("utf-8")
