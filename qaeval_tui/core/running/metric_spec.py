"""A metric's declaration and the registry of them: what a per-case function reads (`CaseContext`), the
`MetricSpec` that declares a metric once, and the retrieval measures the built-in ones are made of.

The built-in metrics are declared in `metric_table.py`; `metrics.py` registers them and holds the
aggregation. Declaring a metric imports this module, never `metrics.py`, so the table and the
scoreboard import downward only.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, overload

if TYPE_CHECKING:
    from qaeval_tui.core.models.golden import GoldenCase
    from qaeval_tui.core.models.run import JudgeVerdict, SUTOutput
    from qaeval_tui.core.rubric import Rubric
    from qaeval_tui.core.running.checks import CheckResult
    from qaeval_tui.core.running.trajectory import TrajectoryResult


class CaseContext:
    """What a metric's per-case function reads: one case, the system's output, its checks and verdict,
    and the facts several metrics share (computed once per case: this runs for every case of a run)."""

    __slots__ = (
        "answerable",
        "answered",
        "axes",
        "case",
        "checks",
        "gold",
        "output",
        "retrieved",
        "rubric",
        "scores",
        "top_k",
        "trajectory",
        "verdict",
        "with_gold",
    )

    def __init__(
        self,
        case: GoldenCase,
        output: SUTOutput,
        checks: Sequence[CheckResult],
        verdict: JudgeVerdict,
        trajectory: TrajectoryResult | None,
        rubric: Rubric,
        top_k: int,
    ) -> None:
        self.case = case
        self.output = output
        self.checks = checks
        self.verdict = verdict
        self.trajectory = trajectory
        self.rubric = rubric
        self.top_k = top_k
        self.answerable: bool = case.expected_behavior == "answer"
        self.answered: bool = not output.abstained and output.error is None
        """The system gave an answer: it neither refused nor failed."""
        self.retrieved: list[str] = list(output.retrieved_ids)
        self.gold: list[str] = list(case.gold_source_ids)
        self.with_gold: bool = self.answerable and bool(self.gold)
        """An answerable case with gold sources: the retrieval metrics apply."""
        self.scores: Mapping[str, int | None] = verdict.scores if verdict.status == "ok" else {}
        """The judge's scores per axis; empty unless the verdict is ok."""
        self.axes: frozenset[str] = frozenset(rubric.axis_names)

    def judged(self, axis: str) -> float | None:
        """The judge's score on `axis` scaled to 0..1; None when unscored or not in the rubric."""
        if axis not in self.axes:
            return None
        score = self.scores.get(axis)
        if score is None:
            return None
        scale = self.rubric.axis(axis).scale
        low, high = scale[0], scale[-1]
        return (score - low) / (high - low)


@dataclass(frozen=True)
class MetricSpec:
    """One gate metric, declared once: what it is, which way is better, its default gating and its per-case value."""

    name: str
    description: str
    per_case: Callable[[CaseContext], float | None]
    """The case's value (a number within `bounds`), or None where the metric does not apply."""
    no_cases: str = "no case"
    """Why the metric has no value when it applies to no case (shown beside the missing number)."""
    higher_is_better: bool = True
    judge_axis: str | None = None
    """The rubric axis whose judge scores it; its gate rows carry that axis's calibration verdict."""
    tolerance: float | None = None
    """The default `[gate.tolerances]` entry: the largest allowed drop (rise, when lower is better); None: not gated."""
    bounds: tuple[float, float] = (0.0, 1.0)
    """Every value lies within these (a rate or a mean of 0..1 scores); the baseline reader refuses others."""
    slice_column: str | None = None
    """A short header to show the metric in `qaeval run`'s per-slice table; None: not shown there."""


_REGISTRY: dict[str, MetricSpec] = {}


class _Names(Sequence[str]):
    """The registered metric names, in registration order, always current."""

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...
    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        return tuple(_REGISTRY)[index]

    def __len__(self) -> int:
        return len(_REGISTRY)

    def __iter__(self) -> Iterator[str]:
        return iter(tuple(_REGISTRY))

    def __contains__(self, name: object) -> bool:
        return name in _REGISTRY

    def __repr__(self) -> str:
        return repr(tuple(_REGISTRY))


