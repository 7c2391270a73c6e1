"""Item ids numbered by sorting their bytes (`string_codes`), and the verdict table that reads them, give
what a dict and `sorted` give: the same distinct ids in the same order, the same rows, the latest verdict."""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qaeval_tui.core.config import Config
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.review.rubric_fit import check_rubric_unchanged
from qaeval_tui.core.statistics.string_codes import dict_codes, hex_words, padded_bytes, sorted_codes
from qaeval_tui.core.statistics.verdict_table import VerdictTable

RUBRIC = Config().rubric
# Prefixes of one another, a NUL, non-ASCII and the empty id: each way through, and the fallbacks.
NAME = st.one_of(
    st.text(alphabet="ab.-09", max_size=5),
    st.sampled_from(["", "a", "a\0", "é", "a b", "~", "A", "ab"]),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(NAME, max_size=40))
def test_sorted_codes_are_sorted_distinct_names_and_their_positions(names: list[str]) -> None:
    distinct, codes = sorted_codes(names)
    assert distinct == sorted(set(names))
    assert codes.dtype == np.int64 and [distinct[code] for code in codes.tolist()] == names
    assert (distinct, codes.tolist()) == (dict_codes(names)[0], dict_codes(names)[1].tolist())


def test_ids_as_the_store_makes_them_take_the_byte_sort_and_order_as_strings() -> None:
    ids = [f"{n * 7919 % 65536:016x}.{n:016x}" for n in range(500)] + ["0" * 16 + ".", "f" * 33]
    assert padded_bytes(ids) is not None  # the fast way, not the fallback
    distinct, codes = sorted_codes(ids[::-1] + ids)
    assert distinct == sorted(ids) and [distinct[c] for c in codes.tolist()] == ids[::-1] + ids


# Hex ids of one shape (as `item_id_for` makes them), and ids one character away from that shape:
# another length, an upper-case digit, the dot elsewhere, a newline, a non-hex letter.
HEX_ID = st.builds(
    lambda high, low, spoil: spoil(f"{high:016x}.{low:016x}"),
    st.integers(0, 3) | st.integers(0, 2**64 - 1),  # small first words tie on their high bits
    st.integers(0, 2**64 - 1),
    st.sampled_from([lambda i: i] * 12 + [lambda i: i[1:], str.upper, lambda i: i[:3] + "." + i[4:16] + "0" + i[17:],
                     lambda i: i[:-1] + "\n", lambda i: i[:-1] + "g", lambda i: i + "00"]),
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(HEX_ID, min_size=1, max_size=40), st.integers(0, 3))
def test_hex_ids_number_as_strings_do_and_any_other_shape_falls_back(ids: list[str], repeats: int) -> None:
    names = ids * (repeats + 1)
    distinct, codes = sorted_codes(names)
    assert distinct == sorted(set(names)) and [distinct[c] for c in codes.tolist()] == names
    # the hex path exactly when every id has the first one's length and its other characters in its places
    shapes = {(len(i), tuple((at, c) for at, c in enumerate(i) if c not in "0123456789abcdef")) for i in ids}
    marks = next(iter(shapes))[1]
    digits = len(ids[0]) - len(marks)
    one_shape = len(shapes) == 1 and digits > 0 and digits % 2 == 0 and all(c != "\n" for _, c in marks)
    assert (hex_words(names) is not None) == one_shape


@dataclass(frozen=True)
class Verdict:
    item_id: str
    judge: MappingProxyType[str, str]
    status: str
    scores: dict[str, int | None]


JUDGE = MappingProxyType({"name": "j", "config_hash": "h", "rubric_version": RUBRIC.version})
VERDICT = st.builds(
    Verdict,
    item_id=NAME,
    judge=st.just(JUDGE),
    status=st.sampled_from(["ok", "ok", "error"]),
    scores=st.fixed_dictionaries(
        {}, optional={axis: st.one_of(st.none(), st.integers(0, 2)) for axis in RUBRIC.axis_names}
    ),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(VERDICT, min_size=1, max_size=30), st.lists(NAME, max_size=20))
