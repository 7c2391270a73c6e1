"""The human side of calibration (DESIGN §5): one consensus value per item and axis, or why there is none.

The adjudicated label where one exists; else, when at least `min_reviewers` blind reviewers gave a
value, the label they all gave, else their median when it is a scale point (ordinal and interval
axes only); otherwise the item is unresolved. An item only one reviewer labelled is not a
"unanimous" consensus of one: it is "unresolved: one reviewer", counted apart and offered for more
labels (or an adjudication).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from qaeval_tui.core.rubric import Axis
from qaeval_tui.core.statistics.label_table import BoolArray, FloatArray, IntArray, LabelTable
from qaeval_tui.core.store.rows import ItemAxis

# Consensus sources, per item.
NO_HUMAN_VALUE, ADJUDICATED, UNANIMOUS, MEDIAN, UNRESOLVED, ONE_REVIEWER, TOO_FEW_REVIEWERS = range(7)
SOURCE_NAMES: dict[int, str] = {
    NO_HUMAN_VALUE: "no human value",
    ADJUDICATED: "adjudicated",
    UNANIMOUS: "unanimous",
    MEDIAN: "median",
    UNRESOLVED: "unresolved",
    ONE_REVIEWER: "unresolved: one reviewer",
    TOO_FEW_REVIEWERS: "unresolved: too few reviewers",
}
"""How each source is named in every output."""


@dataclass(frozen=True)
class Consensus:
    """Per item of a label table: the consensus value (NaN if none) and where it came from."""

    values: FloatArray
    source: IntArray

    @property
    def resolved(self) -> BoolArray:
        resolved: BoolArray = ~np.isnan(self.values)
        return resolved


def human_consensus(
    table: LabelTable,
    axis: Axis,
    adjudicated: Mapping[ItemAxis, int | None] | None = None,
    min_reviewers: int = 2,
) -> Consensus:
    """The human consensus on `axis` for every item of the table (vectorized over items)."""
    if min_reviewers < 1:
        raise ValueError(f"min_reviewers must be at least 1, got {min_reviewers}")
    matrix = table.reliability(axis.name)
    present = ~np.isnan(matrix)
    count = present.sum(axis=0)
    low = np.where(present, matrix, np.inf).min(axis=0)
    high = np.where(present, matrix, -np.inf).max(axis=0)
    values = np.full(len(table.items), np.nan)
    source = np.full(len(table.items), NO_HUMAN_VALUE, dtype=np.int64)
    enough = count >= min_reviewers
    source[(count == 1) & ~enough] = ONE_REVIEWER
    source[(count >= 2) & ~enough] = TOO_FEW_REVIEWERS
    unanimous = enough & (count >= 1) & (low == high)
    values[unanimous] = low[unanimous]
    source[unanimous] = UNANIMOUS
    split = enough & (count >= 2) & ~unanimous
    source[split] = UNRESOLVED
    if axis.level != "nominal" and split.any():
        # Missing values sort last as +inf; each column's median is the middle of its own n values.
        ordered = np.sort(np.where(present[:, split], matrix[:, split], np.inf), axis=0)
        n = count[split]
        columns = np.arange(ordered.shape[1])
        medians = (ordered[(n - 1) // 2, columns] + ordered[n // 2, columns]) / 2.0
        on_scale = np.isin(medians, np.asarray(axis.scale, dtype=np.float64))
        where = np.flatnonzero(split)[on_scale]
        values[where] = medians[on_scale]
        source[where] = MEDIAN
    if adjudicated:
        index = {item: i for i, item in enumerate(table.items)}
        for (item_id, axis_name), score in adjudicated.items():
            i = index.get(item_id)
            if axis_name == axis.name and i is not None:
                values[i] = np.nan if score is None else float(score)
                source[i] = ADJUDICATED
    return Consensus(values, source)
