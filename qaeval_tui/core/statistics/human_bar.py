"""The human bar: does the judge agree with the reviewers at least as well as they agree with each other?

In the spirit of the alternative annotator test for LLM judges (Calderon, Reichart and Dror, "The
Alternative Annotator Test for LLM-as-a-Judge", ACL 2025): a judge can stand in for a reviewer when,
leaving each reviewer out in turn, it agrees with the remaining reviewers at least as often as the
left-out reviewer does, up to a margin. Per item with k >= 2 blind reviewer scores and a judge
score, with c_v reviewers giving value v and c_j giving the judge's value:

    judge agreement  = mean over reviewers r of the share of the others that the judge matches = c_j / k
    human agreement  = mean over reviewers r of the share of the others that r matches
                     = sum_v c_v (c_v - 1) / (k (k - 1))          (the item's pairwise agreement)
    gap              = judge agreement - human agreement            (in [-1, 1])

The figure is the mean gap over items, the item being the unit (a cluster of its reviewers), with a
normal 95% interval from the spread of the per-item gaps. On a skewed axis most items are unanimous
(gap 0) and a judge's rare miss of a unanimous item is a gap of -1: a sample of 30 or 100 items often
shows too few of them, and the plain interval covered the true gap only 0.86 at 30 items and 0.91 at
100 (a judge as good as a reviewer). As for PPI, the spread counts PSEUDO_GAPS (0.35) pseudo-items
of size 1 each way; coverage is then at least 0.935 at 30, 100 and 300 items for judges right 90%,
50% and 20% of the time (tests/core/test_human_bar.py, 1,000 seeded samples each).

TRUSTED needs its lower bound at or above -margin (`[calibration] human_margin`, default 0.05): the
judge is at most `margin` less often in agreement with a reviewer than another reviewer is, decided
on the interval. A weak judge on a skewed
axis, whose exact agreement is high only because most items share one score, falls short of how
often the reviewers agree with each other there. Below MIN_ITEMS_HUMAN_BAR items there is no
interval (a state with a reason). Assumes items independent and the reviewers of an item
exchangeable (any of them could have been left out).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

from qaeval_tui.core.statistics.label_table import FloatArray

MIN_ITEMS_HUMAN_BAR = 30
"""Fewest items (with two or more reviewers and a judge score) for the human bar's interval."""
CONFIDENCE = 0.95
PSEUDO_GAPS = 0.35
"""Pseudo-items of gap 1 each way added to the spread of the per-item gaps (measured: module docstring)."""


@dataclass(frozen=True)
class HumanBar:
    """The judge's agreement with reviewers against theirs with each other, on the items both apply to."""

    n_items: int
    judge_agreement: float | None
    human_agreement: float | None
    gap: float | None
    gap_ci: tuple[float, float] | None
    reason: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "n_items": self.n_items,
            "judge_agreement": self.judge_agreement,
            "human_agreement": self.human_agreement,
            "gap": self.gap,
            "gap_ci": None if self.gap_ci is None else list(self.gap_ci),
            "reason": self.reason,
        }


def item_gaps(reviewers: FloatArray, judge: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Per usable item (two or more reviewer scores and a judge score): judge agreement, human agreement, gap.

    `reviewers` is reviewers x items (NaN where none), `judge` one score per item (NaN where none)."""
    present = ~np.isnan(reviewers)
    k = present.sum(axis=0)
    usable = (k >= 2) & ~np.isnan(judge)
    matrix, kept, count = reviewers[:, usable], present[:, usable], k[usable].astype(np.float64)
    if count.size == 0:
        empty = np.zeros(0)
        return empty, empty, empty
    # Pairwise agreement: for each reviewer, how many of the item's reviewers share its value (itself included).
    same = (matrix[:, None, :] == matrix[None, :, :]) & kept[:, None, :] & kept[None, :, :]
    matches = same.sum(axis=1).astype(np.float64)  # reviewers x items, counts include the reviewer itself
    pairs = np.where(kept, matches - 1.0, 0.0).sum(axis=0)
    human = pairs / (count * (count - 1.0))
    judged = ((matrix == judge[usable][None, :]) & kept).sum(axis=0) / count
    return judged, human, judged - human


def human_bar(reviewers: FloatArray, judge: FloatArray, confidence: float = CONFIDENCE) -> HumanBar:
    """The mean gap and its normal interval over items (see the module docstring)."""
    judged, human, gaps = item_gaps(reviewers, judge)
    n = int(gaps.size)
    if n == 0:
        return HumanBar(0, None, None, None, None, "no item has two or more reviewer scores and a judge score")
    gap = float(gaps.mean())
    figures = (n, float(judged.mean()), float(human.mean()), gap)
    if n < MIN_ITEMS_HUMAN_BAR:
        why = f"too few items with two or more reviewers for an interval (n = {n}; need >= {MIN_ITEMS_HUMAN_BAR})"
        return HumanBar(*figures, None, why)
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    spread = float(((gaps - gap) ** 2).sum()) + 2.0 * PSEUDO_GAPS
    half = z * math.sqrt(spread / (n - 1 + 2.0 * PSEUDO_GAPS) / n)
    return HumanBar(*figures, (max(-1.0, gap - half), min(1.0, gap + half)), None)
