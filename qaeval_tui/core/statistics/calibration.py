"""Judge versus human, per axis (DESIGN §5): can this judge be trusted on this axis?

The human side of each item is its consensus: the adjudicated label where one exists, else the
label every blind reviewer gave, else their median when it is a scale point (ordinal and interval
axes only), else the item is *unresolved*: left out of every figure, counted, and listed for
adjudication. A verdict (TRUSTED / RETUNE / INSUFFICIENT) is bound to one judge config hash and
one rubric version; a calibration of another judge says nothing about this one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from qaeval_tui.core.config import CalibrationConfig
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.rubric import Axis, Rubric
from qaeval_tui.core.statistics import intervals, stats
from qaeval_tui.core.statistics.label_table import BoolArray, FloatArray, IntArray, LabelRevision, LabelTable, Selection
from qaeval_tui.core.statistics.verdict_table import VerdictTable
from qaeval_tui.core.store.rows import ItemAxis
from qaeval_tui.core.store.sqlite import Store

Verdict = Literal["TRUSTED", "RETUNE", "INSUFFICIENT"]
EXIT_CODES: dict[Verdict, int] = {"TRUSTED": 0, "RETUNE": 1, "INSUFFICIENT": 3}

# Consensus sources, per item.
NO_HUMAN_VALUE, ADJUDICATED, UNANIMOUS, MEDIAN, UNRESOLVED = range(5)
REASON_NO_PAIRS = "no item has both a human consensus and a judge score on this axis"
REASON_NOMINAL = "not defined on a nominal axis (its values have no order or distance)"


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
    table: LabelTable, axis: Axis, adjudicated: Mapping[ItemAxis, int | None] | None = None
) -> Consensus:
    """The human consensus on `axis` for every item of the table (vectorized over items)."""
    matrix = table.reliability(axis.name)
    present = ~np.isnan(matrix)
    count = present.sum(axis=0)
    low = np.where(present, matrix, np.inf).min(axis=0)
    high = np.where(present, matrix, -np.inf).max(axis=0)
    values = np.full(len(table.items), np.nan)
    source = np.full(len(table.items), NO_HUMAN_VALUE, dtype=np.int64)
    unanimous = (count >= 1) & (low == high)
    values[unanimous] = low[unanimous]
    source[unanimous] = UNANIMOUS
    split = (count >= 2) & ~unanimous
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
                "exact_ci": REASON_NO_PAIRS if self.n == 0 else None,
                "within_one": why(self.within_one, True) if self.within_one is None else None,
                "mae": why(self.mae, True) if self.mae is None else None,
                "bias": why(self.bias, True) if self.bias is None else None,
                "kappa": why(self.kappa) if self.kappa is None else None,
                "kappa_quadratic": why(self.kappa_quadratic, True) if self.kappa_quadratic is None else None,
                "alpha": (alpha.reason if alpha else REASON_NO_PAIRS) if not alpha or alpha.value is None else None,
            },
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
            },
            "source": self.source,
            "labels": self.selection,
            "verdicts": self.verdict_counts,
            "axes": {name: axis.to_json() for name, axis in self.axes.items()},
        }


def _verdict(n: int, exact: float | None, bar: CalibrationConfig) -> tuple[Verdict, str]:
    if n < bar.min_n or exact is None:
        return "INSUFFICIENT", f"n = {n} is below the minimum of {bar.min_n} judged items with a human consensus"
    if exact >= bar.min_exact:
        return "TRUSTED", f"exact agreement {exact:.3f} >= {bar.min_exact:.2f} with n = {n}"
    return "RETUNE", f"exact agreement {exact:.3f} < {bar.min_exact:.2f} with n = {n}"


def constant_judge_warning(machine: FloatArray, n: int) -> str | None:
    """A judge that gave every paired item the same score tells no item apart, whatever its agreement.

    Exact agreement is then just the share of items humans scored the same way: a judge that
    always says "faithful" agrees 0.78 with humans who say so 78% of the time (kappa 0). The
    verdict still follows the configured bar; this says what the number means.
    """
    if n < 2 or np.unique(machine).size != 1:
        return None
    value = int(machine[0])
    return f"the judge gave all {n} items a {value}: its agreement only mirrors how often humans gave {value}"


def axis_calibration(
    table: LabelTable,
    verdicts: VerdictTable,
    axis: Axis,
    bar: CalibrationConfig,
    adjudicated: Mapping[ItemAxis, int | None] | None = None,
    aligned: tuple[IntArray, BoolArray] | None = None,
) -> AxisCalibration:
    consensus = human_consensus(table, axis, adjudicated)
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
    exact_ci = None
    alpha = None
    if n:
        hits = int((human == machine).sum())
        exact = hits / n
        exact_ci = intervals.wilson_interval(hits, n)
        kappa = stats.cohen_kappa(human, machine, axis.scale)
        alpha = stats.alpha(np.vstack([machine, human]), axis.level, axis.scale)
        if axis.level != "nominal":
            steps = np.abs(np.searchsorted(scale, machine) - np.searchsorted(scale, human))
            within_one = float(np.mean(steps <= 1))
            mae = float(np.mean(np.abs(machine - human)))
            bias = float(np.mean(machine - human))
            kappa_q = stats.cohen_kappa(human, machine, axis.scale, "quadratic")
    verdict, reason = _verdict(n, exact, bar)
    warning = constant_judge_warning(machine, n) if verdict != "INSUFFICIENT" else None
    if warning is not None:
        reason = f"{reason}; but {warning}"
    p = exact if exact is not None else 0.5
    needed = max(0, intervals.half_width_n(p, bar.target_half_width) - n)
    counts = np.bincount(consensus.source, minlength=5)
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
        verdict=verdict,
        verdict_reason=reason,
        warnings=(warning,) if warning else (),
        labels_needed=needed,
        consensus_counts={
            "adjudicated": int(counts[ADJUDICATED]),
            "unanimous": int(counts[UNANIMOUS]),
            "median": int(counts[MEDIAN]),
            "unresolved": int(counts[UNRESOLVED]),
            "no_human_value": int(counts[NO_HUMAN_VALUE]),
        },
        unresolved_items=tuple(np.asarray(table.items, dtype=object)[consensus.source == UNRESOLVED].tolist()),
        excluded={
            "no_judge_verdict": int((resolved & ~has_verdict).sum()),
            "judge_cant_judge_or_error": int((resolved & has_verdict & np.isnan(judge)).sum()),
        },
    )


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
    states = {axis.verdict for axis in axes.values()}
    overall: Verdict = "RETUNE" if "RETUNE" in states else "INSUFFICIENT" if "INSUFFICIENT" in states else "TRUSTED"
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
    )


def adjudicate(
    store: Store, rubric: Rubric, item_id: str, axis: str, score: int | None, reason: str, adjudicator: str
) -> None:
    """Record a curator's ruling on one (item, axis); it becomes the consensus, superseding earlier rulings."""
    if store.review_item(item_id) is None:
        raise UsageError(f"no review item {item_id!r} in {store.path}")
    if axis not in rubric.axis_names:
        raise UsageError(f"unknown axis {axis!r}; the rubric has {list(rubric.axis_names)}")
    scale = rubric.axis(axis).scale
    if score is not None and score not in scale:
        raise UsageError(f"{score!r} is not on the {axis} scale {list(scale)}")
    if not reason.strip() or not adjudicator.strip():
        raise UsageError("an adjudication needs a reason and the adjudicator's name")
    store.insert_adjudication(item_id, axis, score, reason, adjudicator)
