"""The judge's faithfulness outcome as a classifier, against the human consensus (the howdah metrics).

Unfaithful is the positive class. An item counts when its human consensus on `faithfulness` is
resolved: the top of the scale is faithful, anything below it unfaithful. The judge classifies it when
its verdict is faithful or unfaithful; an abstention, an error, a skipped verdict (checks-only) or no
verdict at all leaves it unclassified. Coverage is classified / counted items; accuracy, precision,
recall and F1 are conditional on the classified ones. F1 is 2TP / (2TP + FP + FN), so false positives
or negatives with no true positive give 0. A figure whose denominator is 0 is undefined: None (null
in JSON, n/a in text), never 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from qaeval_tui.core.config import CalibrationConfig
from qaeval_tui.core.rubric import Rubric
from qaeval_tui.core.statistics.consensus import human_consensus
from qaeval_tui.core.statistics.label_table import LabelTable
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
    def coverage(self) -> float | None:
        return _ratio(self.classified, self.total)

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

    def to_json(self) -> dict[str, Any]:
        return {
            "positive": "unfaithful",
            "n": self.total,
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
        }


def _ratio(numerator: int, denominator: int) -> float | None:
    return None if denominator == 0 else numerator / denominator


def outcome_metrics(
    table: LabelTable,
    verdicts: VerdictTable,
    rubric: Rubric,
    bar: CalibrationConfig,
    adjudicated: Mapping[ItemAxis, int | None] | None = None,
) -> OutcomeMetrics | None:
    """The classification figures over the items with a human consensus; None without a faithfulness axis."""
    if FAITHFULNESS not in rubric.axis_names:
        return None
    axis = rubric.axis(FAITHFULNESS)
    consensus = human_consensus(table, axis, adjudicated, bar.min_reviewers)
    rows, found = verdicts.align(table.items)
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

    confusion, missing = document["confusion"], document["unclassified"]
    return [
        f"Faithfulness outcome vs humans (unfaithful is positive): coverage {shown(document['coverage'])} "
        f"({document['classified']}/{document['n']} classified) · accuracy {shown(document['accuracy'])} · "
        f"precision {shown(document['precision'])} · recall {shown(document['recall'])} · F1 {shown(document['f1'])}",
        f"  TP {confusion['tp']} · FP {confusion['fp']} · FN {confusion['fn']} · TN {confusion['tn']} · "
        f"unclassified: {missing['abstained']} abstained, {missing['error']} error, {missing['skipped']} skipped, "
        f"{missing['no_verdict']} no verdict",
    ]