class _Specs(Sequence[MetricSpec]):
    """The registered specs, in registration order, always current."""

    @overload
    def __getitem__(self, index: int) -> MetricSpec: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[MetricSpec]: ...
    def __getitem__(self, index: int | slice) -> MetricSpec | Sequence[MetricSpec]:
        return tuple(_REGISTRY.values())[index]

    def __len__(self) -> int:
        return len(_REGISTRY)

    def __iter__(self) -> Iterator[MetricSpec]:
        return iter(tuple(_REGISTRY.values()))


METRICS: Sequence[MetricSpec] = _Specs()
METRIC_NAMES: Sequence[str] = _Names()
METRIC_SPECS: Mapping[str, MetricSpec] = MappingProxyType(_REGISTRY)
SLICE_KINDS = ("split", "difficulty", "adversarial")


def register_metric(spec: MetricSpec) -> MetricSpec:
    """Add a metric to every run, baseline, gate and report from now on; a name taken or bad bounds: ValueError."""
    if spec.name in _REGISTRY:
        raise ValueError(f"metric {spec.name!r} is already registered")
    low, high = spec.bounds
    if not 0 <= low < high <= 1:
        raise ValueError(
            f"metric {spec.name!r}: bounds must lie within [0, 1] (the gate compares rates), got {spec.bounds}"
        )
    if spec.tolerance is not None and not 0 <= spec.tolerance <= 1:
        raise ValueError(f"metric {spec.name!r}: tolerance must be from 0 to 1, got {spec.tolerance!r}")
    _REGISTRY[spec.name] = spec
    return spec


def unregister_metric(name: str) -> None:
    """Remove a registered metric (a plug-in unloading, a test cleaning up); unknown: KeyError."""
    del _REGISTRY[name]


@contextmanager
def registered_metric(spec: MetricSpec) -> Iterator[MetricSpec]:
    """`spec` registered for the duration of the block, removed after it."""
    register_metric(spec)
    try:
        yield spec
    finally:
        unregister_metric(spec.name)


def default_tolerances() -> dict[str, float]:
    """Each gated metric's declared default tolerance, in registration order."""
    return {spec.name: spec.tolerance for spec in _REGISTRY.values() if spec.tolerance is not None}


def slice_columns() -> dict[str, str]:
    """Short header -> metric name of the metrics `qaeval run` shows per slice."""
    return {spec.slice_column: spec.name for spec in _REGISTRY.values() if spec.slice_column is not None}


# -- retrieval metrics against gold source ids ----------------------------------------------


def recall_at_k(retrieved: Sequence[str], gold: Sequence[str], k: int) -> float | None:
    """Share of gold sources among the first k retrieved; None without gold sources."""
    relevant = set(gold)
    if not relevant:
        return None
    return len(relevant.intersection(retrieved[:k])) / len(relevant)


def precision_at_k(retrieved: Sequence[str], gold: Sequence[str], k: int) -> float | None:
    """Share of the first k retrieved (as many as there are, up to k) that are gold; 0 when none retrieved."""
    relevant = set(gold)
    if not relevant:
        return None
    top = list(dict.fromkeys(retrieved[:k]))
    if not top:
        return 0.0
    return sum(1 for source_id in top if source_id in relevant) / len(top)


def reciprocal_rank(retrieved: Sequence[str], gold: Sequence[str]) -> float | None:
    """1 / rank of the first gold source in the whole retrieved list (0 if none); None without gold."""
    relevant = set(gold)
    if not relevant:
        return None
    for rank, source_id in enumerate(retrieved, start=1):
        if source_id in relevant:
            return 1.0 / rank
    return 0.0


def ndcg_at_k(retrieved: Sequence[str], gold: Sequence[str], k: int) -> float | None:
    """Binary-relevance nDCG over the first k retrieved; None without gold sources."""
    relevant = set(gold)
    if not relevant:
        return None
    seen: set[str] = set()
    gain = 0.0
    for rank, source_id in enumerate(retrieved[:k], start=1):
        if source_id in relevant and source_id not in seen:
            gain += 1.0 / math.log2(rank + 1)
        seen.add(source_id)
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(len(relevant), k) + 1))
    return gain / ideal
