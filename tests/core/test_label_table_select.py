"""`select_table` (the columnar path the statistics take) chooses and tabulates exactly as `select_labels`
followed by `LabelTable.from_labels` do, on histories with revisions, ties, skips, reveals, other rubric
versions, can't-judge and unscored axes."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qaeval_tui.core.config import Config
from qaeval_tui.core.statistics.label_table import LabelTable, _latest_per_key, select_labels, select_table

RUBRIC = Config().rubric
AXES = RUBRIC.axis_names


@dataclass(frozen=True)
class Row:
    item_id: str
    reviewer: str
    revision: int
    skipped: bool
    rubric_version: str
    revealed: bool
    scores: dict[str, int | None]
    note: int  # tells apart rows with the same key and revision


SCORE = st.one_of(st.none(), st.integers(0, 2))
ROW = st.builds(
    Row,
    item_id=st.sampled_from(["b", "a", "c-2", "c-10", "Z"]),
    reviewer=st.sampled_from(["rev2", "rev10", "ana", "Ben"]),
    revision=st.integers(1, 3),
    skipped=st.sampled_from([False, False, False, True]),
    rubric_version=st.sampled_from([RUBRIC.version, RUBRIC.version, "old"]),
    revealed=st.sampled_from([False, False, True]),
    scores=st.fixed_dictionaries({}, optional={axis: SCORE for axis in AXES}),
    note=st.integers(),
)


def _same_tables(first: LabelTable, second: LabelTable) -> None:
    assert (first.items, first.reviewers, first.axes) == (second.items, second.reviewers, second.axes)
    for name in ("item_codes", "reviewer_codes", "cant_judge"):
        left, right = getattr(first, name), getattr(second, name)
        assert left.dtype == right.dtype and np.array_equal(left, right)
    assert first.scores.dtype == second.scores.dtype
    assert np.array_equal(first.scores, second.scores, equal_nan=True)


@settings(max_examples=300, deadline=None)
@given(rows=st.lists(ROW, max_size=60), include_post_reveal=st.booleans())
def test_select_table_is_select_labels_then_from_labels(rows: list[Row], include_post_reveal: bool) -> None:
    expected = select_labels(rows, RUBRIC.version, include_post_reveal=include_post_reveal, quarantined=2)
    selection, table = select_table(rows, RUBRIC, include_post_reveal=include_post_reveal, quarantined=2)
    assert selection == expected  # the same rows (the very objects, in key order) and the same counts
    assert [id(row) for row in selection.labels] == [id(row) for row in expected.labels]
    _same_tables(table, LabelTable.from_labels(expected.labels, RUBRIC))


# Ids as `item_id_for` makes them, ordered unlike the names they replace, two alike in their first 16 digits.
HEX_IDS = {
    "b": "00000000000000a1.0000000000000002",
    "a": "00000000000000a1.0000000000000001",
    "c-2": "ffffffffffffffff.0000000000000000",
    "c-10": "0000000000000000.ffffffffffffffff",
    "Z": "00000000000000a0.ffffffffffffffff",
}


@settings(max_examples=200, deadline=None)
@given(rows=st.lists(ROW, max_size=60), include_post_reveal=st.booleans())
def test_the_same_for_hex_item_ids_read_from_the_labels_a_chunk_at_a_time(
    rows: list[Row], include_post_reveal: bool
) -> None:
    rows = [replace(row, item_id=HEX_IDS[row.item_id]) for row in rows]
    expected = select_labels(rows, RUBRIC.version, include_post_reveal=include_post_reveal)
    selection, table = select_table(rows, RUBRIC, include_post_reveal=include_post_reveal)
    assert [id(row) for row in selection.labels] == [id(row) for row in expected.labels]
    _same_tables(table, LabelTable.from_labels(expected.labels, RUBRIC))


def test_the_first_of_equal_latest_revisions_is_kept() -> None:
    first = Row("a", "ana", 2, False, RUBRIC.version, False, {"faithfulness": 1}, 1)
    rows = [Row("a", "ana", 1, False, RUBRIC.version, False, {"faithfulness": 0}, 0), first]
    rows.append(Row("a", "ana", 2, False, RUBRIC.version, False, {"faithfulness": 2}, 2))
    selection, table = select_table(rows, RUBRIC)
    assert selection.labels == (first,) and selection.superseded == 2
    assert table.scores[0, table.axis_index("faithfulness")] == 1


@settings(max_examples=100, deadline=None)
@given(rows=st.lists(ROW, max_size=60), pool=st.lists(st.sampled_from([0, 1, 2]), min_size=60, max_size=60))
def test_the_same_when_rows_share_score_mappings_as_the_store_hands_them_out(rows: list[Row], pool: list[int]) -> None:
    shared: list[dict[str, int | None]] = [{"faithfulness": 0}, {"faithfulness": None, "answer_correctness": 2}, {}]
    rows = [replace(row, scores=shared[pool[i]]) for i, row in enumerate(rows)]
    expected = select_labels(rows, RUBRIC.version)
    selection, table = select_table(rows, RUBRIC)
    assert selection == expected
    _same_tables(table, LabelTable.from_labels(expected.labels, RUBRIC))


def test_a_table_with_two_labels_of_one_item_and_reviewer_is_refused() -> None:
    one = np.zeros((2, len(AXES)))
    for items, reviewers in (([0, 0], [1, 1]), ([1, 0, 1], [0, 0, 0])):  # adjacent, and out of order
        scores = np.zeros((len(items), len(AXES)))
        with pytest.raises(ValueError, match="at most one label per"):
            LabelTable(("a", "b"), ("ana", "ben"), AXES, np.array(items), np.array(reviewers), scores, scores == 1)
    table = LabelTable(("a", "b"), ("ana", "ben"), AXES, np.array([1, 0]), np.array([0, 0]), one, one == 1)
    assert table.reliability(AXES[0]).shape == (2, 2)  # distinct pairs in any order are a table


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(-2, 3)), max_size=40))
def test_the_packed_sort_and_the_three_key_sort_choose_the_same_rows(rows: list[tuple[int, int]]) -> None:
    key = np.array([k for k, _ in rows], dtype=np.int64)
    revision = np.array([r for _, r in rows], dtype=np.int64)
    row = np.arange(len(rows), dtype=np.int64)
    expected = [
        min((i for i, (k, r) in enumerate(rows) if k == wanted), key=lambda i: (-rows[i][1], i))
        for wanted in sorted({k for k, _ in rows})
    ]
    for size in (len(rows), 2**61):  # the second too large to pack: sorted by three keys
        chosen, keys = _latest_per_key(key, revision, row, size)
        assert chosen.tolist() == expected and keys.tolist() == sorted({k for k, _ in rows})
