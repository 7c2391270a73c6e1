"""Judge versus human, per axis (DESIGN §5): can this judge be trusted on this axis?

The human side of each item is its consensus (`consensus.human_consensus`): adjudicated, else
unanimous or the median on a scale point among at least `min_reviewers` blind reviewers, else
unresolved (reviewers split, or one reviewer only): left out of every figure, counted, and listed.
A verdict (TRUSTED / RETUNE / INSUFFICIENT) is decided on the intervals (`verdict`): exact
agreement with a Wilson interval with continuity correction, and chance-corrected agreement as
alpha with the judge as a coder with a BCa bootstrap interval (`alpha_interval`); below the sizes
where those intervals were shown to hold, none is printed. It is bound to one judge config hash and
one rubric version; a calibration of another judge says nothing about this one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from qaeval_tui.core.config import CalibrationConfig
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.guideline_sections import cited_section
from qaeval_tui.core.rubric import Axis, Rubric
from qaeval_tui.core.statistics import intervals, stats
from qaeval_tui.core.statistics.alpha_interval import METHOD, MIN_ITEMS_ALPHA_INTERVAL, alpha_interval
from qaeval_tui.core.statistics.anytime import anytime_lower_bound
from qaeval_tui.core.statistics.calibration_outcomes import OutcomeMetrics, outcome_metrics
from qaeval_tui.core.statistics.consensus import (
    ADJUDICATED,
    MEDIAN,
    NO_HUMAN_VALUE,
    ONE_REVIEWER,
    TOO_FEW_REVIEWERS,
    UNANIMOUS,
    UNRESOLVED,
    Consensus,
    human_consensus,
)
from qaeval_tui.core.statistics.human_bar import HumanBar, human_bar
from qaeval_tui.core.statistics.label_table import BoolArray, IntArray, LabelRevision, LabelTable, Selection
from qaeval_tui.core.statistics.verdict import (
    REASON_NO_PAIRS,
    RULE_POINT_NOTE,
    Evidence,
    Verdict,
    constant_judge_warning,
    decide,
    overall_verdict,
)
from qaeval_tui.core.statistics.verdict_table import VerdictTable
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.rows import ItemAxis

__all__ = [
    "ADJUDICATED", "EXIT_CODES", "MEDIAN", "NO_HUMAN_VALUE", "ONE_REVIEWER", "TOO_FEW_REVIEWERS", "UNANIMOUS",
    "UNRESOLVED", "AxisCalibration", "CalibrationReport", "Consensus", "Verdict", "adjudicate", "axis_calibration",
    "calibrate", "constant_judge_warning", "human_consensus",
]  # fmt: skip

EXIT_CODES: dict[Verdict, int] = {"TRUSTED": 0, "RETUNE": 1, "INSUFFICIENT": 3}
REASON_NOMINAL = "not defined on a nominal axis (its values have no order or distance)"


@dataclass(frozen=True)
class AxisCalibration:
    axis: str
    level: str
    scale: tuple[int, ...]
    n: int
    exact: float | None
    exact_ci: tuple[float, float] | None
    within_one: float | None
    mae: float | None
    bias: float | None
    kappa: float | None
    kappa_quadratic: float | None
    alpha: stats.AlphaEstimate | None
    confusion: list[list[int]]
    verdict: Verdict
    verdict_reason: str
    warnings: tuple[str, ...]
    labels_needed: int
    consensus_counts: dict[str, int]
    unresolved_items: tuple[str, ...]
    excluded: dict[str, int]
    exact_ci_reason: str | None = None
    alpha_ci: tuple[float, float] | None = None
    alpha_ci_reason: str | None = None
    decided_by: str = ""
    more_items_to_decide: int | None = None
    one_reviewer_items: tuple[str, ...] = field(default=())
    human: HumanBar | None = None
    exact_anytime: float | None = None

    def to_json(self) -> dict[str, Any]:
        nominal = self.level == "nominal"

        def why(value: object, nominal_too: bool = False) -> str | None:
            if self.n == 0:
                return REASON_NO_PAIRS
            if nominal_too and nominal:
                return REASON_NOMINAL
            return None if value is not None else stats.REASON_KAPPA_NO_VARIATION

        alpha = self.alpha
        return {
            "n": self.n,
            "exact": self.exact,
            "exact_ci": list(self.exact_ci) if self.exact_ci else None,
            "within_one": self.within_one,
            "mae": self.mae,
            "bias": self.bias,
            "kappa": self.kappa,
            "kappa_quadratic": self.kappa_quadratic,
            "alpha": alpha.value if alpha else None,
            "confusion": {"labels": list(self.scale), "rows": "human", "columns": "judge", "counts": self.confusion},
            "verdict": self.verdict,
            "verdict_reason": self.verdict_reason,
            "warnings": list(self.warnings),
            "reasons": {
                "exact": REASON_NO_PAIRS if self.n == 0 else None,
                "exact_ci": REASON_NO_PAIRS if self.n == 0 else self.exact_ci_reason if self.exact_ci is None else None,
                "within_one": why(self.within_one, True) if self.within_one is None else None,
                "mae": why(self.mae, True) if self.mae is None else None,
                "bias": why(self.bias, True) if self.bias is None else None,
                "kappa": why(self.kappa) if self.kappa is None else None,
                "kappa_quadratic": why(self.kappa_quadratic, True) if self.kappa_quadratic is None else None,
                "alpha": (alpha.reason if alpha else REASON_NO_PAIRS) if not alpha or alpha.value is None else None,
                "alpha_ci": self.alpha_ci_reason if self.alpha_ci is None else None,
            },
            "exact_ci_reason": self.exact_ci_reason if self.exact_ci is None else None,
            "alpha_ci": list(self.alpha_ci) if self.alpha_ci else None,
            "decided_by": self.decided_by,
            "more_items_to_decide": self.more_items_to_decide,
            "one_reviewer_items": list(self.one_reviewer_items),
            "exact_anytime_lower": self.exact_anytime,
            "human_bar": None if self.human is None else self.human.to_json(),
            "labels_needed": self.labels_needed,
            "level": self.level,
            "scale": list(self.scale),
            "consensus": self.consensus_counts,
            "unresolved_items": list(self.unresolved_items),
            "excluded": self.excluded,
        }


@dataclass(frozen=True)
class CalibrationReport:
    judge_config_hash: str
    judge_name: str
    rubric_version: str
    verdict: Verdict
    axes: dict[str, AxisCalibration]
    bar: CalibrationConfig
    selection: dict[str, int | bool]
    verdict_counts: dict[str, int]
    source: str
    outcomes: OutcomeMetrics | None = None
    """The faithfulness outcome as a classifier against the humans (None: the rubric has no faithfulness)."""

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.verdict]

    def to_json(self) -> dict[str, Any]:
        return {
            "judge_config_hash": self.judge_config_hash,
            "judge_name": self.judge_name,
            "rubric_version": self.rubric_version,
            "verdict": self.verdict,
            "bar": {
                "min_exact": self.bar.min_exact,
                "min_n": self.bar.min_n,
                "target_half_width": self.bar.target_half_width,
                "rule": self.bar.rule,
                "min_reviewers": self.bar.min_reviewers,
                "chance_floor": self.bar.chance_floor,
                "anytime": self.bar.anytime,
                "human_bar": self.bar.human_bar,
                "human_margin": self.bar.human_margin,
            },
            "rule_note": RULE_POINT_NOTE if self.bar.rule == "point" else None,
            "intervals": {
                "confidence": 0.95,
                "exact": "Wilson score with continuity correction",
                "exact_min_items": intervals.MIN_ITEMS_EXACT_INTERVAL,
                "alpha": METHOD,
                "alpha_min_items": MIN_ITEMS_ALPHA_INTERVAL,
                "replicates": self.bar.bootstrap_replicates,
                "seed": self.bar.seed,
            },
            "source": self.source,
            "labels": self.selection,
            "verdicts": self.verdict_counts,
            "axes": {name: axis.to_json() for name, axis in self.axes.items()},
            "faithfulness_outcome": None if self.outcomes is None else self.outcomes.to_json(),
        }


def axis_calibration(
    table: LabelTable,
    verdicts: VerdictTable,
    axis: Axis,
    bar: CalibrationConfig,
    adjudicated: Mapping[ItemAxis, int | None] | None = None,
    aligned: tuple[IntArray, BoolArray] | None = None,
) -> AxisCalibration:
    consensus = human_consensus(table, axis, adjudicated, bar.min_reviewers)
    aligned = aligned if aligned is not None else verdicts.align(table.items)
    judge = verdicts.scores_for(table.items, axis.name, aligned)
    has_verdict = aligned[1]
    resolved = consensus.resolved
    pair = resolved & ~np.isnan(judge)
    human, machine = consensus.values[pair], judge[pair]
    n = int(pair.sum())
    scale = np.asarray(axis.scale, dtype=np.float64)
    confusion = stats.confusion_matrix(human, machine, axis.scale) if n else np.zeros((scale.size,) * 2, np.int64)
    exact = within_one = mae = bias = kappa = kappa_q = None
    exact_ci: tuple[float, float] | None = None
    exact_ci_reason: str | None = None
    alpha = None
    alpha_ci: tuple[float, float] | None = None
    alpha_ci_reason: str | None = None
    if n:
        hits = int((human == machine).sum())
        exact = hits / n
        if n >= intervals.MIN_ITEMS_EXACT_INTERVAL:
            exact_ci = intervals.wilson_cc_interval(hits, n)
        else:
            exact_ci_reason = intervals.too_few_items(n, intervals.MIN_ITEMS_EXACT_INTERVAL)
        kappa = stats.cohen_kappa(human, machine, axis.scale)
        with_interval = alpha_interval(
            np.vstack([machine, human]), axis.level, axis.scale, replicates=bar.bootstrap_replicates, seed=bar.seed
        )
        alpha, alpha_ci, alpha_ci_reason = with_interval.estimate, with_interval.ci, with_interval.ci_reason
        if axis.level != "nominal":
            steps = np.abs(np.searchsorted(scale, machine) - np.searchsorted(scale, human))
            within_one = float(np.mean(steps <= 1))
            mae = float(np.mean(np.abs(machine - human)))
            bias = float(np.mean(machine - human))
            kappa_q = stats.cohen_kappa(human, machine, axis.scale, "quadratic")
    exact_anytime = anytime_lower_bound(int((human == machine).sum()), n, bar.min_exact) if n else None
    constant = constant_judge_warning([int(v) for v in machine], n)
    # The human bar compares the judge with the reviewers themselves, on items the judge scored.
    reviewers = human_bar(table.reliability(axis.name), judge) if n else None
    evidence = Evidence(
        n,
        exact,
        exact_ci,
        alpha.value if alpha else None,
        alpha_ci,
        alpha_ci_reason,
        n,
        constant,
        exact_anytime=exact_anytime,
        human_gap=None if reviewers is None else reviewers.gap,
        human_gap_ci=None if reviewers is None else reviewers.gap_ci,
        human_reason=None if reviewers is None else reviewers.reason,
        human_items=0 if reviewers is None else reviewers.n_items,
    )
    decision = decide(evidence, bar)
    reason = decision.reason
    one_reviewer = _items_where(table.items, consensus.source == ONE_REVIEWER)
    qualifies = decision.verdict != "INSUFFICIENT" and decision.decided_by != "constant_judge"
    warnings = [constant] if constant is not None and qualifies else []
    if one_reviewer:
        warnings.append(f"{len(one_reviewer)} item(s) with one reviewer only: unresolved, offered for more labels")
    p = exact if exact is not None else 0.5
    needed = max(0, intervals.half_width_n(p, bar.target_half_width) - n)
    counts = np.bincount(consensus.source, minlength=7)
    return AxisCalibration(
        axis=axis.name,
        level=axis.level,
        scale=axis.scale,
        n=n,
        exact=exact,
        exact_ci=exact_ci,
        within_one=within_one,
        mae=mae,
        bias=bias,
        kappa=kappa,
        kappa_quadratic=kappa_q,
        alpha=alpha,
        confusion=[[int(c) for c in row] for row in confusion],
        verdict=decision.verdict,
        verdict_reason=reason,
        warnings=tuple(warnings),
        labels_needed=needed,
        consensus_counts={
            "adjudicated": int(counts[ADJUDICATED]),
            "unanimous": int(counts[UNANIMOUS]),
            "median": int(counts[MEDIAN]),
            "unresolved": int(counts[UNRESOLVED]),
            "one_reviewer": int(counts[ONE_REVIEWER]),
            "too_few_reviewers": int(counts[TOO_FEW_REVIEWERS]),
            "no_human_value": int(counts[NO_HUMAN_VALUE]),
        },
        unresolved_items=_items_where(table.items, consensus.source == UNRESOLVED),
        excluded={
            "no_judge_verdict": int((resolved & ~has_verdict).sum()),
            "judge_cant_judge_or_error": int((resolved & has_verdict & np.isnan(judge)).sum()),
        },
        exact_ci_reason=exact_ci_reason,
        alpha_ci=alpha_ci,
        alpha_ci_reason=alpha_ci_reason,
        decided_by=decision.decided_by,
        more_items_to_decide=decision.more_items,
        one_reviewer_items=one_reviewer,
        human=reviewers,
        exact_anytime=exact_anytime,
    )


def _items_where(items: tuple[str, ...], mask: BoolArray) -> tuple[str, ...]:
    """The items where `mask` holds, reading only those (an object array of all of them reads every one)."""
    return tuple(map(items.__getitem__, np.flatnonzero(mask).tolist()))


def calibrate(
    table: LabelTable,
    verdicts: VerdictTable,
    rubric: Rubric,
    bar: CalibrationConfig,
    *,
    adjudicated: Mapping[ItemAxis, int | None] | None = None,
    selection: Selection[LabelRevision] | None = None,
    source: str = "",
) -> CalibrationReport:
    """Judge-versus-human figures and a verdict for every rubric axis, bound to `verdicts.config_hash`."""
    aligned = verdicts.align(table.items)
    axes = {axis.name: axis_calibration(table, verdicts, axis, bar, adjudicated, aligned) for axis in rubric.axes}
    overall = overall_verdict(axis.verdict for axis in axes.values())
    return CalibrationReport(
        judge_config_hash=verdicts.config_hash,
        judge_name=verdicts.judge_name,
        rubric_version=rubric.version,
        verdict=overall,
        axes=axes,
        bar=bar,
        selection=selection.counts() if selection is not None else {"used": int(table.item_codes.size)},
        verdict_counts=verdicts.counts,
        source=source,
        outcomes=outcome_metrics(table, verdicts, rubric, bar, adjudicated, aligned),
    )


def adjudicate(
    store: StoreBackend,
    rubric: Rubric,
    item_id: str,
    axis: str,
    score: int | None,
    reason: str,
    adjudicator: str,
    cites: str | None = None,
) -> None:
    """Record a curator's ruling on one (item, axis); it becomes the consensus, superseding earlier rulings.

    `cites` names the guideline section the ruling rests on (`core.guideline_sections`), or None."""
    if store.review_item(item_id) is None:
        raise UsageError(f"no review item {item_id!r} in {store.path}")
    if axis not in rubric.axis_names:
        raise UsageError(f"unknown axis {axis!r}; the rubric has {list(rubric.axis_names)}")
    scale = rubric.axis(axis).scale
    if score is not None and score not in scale:
        raise UsageError(f"{score!r} is not on the {axis} scale {list(scale)}")
    if not reason.strip() or not adjudicator.strip():
        raise UsageError("an adjudication needs a reason and the adjudicator's name")
    if cites is not None:
        cites = cited_section(rubric, axis, cites).id
    store.insert_adjudication(item_id, axis, score, reason, adjudicator, cites)