def test_the_verdict_table_keeps_the_last_verdict_per_item_and_aligns_any_ids(
    verdicts: list[Verdict], query: list[str]
) -> None:
    table = VerdictTable.from_verdicts(verdicts, RUBRIC)
    latest = {verdict.item_id: verdict for verdict in verdicts}
    assert table.items == tuple(sorted(latest))
    assert table.statuses == tuple(latest[item].status for item in table.items)
    assert table.counts["errors"] == sum(verdict.status != "ok" for verdict in latest.values())
    for row, item in enumerate(table.items):
        verdict = latest[item]
        for column, axis in enumerate(RUBRIC.axis_names):
            value = verdict.scores.get(axis) if verdict.status == "ok" else None
            assert np.isnan(table.scores[row, column]) if value is None else table.scores[row, column] == value
    rows, found = table.align(query)
    assert found.tolist() == [item in latest for item in query]
    assert [table.items[row] for row in rows[found].tolist()] == [item for item in query if item in latest]
    # a table built by hand, its items in no order, aligns the same
    shuffled = VerdictTable(table.items[::-1], table.axes, table.scores[::-1], "h", "j")
    rows, found = shuffled.align(query)
    assert [shuffled.items[row] for row in rows[found].tolist()] == [item for item in query if item in latest]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(alphabet="ab", min_size=70, max_size=70), min_size=1, max_size=30), st.booleans())
def test_ids_longer_than_one_integer_holds_sort_exactly(names: list[str], same_start: bool) -> None:
    # 70 varying positions of one bit each: 62 fit the integer; ids that differ only past them tie on it.
    if same_start:
        names = ["a" * 62 + name[62:] for name in names] + ["b" * 70]
    distinct, codes = sorted_codes(names + names[::-1])
    assert distinct == sorted(set(names)) and [distinct[c] for c in codes.tolist()] == names + names[::-1]


def test_a_verdict_table_with_an_item_twice_is_refused_in_any_order() -> None:
    for items in (("a", "a", "b"), ("b", "a", "b"), ("é", "é")):
        with pytest.raises(ValueError, match="one verdict per item"):
            VerdictTable(items, RUBRIC.axis_names, np.zeros((len(items), len(RUBRIC.axis_names))), "h", "j")


ODD_SCORES = st.dictionaries(
    st.sampled_from([*RUBRIC.axis_names, "tone"]),
    st.one_of(st.none(), st.integers(-1, 3), st.sampled_from([True, 1.0, 2.5, float("nan"), 10**400])),
    max_size=4,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(NAME, ODD_SCORES), min_size=1, max_size=20))
def test_verdict_scores_off_the_rubric_are_refused_as_the_check_of_every_mapping_refuses_them(
    given_scores: list[tuple[str, dict[str, object]]],
) -> None:
    verdicts = [Verdict(item, JUDGE, "ok", scores) for item, scores in given_scores]  # type: ignore[arg-type]
    try:
        check_rubric_unchanged((v.scores for v in verdicts), RUBRIC, "judge config h", "verdicts")
    except UsageError as refused:
        with pytest.raises(UsageError) as raised:
            VerdictTable.from_verdicts(verdicts, RUBRIC)
        assert str(raised.value) == str(refused)
        return
    table = VerdictTable.from_verdicts(verdicts, RUBRIC)
    latest = {verdict.item_id: verdict for verdict in verdicts}
    for row, item in enumerate(table.items):
        for column, axis in enumerate(RUBRIC.axis_names):
            value = latest[item].scores.get(axis)
            assert np.isnan(table.scores[row, column]) if value is None else table.scores[row, column] == value


def test_a_verdict_score_given_as_text_is_refused_though_numpy_would_read_it_as_a_number() -> None:
    with pytest.raises(UsageError, match="off its faithfulness scale"):
        VerdictTable.from_verdicts([Verdict("a", JUDGE, "ok", {"faithfulness": "1"})], RUBRIC)  # type: ignore[dict-item]
