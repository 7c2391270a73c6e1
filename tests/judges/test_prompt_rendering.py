"""The case a judge is sent is rendered exactly as `json.dumps(..., ensure_ascii=False, indent=1)` renders it
(the fast renderer changes no byte of any prompt): any JSON value, hostile text included."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from qaeval_tui.core.judges.prompt import indented_json, user_message
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
