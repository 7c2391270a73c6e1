"""The judge's faithfulness outcome as a classifier, against the human consensus (the howdah metrics).

Unfaithful is the positive class. An item counts when its human consensus on `faithfulness` is
resolved: the top of the scale is faithful, anything below it unfaithful. The judge classifies it when
its verdict is faithful or unfaithful; an abstention, an error, a skipped verdict (checks-only) or no
verdict at all leaves it unclassified. Coverage is classified / the items the judge was asked about
(classified, abstained or failed: a skipped verdict or none at all was no question); accuracy, precision,
recall and F1 are conditional on the classified ones. F1 is 2TP / (2TP + FP + FN), so false positives
or negatives with no true positive give 0. A figure whose denominator is 0 is undefined: None (null
in JSON, n/a in text), never 0. Each figure has a 95% interval from MIN_ITEMS_EXACT_INTERVAL items in
its denominator (`OutcomeMetrics.intervals`): Wilson with continuity correction, and for F1 the same
interval for q = TP / (TP + FP + FN) mapped through F1 = 2q / (1 + q) (F1 is increasing in q, so the
interval keeps its coverage; given the items that are not true negatives it is a binomial share).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from qaeval_tui.core.config import CalibrationConfig
from qaeval_tui.core.rubric import Rubric
from qaeval_tui.core.statistics.consensus import human_consensus
from qaeval_tui.core.statistics.intervals import MIN_ITEMS_EXACT_INTERVAL, too_few_items, wilson_cc_interval
from qaeval_tui.core.statistics.label_table import BoolArray, IntArray, LabelTable
from qaeval_tui.core.statistics.verdict_table import VerdictTable
from qaeval_tui.core.store.rows import ItemAxis

FAITHFULNESS = "faithfulness"


@dataclass(frozen=True)
class OutcomeMetrics:
    """Confusion counts of the classified items and the unclassified ones by cause."""

    tp: int
    fp: int
    fn: int
    tn: int
    abstained: int = 0
    errors: int = 0
    skipped: int = 0
    no_verdict: int = 0

    @property
    def classified(self) -> int:
        return self.tp + self.fp + self.fn + self.tn

    @property
    def total(self) -> int:
        return self.classified + self.abstained + self.errors + self.skipped + self.no_verdict

    @property
    def asked(self) -> int:
        """Items the judge was asked about: classified, abstained or failed (not skipped, not without a verdict)."""
        return self.classified + self.abstained + self.errors

    @property
    def coverage(self) -> float | None:
        return _ratio(self.classified, self.asked)

    @property
    def accuracy(self) -> float | None:
        return _ratio(self.tp + self.tn, self.classified)

    @property
    def precision(self) -> float | None:
        return _ratio(self.tp, self.tp + self.fp)

    @property
    def recall(self) -> float | None:
        return _ratio(self.tp, self.tp + self.fn)

    @property
    def f1(self) -> float | None:
        return _ratio(2 * self.tp, 2 * self.tp + self.fp + self.fn)

    def intervals(self) -> dict[str, tuple[float, float] | None]:
        """95% intervals (Wilson with continuity correction; F1 through its monotone map from the share of
        true positives among the items that are not true negatives), None below MIN_ITEMS_EXACT_INTERVAL."""
        ratios = {
            "coverage": (self.classified, self.asked),
            "accuracy": (self.tp + self.tn, self.classified),
            "precision": (self.tp, self.tp + self.fp),
            "recall": (self.tp, self.tp + self.fn),
            "f1": (self.tp, self.tp + self.fp + self.fn),
        }
        out: dict[str, tuple[float, float] | None] = {}
        for name, (hits, n) in ratios.items():
            span = wilson_cc_interval(hits, n) if n >= MIN_ITEMS_EXACT_INTERVAL else None
            if span is None:
                out[name] = None
                continue
            low, high = span
            # F1 = 2TP / (2TP + FP + FN) = 2q / (1 + q), q = TP / (TP + FP + FN): increasing in q.
            out[name] = (2 * low / (1 + low), 2 * high / (1 + high)) if name == "f1" else (low, high)
        return out

    def to_json(self) -> dict[str, Any]:
        intervals = self.intervals()
        return {
            "positive": "unfaithful",
            "n": self.total,
            "asked": self.asked,
            "classified": self.classified,
            "coverage": self.coverage,
            "accuracy": self.accuracy,
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "confusion": {"tp": self.tp, "fp": self.fp, "fn": self.fn, "tn": self.tn},
            "unclassified": {
                "abstained": self.abstained,
                "error": self.errors,
                "skipped": self.skipped,
                "no_verdict": self.no_verdict,
            },
            "ci": {name: None if span is None else list(span) for name, span in intervals.items()},
            "ci_reason": {
                name: too_few_items(_denominators(self)[name], MIN_ITEMS_EXACT_INTERVAL) if span is None else None
                for name, span in intervals.items()
            },
        }


def _denominators(metrics: OutcomeMetrics) -> dict[str, int]:
    return {
        "coverage": metrics.asked,
        "accuracy": metrics.classified,
        "precision": metrics.tp + metrics.fp,
        "recall": metrics.tp + metrics.fn,
        "f1": metrics.tp + metrics.fp + metrics.fn,
    }


def _ratio(numerator: int, denominator: int) -> float | None:
    return None if denominator == 0 else numerator / denominator


def outcome_metrics(
    table: LabelTable,
    verdicts: VerdictTable,
    rubric: Rubric,
    bar: CalibrationConfig,
    adjudicated: Mapping[ItemAxis, int | None] | None = None,
    aligned: tuple[IntArray, BoolArray] | None = None,
) -> OutcomeMetrics | None:
    """The classification figures over the items with a human consensus; None without a faithfulness axis.

    `aligned`: `verdicts.align(table.items)`, when the caller has it already."""
    if FAITHFULNESS not in rubric.axis_names:
        return None
    axis = rubric.axis(FAITHFULNESS)
    consensus = human_consensus(table, axis, adjudicated, bar.min_reviewers)
    rows, found = aligned if aligned is not None else verdicts.align(table.items)
    judge = verdicts.scores_for(table.items, FAITHFULNESS, (rows, found))
    top = float(axis.scale[-1])
    statuses = np.asarray(verdicts.statuses or ("ok",) * len(verdicts.items), dtype=object)
    status = np.full(len(table.items), "", dtype=object)
    status[found] = statuses[rows[found]]
    counted = consensus.resolved
    human_positive = consensus.values < top
    judged = counted & found & (status == "ok") & ~np.isnan(judge)
    judge_positive = judge < top

    def count(mask: np.ndarray[Any, Any]) -> int:
        return int(mask.sum())

    return OutcomeMetrics(
        tp=count(judged & human_positive & judge_positive),
        fp=count(judged & ~human_positive & judge_positive),
        fn=count(judged & human_positive & ~judge_positive),
        tn=count(judged & ~human_positive & ~judge_positive),
        abstained=count(counted & found & (status == "ok") & np.isnan(judge)),
        errors=count(counted & found & (status == "error")),
        skipped=count(counted & found & (status == "skipped")),
        no_verdict=count(counted & ~found),
    )


def outcome_lines(document: Mapping[str, Any] | None) -> list[str]:
    """The figures of `OutcomeMetrics.to_json()` as text lines; an undefined figure reads n/a, never 0."""
    if document is None:
        return []

    def shown(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.3f}"

    def with_ci(name: str) -> str:
        span = document.get("ci", {}).get(name)
        return shown(document[name]) + ("" if span is None else f" [{span[0]:.2f}, {span[1]:.2f}]")

    confusion, missing = document["confusion"], document["unclassified"]
    return [
        f"Faithfulness outcome vs humans (unfaithful is positive; 95% CIs): coverage {with_ci('coverage')} "
        f"({document['classified']}/{document['asked']} the judge was asked about classified) · accuracy "
        f"{with_ci('accuracy')} · precision {with_ci('precision')} · recall {with_ci('recall')} · F1 {with_ci('f1')}",
        f"  TP {confusion['tp']} · FP {confusion['fp']} · FN {confusion['fn']} · TN {confusion['tn']} · "
        f"unclassified: {missing['abstained']} abstained, {missing['error']} error, {missing['skipped']} skipped, "
        f"{missing['no_verdict']} no verdict",
    ]
