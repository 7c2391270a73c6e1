"""PPI estimates of a run's judge-scored metrics from the human labels on the run's own cases (DESIGN §5).

Which labels count: those on the run's review items, an item being one (case content, output) pair,
so a label on another answer to the same question says nothing here; of them, the latest blind
revision per (item, reviewer) under the run's rubric version, skips left out (`select_labels`, as
agreement and calibration read them); per item and axis the human consensus calibration uses
(`human_consensus` with the same `[calibration] min_reviewers`: the adjudication, else, among at
least that many blind reviewers, the label all gave, else an on-scale median; an item with fewer
reviewers or no consensus has no human value, and is counted).

How a human label becomes a metric value: the consensus scores stand in for the judge's in the very
function that turns a verdict into a case's metric values (`case_values`). So `faithfulness_rate` is
1 only for the top of the faithfulness scale on an answered case, `answer_correctness` and
`citation_correctness` are the score scaled to 0..1, and a metric that does not apply to an output
(faithfulness of a refusal) has no human value on it either.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from qaeval_tui.core.rubric import Rubric
from qaeval_tui.core.running.metrics import METRICS, case_values
from qaeval_tui.core.running.result import CaseResult, RunResult
from qaeval_tui.core.statistics.calibration import human_consensus
from qaeval_tui.core.statistics.label_table import LabelRevision, LabelTable, select_labels
from qaeval_tui.core.statistics.ppi import PPIEstimate, ppi_mean
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.rows import ItemAxis


def judge_metrics() -> tuple[str, ...]:
    """The registered judge-scored metrics, read at each call (a metric registered after import counts)."""
    return tuple(spec.name for spec in METRICS if spec.judge_axis is not None)


@dataclass(frozen=True)
class RunPPI:
    """Per judge-scored metric, its PPI estimate over the run's cases; and which labels were read."""

    estimates: dict[str, PPIEstimate]
    labelled_cases: int
    """Cases of the run with at least one label that counts (before consensus)."""
    labels: dict[str, int | bool]
    """What label selection read and left out, on the run's items (see `Selection.counts`)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "method": "prediction-powered inference (Angelopoulos et al. 2023): judge mean + mean(human - judge)",
            "labelled_cases": self.labelled_cases,
            "labels": dict(self.labels),
            "metrics": {name: estimate.to_json() for name, estimate in self.estimates.items()},
        }


def _human_values(
    result: RunResult, case: CaseResult, rubric: Rubric, consensus: Mapping[str, float]
) -> dict[str, float | None]:
    """The case's metric values had the human consensus been the verdict (None: no human value)."""
    scores: dict[str, int | None] = {axis: int(value) for axis, value in consensus.items()}
    human = case.verdict.model_copy(update={"status": "ok", "scores": scores, "error": None})
    return case_values(case.loaded.case, case.output, case.checks, human, case.trajectory, rubric, result.top_k)


def run_ppi(
    result: RunResult,
    rubric: Rubric,
    labels: Sequence[LabelRevision],
    adjudicated: Mapping[ItemAxis, int | None] | None = None,
    *,
    min_reviewers: int,
    confidence: float = 0.95,
) -> RunPPI:
    """PPI estimates of the run's judge metrics from `labels` (any items; those of the run are used).

    `min_reviewers` is `[calibration] min_reviewers`: the human values are the consensus calibrate reads."""
    items = {case.item_id for case in result.cases}
    selection = select_labels((label for label in labels if label.item_id in items), result.rubric_version)
    table = LabelTable.from_labels(selection.labels, rubric)
    per_item: dict[str, dict[str, float]] = {item: {} for item in table.items}
    for axis in rubric.axes if table.items else ():
        consensus = human_consensus(table, axis, adjudicated, min_reviewers).values
        for item, value in zip(table.items, consensus, strict=True):
            if not np.isnan(value):
                per_item[item][axis.name] = float(value)
    names = judge_metrics()
    judge: dict[str, list[float | None]] = {name: [] for name in names}
    human: dict[str, list[float | None]] = {name: [] for name in names}
    unresolved = dict.fromkeys(names, 0)
    for case in result.cases:
        labelled = case.item_id in per_item
        values = _human_values(result, case, rubric, per_item[case.item_id]) if labelled else {}
        for name in names:
            judge[name].append(case.values.get(name))
            human[name].append(values.get(name))
            if labelled and values.get(name) is None and case.values.get(name) is not None:
                unresolved[name] += 1  # labelled, but no consensus on this metric's axis
    estimates = {}
    for name in names:
        estimate = ppi_mean(judge[name], human[name], confidence=confidence)
        estimates[name] = replace(estimate, excluded={**estimate.excluded, "no_human_consensus": unresolved[name]})
    return RunPPI(estimates, len(per_item), selection.counts())


def run_ppi_from_store(result: RunResult, rubric: Rubric, store: StoreBackend, *, min_reviewers: int) -> RunPPI:
    """`run_ppi` from the labels and adjudications in the store (empty store: no labelled case)."""
    if not store.count("labels"):
        return run_ppi(result, rubric, [], min_reviewers=min_reviewers)
    return run_ppi(result, rubric, store.label_revisions(), store.adjudications(), min_reviewers=min_reviewers)
