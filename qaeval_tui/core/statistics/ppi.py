"""Prediction-powered estimates of a judge-scored metric: the judge on every case, humans on a few.

The estimator and its interval are those of Angelopoulos, Bates, Fannjiang, Jordan and Zrnic,
"Prediction-powered inference", Science 382(6671):669-674 (2023), for a mean: the judge's mean over
all N cases it scored, plus the mean human-minus-judge correction ("rectifier") over the n cases a
human labelled. The judge's bias is what the correction removes; the N cases shrink what is left.

Here the labelled cases are among the N (the paper's labelled and unlabelled sets are disjoint), so
the estimate is the paper's with the U = N - n unlabelled cases weighted (N - n)/N:

    theta = mean_L(Y) + lam * (mean_U(f) - mean_L(f)),   lam = (N - n) / N
          = mean_N(f) + mean_L(Y - f)

and its normal (CLT) interval uses var(theta) = var_L(Y - lam f) / n + lam^2 var_N(f) / (N - n).
Expanded, that is var(f)/N + var(Y - f)/n + 2 cov(f, Y - f)/N: the paper's two terms plus the
covariance the shared cases add (usually negative: a noisy judge's errors shrink as f rises).
PPI++'s power tuning (Angelopoulos, Duchi and Zrnic, 2023) is not offered: with lam estimated
from the same few labels its interval covered 0.85-0.90 in our simulation at 25-40 labelled cases.

When the labelled cases rarely disagree with the judge (agreement 0.90-0.98 on a rate of 0.90-0.98),
the few labels often show no disagreement at all and the rectifier's sample variance is then 0 or
nearly: the plain interval covered 0.81-0.90 at 40 labels. Its spread is therefore taken as if
`PSEUDO_DISAGREEMENT` (0.35) of a disagreement of size 1 had been seen in each direction (adding 0.7
to the sum of squares, over n - 1 + 0.7 degrees of freedom), the Agresti-Coull idea for a rare
event: in simulation (tests/core/test_ppi.py) coverage is then at least 0.95 at 40 labels over
rates 0.5-0.98 and judge agreement 0.90-0.98, and the interval stays narrower than the labelled
cases' own normal interval wherever it was before, except where that one under-covers (a 0.98 rate
at 40 labels: labels alone cover about 0.6 there; the Wilson interval of the labels alone, 0.114
wide, is still wider than PPI's 0.078).

It holds when the labelled cases are a random subset of the cases: a queue that sends reviewers the
hard cases first biases the correction. The point estimate and the interval are clipped to [0, 1]
(every metric is a rate). No interval below `MIN_LABELLED_FOR_CI` labelled cases: with binary values
the normal interval covered 0.89 at 20 and 0.92 at 30 labelled cases in one of our simulated
settings (a lenient judge on a 0.8 rate); tests/core/test_ppi.py checks >= 0.93 from 40 on. When
every labelled human value is the same and the judge is constant (or every case is labelled), the
normal interval would have zero width: the interval is then the exact binomial one for "no labelled
case differs" (`_no_variation_interval`), so a perfect metric still has an interval to gate on.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from statistics import NormalDist
from typing import Any

import numpy as np

from qaeval_tui.core.statistics.intervals import check_confidence
from qaeval_tui.core.statistics.label_table import FloatArray

MIN_LABELLED_FOR_CI = 40
"""Fewest labelled cases for which an interval is printed (found by the coverage simulation)."""

PSEUDO_DISAGREEMENT = 0.35
"""Pseudo-disagreements added to the rectifier's spread, this many of size 1 each way (measured: see
the module docstring)."""

REASON_NO_JUDGED = "no case the judge scored"
REASON_NO_LABELS = (
    "no labelled case among the cases the judge scored: PPI needs human labels on some of them "
    "(the judge mean alone keeps the judge's bias)"
)


@dataclass(frozen=True)
class PPIEstimate:
    """A PPI mean with its interval, and the plain figures it is made of.

    `value` is None when there is no estimate, `ci` None when there is no interval; `reason` says why.
    `labelled_mean` / `labelled_ci` are the human mean on the labelled cases alone, for comparison.
    """

    value: float | None
    ci: tuple[float, float] | None
    n_labelled: int
    n_cases: int
    judge_mean: float | None
    correction: float | None
    labelled_mean: float | None
    labelled_ci: tuple[float, float] | None
    lam: float | None
    confidence: float
    reason: str | None = None
    excluded: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "ci": None if self.ci is None else list(self.ci),
            "n_labelled": self.n_labelled,
            "n_cases": self.n_cases,
            "judge_mean": self.judge_mean,
            "correction": self.correction,
            "labelled_mean": self.labelled_mean,
            "labelled_ci": None if self.labelled_ci is None else list(self.labelled_ci),
            "lambda": self.lam,
            "confidence": self.confidence,
            "reason": self.reason,
            "excluded": dict(self.excluded),
        }


def _column(values: Sequence[float | None], name: str) -> FloatArray:
    array = np.array([np.nan if v is None else float(v) for v in values], dtype=np.float64)
    given = np.fromiter((v is not None for v in values), dtype=bool, count=len(values))
    bad = np.flatnonzero(given & ~np.isfinite(array))
    if bad.size:  # None is "missing"; a NaN or an infinity is a defect upstream, never a silent gap
        raise ValueError(f"{name}[{int(bad[0])}] is {values[int(bad[0])]!r}: not a finite number (None marks a gap)")
    return array


def _clip(low: float, high: float) -> tuple[float, float]:
    return (min(1.0, max(0.0, low)), min(1.0, max(0.0, high)))


def ppi_mean(
    judge: Sequence[float | None],
    human: Sequence[float | None],
    *,
    confidence: float = 0.95,
    min_labelled: int = MIN_LABELLED_FOR_CI,
) -> PPIEstimate:
    """The PPI estimate of the mean human value over the cases the judge scored.

    `judge[i]` and `human[i]` are case i's metric value from the judge and from the human consensus,
    None where there is none. A case with a human value but no judge value is outside the metric's
    cases (the judge could not score it, or the metric does not apply to its output): it is left
    out and counted in `excluded["human_without_judge"]`, never silently.
    """
    if len(judge) != len(human):
        raise ValueError(f"judge and human values must be per case: {len(judge)} and {len(human)} given")
    check_confidence(confidence)
    if min_labelled < 2:
        raise ValueError(f"an interval needs at least 2 labelled cases, got min_labelled={min_labelled}")
    f_all, y_all = _column(judge, "judge"), _column(human, "human")
    judged, labelled_any = ~np.isnan(f_all), ~np.isnan(y_all)
    labelled = judged & labelled_any
    excluded = {"human_without_judge": int((labelled_any & ~judged).sum())}
    big_n, n = int(judged.sum()), int(labelled.sum())
    empty = PPIEstimate(None, None, n, big_n, None, None, None, None, None, confidence, excluded=excluded)
    if big_n == 0:
        return _with(empty, reason=REASON_NO_JUDGED)
    f, y, f_lab = f_all[judged], y_all[labelled], f_all[labelled]
    judge_mean = float(f.mean())
    if n == 0:
        return _with(empty, judge_mean=judge_mean, reason=REASON_NO_LABELS)
    unlabelled = big_n - n
    f_unl = f_all[judged & ~labelled_any]
    lam = unlabelled / big_n
    gap = float(f_unl.mean() - f_lab.mean()) if unlabelled else 0.0
    value = float(y.mean()) + lam * gap
    correction = float((y - f_lab).mean())
    labelled_mean = float(y.mean())
    result = PPIEstimate(
        min(1.0, max(0.0, value)),
        None,
        n,
        big_n,
        judge_mean,
        correction,
        labelled_mean,
        None,
        lam,
        confidence,
        excluded=excluded,
    )
    if n < min_labelled:
        what = "one labelled case: the spread of human - judge is unknown" if n == 1 else f"{n} labelled cases"
        return _with(result, reason=f"{what}; an interval needs at least {min_labelled} (too few to cover 95%)")
    if float(np.ptp(y)) == 0.0 and (unlabelled == 0 or float(np.ptp(f)) == 0.0):
        exact = _no_variation_interval(float(y[0]), n, confidence)  # value == y[0]: the judge adds nothing
        return _with(result, ci=exact, labelled_ci=exact)
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    rectifier = y - lam * f_lab
    pseudo = 2.0 * PSEUDO_DISAGREEMENT if unlabelled else 0.0  # every case labelled: the labels alone
    variance = (float(((rectifier - rectifier.mean()) ** 2).sum()) + pseudo) / (n - 1 + pseudo) / n
    if unlabelled:
        variance += lam * lam * float(np.var(f, ddof=1)) / unlabelled
    labelled_half = z * math.sqrt(float(np.var(y, ddof=1)) / n)
    labelled_ci = _clip(labelled_mean - labelled_half, labelled_mean + labelled_half)
    if variance <= 0.0:  # unreachable after the no-variation case above, kept against rounding
        return _with(result, labelled_ci=labelled_ci, reason="no variation: a normal interval would have zero width")
    half = z * math.sqrt(variance)
    return _with(result, ci=_clip(value - half, value + half), labelled_ci=labelled_ci)


def _no_variation_interval(level: float, n: int, confidence: float) -> tuple[float, float]:
    """The interval when all n labelled cases have the human value `level` and the judge says nothing more.

    The normal interval has zero width there. The share of cases whose human value differs from
    `level` was seen 0 times in n: its exact (Clopper-Pearson) upper bound is 1 - (alpha/2)^(1/n)
    (0.088 at n = 40). Values lie in [0, 1], so the mean lies within that share of the way to 0 and
    to 1: at a level of 1 (or 0) this is the Clopper-Pearson interval of n successes in n.
    """
    share = 1.0 - ((1.0 - confidence) / 2.0) ** (1.0 / n)
    return _clip(level - share * level, level + share * (1.0 - level))


def _with(estimate: PPIEstimate, **changes: Any) -> PPIEstimate:
    return replace(estimate, **changes)
