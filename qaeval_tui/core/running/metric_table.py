"""The built-in gate metrics, each declared once: its spec and per-case value together.

Adding a metric is one `MetricSpec` appended to `BUILTIN_METRICS` (CONTRIBUTING.md, "A gate
metric"). The order here is the order of every report. A baseline written before a metric existed
still loads; the gate shows that metric as "n/a: not in the baseline".
"""

from __future__ import annotations

from qaeval_tui.core.running.checks import citation_problems, coverage_counts
from qaeval_tui.core.running.judge import ANSWER_CORRECTNESS, CITATION_CORRECTNESS, FAITHFULNESS
from qaeval_tui.core.running.metric_spec import (
    CaseContext,
    MetricSpec,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
    reciprocal_rank,
    register_metric,
)

_NO_GOLD = "no answerable case with gold sources"


def _deterministic_pass(c: CaseContext) -> float | None:
    return 0.0 if any(check.failed for check in c.checks) else 1.0


def _faithful(c: CaseContext) -> float | None:
    """1 when the judge gives an answer the top of the faithfulness scale (every claim supported)."""
    if not c.answered or FAITHFULNESS not in c.axes or c.scores.get(FAITHFULNESS) is None:
        return None
    return 1.0 if c.scores[FAITHFULNESS] == c.rubric.axis(FAITHFULNESS).scale[-1] else 0.0


def _citation_precision(c: CaseContext) -> float | None:
    if not c.answered or not c.output.citations:
        return None
    problems = citation_problems(c.case, c.output)
    return sum(1 for problem in problems if problem is None) / len(problems)


def _citation_coverage(c: CaseContext) -> float | None:
    covered, load_bearing = coverage_counts(c.output)
    return covered / load_bearing if load_bearing else None


def _abstention_recall(c: CaseContext) -> float | None:
    return None if c.answerable else (1.0 if c.output.abstained else 0.0)


def _over_refusal(c: CaseContext) -> float | None:
    return (1.0 if c.output.abstained else 0.0) if c.answerable else None


def _recall(c: CaseContext) -> float | None:
    return recall_at_k(c.retrieved, c.gold, c.top_k) if c.with_gold else None


def _precision(c: CaseContext) -> float | None:
    return precision_at_k(c.retrieved, c.gold, c.top_k) if c.with_gold else None


def _mrr(c: CaseContext) -> float | None:
    return reciprocal_rank(c.retrieved, c.gold) if c.with_gold else None


def _ndcg(c: CaseContext) -> float | None:
    return ndcg_at_k(c.retrieved, c.gold, c.top_k) if c.with_gold else None


def _multi_step(c: CaseContext) -> float | None:
    return None if c.trajectory is None else (1.0 if c.trajectory.success else 0.0)


BUILTIN_METRICS: tuple[MetricSpec, ...] = (
    MetricSpec(
        "deterministic_pass_rate",
        "share of cases with every deterministic check green",
        _deterministic_pass,
        slice_column="pass",
    ),
    MetricSpec(
        "faithfulness_rate",
        "share of answers whose every claim the judge finds supported",
        _faithful,
        no_cases="no answered case the judge scored",
        judge_axis=FAITHFULNESS,
        tolerance=0.02,
        slice_column="faith",
    ),
    MetricSpec(
        "answer_correctness",
        "mean judged answer correctness, scaled to 0..1",
        lambda c: c.judged(ANSWER_CORRECTNESS),
        no_cases="no case the judge scored on answer_correctness",
        judge_axis=ANSWER_CORRECTNESS,
        tolerance=0.02,
        slice_column="corr",
    ),
    MetricSpec(
        "citation_correctness",
        "mean judged citation correctness (weakest citation vs hardest decoy), 0..1",
        lambda c: c.judged(CITATION_CORRECTNESS),
        no_cases="no case the judge scored on citation_correctness",
        judge_axis=CITATION_CORRECTNESS,
        tolerance=0.02,
    ),
    MetricSpec(
        "citation_precision",
        "share of an answer's citations that resolve to a retrieved passage",
        _citation_precision,
        no_cases="no answer with citations",
        tolerance=0.01,
    ),
    MetricSpec(
        "citation_coverage",
        "share of load-bearing answer sentences that carry a citation",
        _citation_coverage,
        no_cases="no answer with a load-bearing sentence",
        tolerance=0.01,
    ),
    MetricSpec(
        "abstention_recall",
        "share of must-abstain cases refused",
        _abstention_recall,
        no_cases="no must-abstain case",
        tolerance=0.0,
        slice_column="abst",
    ),
    MetricSpec(
        "over_refusal_rate",
        "share of answerable cases refused",
        _over_refusal,
        no_cases="no answerable case",
        higher_is_better=False,
        tolerance=0.0,
        slice_column="refuse",
    ),
    MetricSpec(
        "retrieval_recall_at_k",
        "share of gold sources among the first k retrieved",
        _recall,
        no_cases=_NO_GOLD,
        tolerance=0.02,
        slice_column="recall",
    ),
    MetricSpec(
        "retrieval_precision_at_k",
        "share of the first k retrieved that are gold sources",
        _precision,
        no_cases=_NO_GOLD,
        tolerance=0.02,
    ),
    MetricSpec("mrr", "mean reciprocal rank of the first gold source", _mrr, no_cases=_NO_GOLD, tolerance=0.02),
    MetricSpec("ndcg", "binary-relevance nDCG@k of the retrieved list", _ndcg, no_cases=_NO_GOLD, tolerance=0.02),
    MetricSpec(
        "multi_step_task_success",
        "share of multi-hop / aggregation cases with every checkpoint and the right end state",
        _multi_step,
        no_cases="no multi-hop or aggregation case",
        tolerance=0.0,
        slice_column="multi",
    ),
)

for _spec in BUILTIN_METRICS:
    register_metric(_spec)
