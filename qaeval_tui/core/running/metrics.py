"""The scoreboard: the registered metrics, per-case metric values and their aggregation, overall and per slice.

Every metric is the mean of a per-case value over the cases it applies to (None: not
applicable), so a gate delta can always be paired case by case against a baseline. A metric is
one `MetricSpec` (its name, direction, bounds, description, default tolerance and per-case
function together, `metric_spec.py`) in the registry; the built-in ones are declared in
`metric_table.py`, registered when this module is imported.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from qaeval_tui.core.running import metric_table  # registers the built-in metrics
from qaeval_tui.core.running.metric_spec import (
    METRIC_NAMES,
    METRIC_SPECS,
    METRICS,
    SLICE_KINDS,
    CaseContext,
    MetricSpec,
    default_tolerances,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
    reciprocal_rank,
    register_metric,
    registered_metric,
    slice_columns,
    unregister_metric,
)

if TYPE_CHECKING:
    from qaeval_tui.core.models.golden import GoldenCase
    from qaeval_tui.core.models.run import JudgeVerdict, SUTOutput
    from qaeval_tui.core.rubric import Rubric
    from qaeval_tui.core.running.checks import CheckResult
    from qaeval_tui.core.running.trajectory import TrajectoryResult

__all__ = [
    "METRICS",
    "METRIC_NAMES",
    "METRIC_SPECS",
    "SLICE_KINDS",
    "CaseContext",
    "MetricSpec",
    "MetricValue",
    "Scoreboard",
    "aggregate",
    "case_values",
    "default_tolerances",
    "metric_table",
    "metric_value_from_json",
    "ndcg_at_k",
    "precision_at_k",
    "rate_problem",
    "recall_at_k",
    "reciprocal_rank",
    "register_metric",
    "registered_metric",
    "scoreboard",
    "slice_columns",
    "unregister_metric",
]


@dataclass(frozen=True)
class MetricValue:
    """A mean over `n` cases; `value` is None (with the reason) when no case applies."""

    value: float | None
    n: int
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "n": self.n, "reason": self.reason}


def case_values(
    case: GoldenCase,
    output: SUTOutput,
    checks: Sequence[CheckResult],
    verdict: JudgeVerdict,
    trajectory: TrajectoryResult | None,
    rubric: Rubric,
    top_k: int,
) -> dict[str, float | None]:
    """Each metric's value for one case (None where the metric does not apply)."""
    context = CaseContext(case, output, checks, verdict, trajectory, rubric, top_k)
    return {spec.name: spec.per_case(context) for spec in METRICS}


def aggregate(rows: Iterable[Mapping[str, float | None]]) -> dict[str, MetricValue]:
    """Mean of each metric over the cases where it applies."""
    total = _Sums(tuple(spec.name for spec in METRICS))
    for row in rows:
        total.add(row)
    return total.board()


class _Sums:
    """Each metric's running sum and count over the rows added so far, added in row order (so the means are
    the same floats whether the rows were held in a list or streamed)."""

    __slots__ = ("counts", "names", "sums")

    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = names
        self.sums = dict.fromkeys(names, 0.0)
        self.counts = dict.fromkeys(names, 0)

    def add(self, row: Mapping[str, float | None]) -> None:
        sums, counts = self.sums, self.counts
        for name in self.names:
            value = row.get(name)
            if value is not None:
                sums[name] += value
                counts[name] += 1

    def board(self) -> dict[str, MetricValue]:
        board: dict[str, MetricValue] = {}
        for spec in METRICS:
            name = spec.name
            count = self.counts.get(name, 0)
            board[name] = MetricValue(self.sums[name] / count, count) if count else MetricValue(None, 0, spec.no_cases)
        return board


@dataclass(frozen=True)
class Scoreboard:
    """Metrics overall and per slice value (split, difficulty, adversarial tag; 'none' = untagged)."""

    overall: dict[str, MetricValue]
    slices: dict[str, dict[str, dict[str, MetricValue]]]
    n_cases: int
    slice_sizes: dict[str, dict[str, int]]

    def value(self, name: str) -> float | None:
        return self.overall[name].value

    def to_json(self) -> dict[str, Any]:
        return {
            "n_cases": self.n_cases,
            "overall": {name: metric.to_json() for name, metric in self.overall.items()},
            "slice_sizes": self.slice_sizes,
            "slices": {
                kind: {key: {name: m.to_json() for name, m in board.items()} for key, board in groups.items()}
                for kind, groups in self.slices.items()
            },
        }


def scoreboard(rows: Iterable[tuple[Mapping[str, str], Mapping[str, float | None]]]) -> Scoreboard:
    """`rows` pairs each case's slice keys ({"split": ..., ...}) with its metric values; read once, as they come
    (a run's compact cases yield theirs one at a time: no list of them all is built)."""
    names = tuple(spec.name for spec in METRICS)
    overall = _Sums(names)
    groups: dict[str, dict[str, _Sums]] = {kind: {} for kind in SLICE_KINDS}
    sizes: dict[str, dict[str, int]] = {kind: {} for kind in SLICE_KINDS}
    n_cases = 0
    for keys, values in rows:
        n_cases += 1
        overall.add(values)
        for kind in SLICE_KINDS:
            key = keys[kind]
            found = groups[kind].get(key)
            if found is None:
                found = groups[kind][key] = _Sums(names)
            found.add(values)
            sizes[kind][key] = sizes[kind].get(key, 0) + 1
    return Scoreboard(
        overall=overall.board(),
        slices={kind: {key: found[key].board() for key in sorted(found)} for kind, found in groups.items()},
        n_cases=n_cases,
        slice_sizes={kind: {key: sizes[kind][key] for key in sorted(found)} for kind, found in groups.items()},
    )


def rate_problem(value: object, bounds: tuple[float, float] = (0.0, 1.0)) -> str | None:
    """Why `value` is no metric value: every metric is a rate or mean in [0, 1] (or its narrower
    declared `bounds`), or null (not applicable).

    A bool, a string, NaN, an infinity or 1e308 read from a file would otherwise widen a band or
    void a comparison without a word, so each is refused by name.
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return f"must be a number or null, got {value!r}"
    if not math.isfinite(value):
        return f"must be a finite number, got {value!r}"
    low, high = bounds
    if not low <= value <= high:
        if bounds == (0.0, 1.0):
            return f"must be from 0 to 1 (every metric is a rate or a mean of 0..1 scores), got {value!r}"
        return f"must be from {low:g} to {high:g} (the metric's declared bounds), got {value!r}"
    return None


def metric_value_from_json(data: Mapping[str, Any]) -> MetricValue:
    value = data.get("value")
    return MetricValue(None if value is None else float(value), int(data.get("n", 0)), data.get("reason"))
