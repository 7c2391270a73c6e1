"""The scoreboard: per-case metric values and their aggregation, overall and per slice.

Every metric is the mean of a per-case value over the cases it applies to (None: not
applicable), so a gate delta can always be paired case by case against a baseline.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from qaeval_tui.core.models.golden import GoldenCase
from qaeval_tui.core.models.run import JudgeVerdict, SUTOutput
from qaeval_tui.core.rubric import Rubric
from qaeval_tui.core.running.checks import CheckResult, citation_problems, coverage_counts
from qaeval_tui.core.running.judge import ANSWER_CORRECTNESS, CITATION_CORRECTNESS, FAITHFULNESS
from qaeval_tui.core.running.trajectory import TrajectoryResult


@dataclass(frozen=True)
class MetricSpec:
    name: str
    description: str
    higher_is_better: bool = True
    judge_axis: str | None = None


METRICS: tuple[MetricSpec, ...] = (
    MetricSpec("deterministic_pass_rate", "share of cases with every deterministic check green"),
    MetricSpec(
        "faithfulness_rate", "share of answers whose every claim the judge finds supported", judge_axis=FAITHFULNESS
    ),
    MetricSpec("answer_correctness", "mean judged answer correctness, scaled to 0..1", judge_axis=ANSWER_CORRECTNESS),
    MetricSpec(
        "citation_correctness",
        "mean judged citation correctness (weakest citation vs hardest decoy), 0..1",
        judge_axis=CITATION_CORRECTNESS,
    ),
    MetricSpec("citation_precision", "share of an answer's citations that resolve to a retrieved passage"),
    MetricSpec("citation_coverage", "share of load-bearing answer sentences that carry a citation"),
    MetricSpec("abstention_recall", "share of must-abstain cases refused"),
    MetricSpec("over_refusal_rate", "share of answerable cases refused", higher_is_better=False),
    MetricSpec("retrieval_recall_at_k", "share of gold sources among the first k retrieved"),
    MetricSpec("retrieval_precision_at_k", "share of the first k retrieved that are gold sources"),
    MetricSpec("mrr", "mean reciprocal rank of the first gold source"),
    MetricSpec("ndcg", "binary-relevance nDCG@k of the retrieved list"),
    MetricSpec(
        "multi_step_task_success",
        "share of multi-hop / aggregation cases with every checkpoint and the right end state",
    ),
)
METRIC_NAMES = tuple(spec.name for spec in METRICS)
METRIC_SPECS = {spec.name: spec for spec in METRICS}
SLICE_KINDS = ("split", "difficulty", "adversarial")


@dataclass(frozen=True)
class MetricValue:
    """A mean over `n` cases; `value` is None (with the reason) when no case applies."""

    value: float | None
    n: int
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "n": self.n, "reason": self.reason}


def _scaled(score: int | None, scale: Sequence[int]) -> float | None:
    if score is None:
        return None
    low, high = scale[0], scale[-1]
    return (score - low) / (high - low)


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
    answerable = case.expected_behavior == "answer"
    answered = not output.abstained and output.error is None
    retrieved = list(output.retrieved_ids)
    gold = list(case.gold_source_ids)
    scores: Mapping[str, int | None] = verdict.scores if verdict.status == "ok" else {}
    axes = set(rubric.axis_names)

    def judged(axis: str) -> float | None:
        return _scaled(scores.get(axis), rubric.axis(axis).scale) if axis in axes else None

    faithful: float | None = None
    if answered and FAITHFULNESS in axes and scores.get(FAITHFULNESS) is not None:
        faithful = 1.0 if scores[FAITHFULNESS] == rubric.axis(FAITHFULNESS).scale[-1] else 0.0
    precision: float | None = None
    if answered and output.citations:
        problems = citation_problems(case, output)
        precision = sum(1 for problem in problems if problem is None) / len(problems)
    covered, load_bearing = coverage_counts(output)
    with_gold = answerable and bool(gold)
    return {
        "deterministic_pass_rate": 0.0 if any(check.failed for check in checks) else 1.0,
        "faithfulness_rate": faithful,
        "answer_correctness": judged(ANSWER_CORRECTNESS),
        "citation_correctness": judged(CITATION_CORRECTNESS),
        "citation_precision": precision,
        "citation_coverage": covered / load_bearing if load_bearing else None,
        "abstention_recall": None if answerable else (1.0 if output.abstained else 0.0),
        "over_refusal_rate": (1.0 if output.abstained else 0.0) if answerable else None,
        "retrieval_recall_at_k": recall_at_k(retrieved, gold, top_k) if with_gold else None,
        "retrieval_precision_at_k": precision_at_k(retrieved, gold, top_k) if with_gold else None,
        "mrr": reciprocal_rank(retrieved, gold) if with_gold else None,
        "ndcg": ndcg_at_k(retrieved, gold, top_k) if with_gold else None,
        "multi_step_task_success": None if trajectory is None else (1.0 if trajectory.success else 0.0),
    }


_NO_CASES = {
    "faithfulness_rate": "no answered case the judge scored",
    "answer_correctness": "no case the judge scored on answer_correctness",
    "citation_correctness": "no case the judge scored on citation_correctness",
    "citation_precision": "no answer with citations",
    "citation_coverage": "no answer with a load-bearing sentence",
    "abstention_recall": "no must-abstain case",
    "over_refusal_rate": "no answerable case",
    "retrieval_recall_at_k": "no answerable case with gold sources",
    "retrieval_precision_at_k": "no answerable case with gold sources",
    "mrr": "no answerable case with gold sources",
    "ndcg": "no answerable case with gold sources",
    "multi_step_task_success": "no multi-hop or aggregation case",
}


def aggregate(rows: Iterable[Mapping[str, float | None]]) -> dict[str, MetricValue]:
    """Mean of each metric over the cases where it applies."""
    sums = dict.fromkeys(METRIC_NAMES, 0.0)
    counts = dict.fromkeys(METRIC_NAMES, 0)
    for row in rows:
        for name in METRIC_NAMES:
            value = row.get(name)
            if value is not None:
                sums[name] += value
                counts[name] += 1
    board: dict[str, MetricValue] = {}
    for name in METRIC_NAMES:
        if counts[name]:
            board[name] = MetricValue(sums[name] / counts[name], counts[name])
        else:
            board[name] = MetricValue(None, 0, _NO_CASES.get(name, "no case"))
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


def scoreboard(rows: Sequence[tuple[Mapping[str, str], Mapping[str, float | None]]]) -> Scoreboard:
    """`rows` pairs each case's slice keys ({"split": ..., ...}) with its metric values."""
    groups: dict[str, dict[str, list[Mapping[str, float | None]]]] = {kind: {} for kind in SLICE_KINDS}
    for keys, values in rows:
        for kind in SLICE_KINDS:
            groups[kind].setdefault(keys[kind], []).append(values)
    return Scoreboard(
        overall=aggregate(values for _, values in rows),
        slices={kind: {key: aggregate(found[key]) for key in sorted(found)} for kind, found in groups.items()},
        n_cases=len(rows),
        slice_sizes={kind: {key: len(found[key]) for key in sorted(found)} for kind, found in groups.items()},
    )


def rate_problem(value: object) -> str | None:
    """Why `value` is no metric value: every metric is a rate or mean in [0, 1], or null (not applicable).

    A bool, a string, NaN, an infinity or 1e308 read from a file would otherwise widen a band or
    void a comparison without a word, so each is refused by name.
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return f"must be a number or null, got {value!r}"
    if not math.isfinite(value):
        return f"must be a finite number, got {value!r}"
    if not 0 <= value <= 1:
        return f"must be from 0 to 1 (every metric is a rate or a mean of 0..1 scores), got {value!r}"
    return None


def metric_value_from_json(data: Mapping[str, Any]) -> MetricValue:
    value = data.get("value")
    return MetricValue(None if value is None else float(value), int(data.get("n", 0)), data.get("reason"))


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
