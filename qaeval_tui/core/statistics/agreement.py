"""Inter-rater agreement per axis (DESIGN §5): alpha with a seeded BCa bootstrap interval where one
holds (`alpha_interval`: from 40 pairable items; below, the state says so), raw agreement, the label
distribution, and pairwise reviewer agreement.

Each axis is measured at its own level of measurement over its own scale (the value domain is
always passed explicitly, so an unused scale point still counts). An undefined figure is a state
with a reason, and `null` in JSON, never a number.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from qaeval_tui.core.rubric import Rubric
from qaeval_tui.core.statistics import stats
from qaeval_tui.core.statistics.alpha_interval import METHOD, MIN_ITEMS_ALPHA_INTERVAL, alpha_interval
from qaeval_tui.core.statistics.label_table import LabelRevision, LabelTable, Selection

REASON_NO_PAIRS = "no item has two values on this axis"


@dataclass(frozen=True)
class AxisAgreement:
    axis: str
    level: str
    scale: tuple[int, ...]
    alpha: stats.AlphaResult
    n_items: int  # items with at least one value on this axis
    n_labels: int  # values (labels that scored this axis)
    n_cant_judge: int
    raw_agreement: float | None
    distribution: dict[int, int]
    pairwise: tuple[stats.PairAgreement, ...]
    kappa_weights: str | None

    def to_json(self) -> dict[str, Any]:
        a = self.alpha
        return {
            "alpha": a.value,
            "state": a.state,
            "reason": a.reason,
            "ci": list(a.ci) if a.ci is not None else None,
            "ci_reason": a.ci_reason,
            "n_items": self.n_items,
            "n_pairable": a.estimate.n_units_pairable,
            "raw_agreement": self.raw_agreement,
            "raw_agreement_reason": None if self.raw_agreement is not None else REASON_NO_PAIRS,
            "distribution": {str(value): count for value, count in self.distribution.items()},
            "level": self.level,
            "scale": list(self.scale),
            "n_labels": self.n_labels,
            "n_cant_judge": self.n_cant_judge,
            "n_pairable_values": a.estimate.n_pairable_values,
            "bootstrap": {
                "replicates": a.replicates,
                "seed": a.seed,
                "confidence": a.confidence,
                "replicates_undefined": a.n_replicates_dropped,
                "method": METHOD,
                "min_items": MIN_ITEMS_ALPHA_INTERVAL,
            },
        }


@dataclass(frozen=True)
class AgreementReport:
    rubric_version: str
    reviewers: tuple[str, ...]
    n_items: int
    replicates: int
    seed: int
    confidence: float
    axes: dict[str, AxisAgreement]
    selection: dict[str, int | bool]
    source: str

    def to_json(self) -> dict[str, Any]:
        return {
            "rubric_version": self.rubric_version,
            "source": self.source,
            "reviewers": list(self.reviewers),
            "n_items": self.n_items,
            "bootstrap": {"replicates": self.replicates, "seed": self.seed, "confidence": self.confidence},
            "labels": self.selection,
            "axes": {name: axis.to_json() for name, axis in self.axes.items()},
            "pairwise": {
                name: [
                    {
                        "reviewers": [pair.coder_a, pair.coder_b],
                        "n_common": pair.n_common,
                        "raw_agreement": pair.raw_agreement,
                        "kappa": pair.kappa,
                        "kappa_weights": axis.kappa_weights,
                        "reason": pair.kappa_reason,
                    }
                    for pair in axis.pairwise
                ]
                for name, axis in self.axes.items()
            },
        }


def axis_agreement(
    table: LabelTable,
    axis: str,
    level: str,
    scale: tuple[int, ...],
    *,
    replicates: int,
    seed: int,
    confidence: float = 0.95,
) -> AxisAgreement:
    """Agreement on one axis among the table's reviewers."""
    column = table.axis_index(axis)
    reliability = table.reliability(axis)
    present = ~np.isnan(table.scores[:, column])
    weights: stats.KappaWeights = None if level == "nominal" else "quadratic"
    return AxisAgreement(
        axis=axis,
        level=level,
        scale=scale,
        alpha=alpha_interval(reliability, level, scale, replicates=replicates, seed=seed, confidence=confidence),
        n_items=int(np.count_nonzero(np.bincount(table.item_codes[present], minlength=len(table.items)))),
        n_labels=int(present.sum()),
        n_cant_judge=int(table.cant_judge[:, column].sum()),
        raw_agreement=stats.raw_agreement(reliability),
        distribution=stats.distribution(reliability, scale),
        pairwise=tuple(stats.pairwise_agreement(reliability, table.reviewers, labels=scale, weights=weights)),
        kappa_weights=weights,
    )


def agreement_report(
    table: LabelTable,
    rubric: Rubric,
    *,
    replicates: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    selection: Selection[LabelRevision] | None = None,
    source: str = "",
) -> AgreementReport:
    """Agreement on every rubric axis; `selection` (which revisions were read) is carried into the report."""
    axes = {
        axis.name: axis_agreement(
            table, axis.name, axis.level, axis.scale, replicates=replicates, seed=seed, confidence=confidence
        )
        for axis in rubric.axes
    }
    return AgreementReport(
        rubric_version=rubric.version,
        reviewers=table.reviewers,
        n_items=len(table.items),
        replicates=replicates,
        seed=seed,
        confidence=confidence,
        axes=axes,
        selection=selection.counts() if selection is not None else {"used": int(table.item_codes.size)},
        source=source,
    )
