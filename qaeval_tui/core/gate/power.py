"""What a suite can resolve: the minimum detectable effect (MDE) of a gated metric, and the suite size
a target MDE needs.

    MDE = (z[1 - alpha / (2 m)] + z[power]) * sd / sqrt(n)

the normal approximation to a two-sided paired test at the Bonferroni level alpha / m, which is
the strictest step of Holm's correction over the m metrics the gate checks: a drop of at least the
MDE is found significant with probability `power` (0.8) even when it has the smallest p-value.
Inverted, n = ((z[1 - alpha / (2 m)] + z[power]) * sd / MDE)^2 cases resolve a target MDE.

`sd` is the standard deviation of the per-case paired differences a change would produce, which
no single run shows. The planning value is sqrt(2) times the spread of the baseline's per-case
values (two runs whose per-case values agree no better than chance: no credit taken for pairing),
with one pseudo-case at 0 and one at 1 added first, so a metric the baseline scored 1.0 on every
case still has a spread (a suite that never saw a failure has not shown failures are impossible).
With m = 1 this is Lehr's rule, n = 16 sd^2 / delta^2 per arm. The MDE is the suite's, planned from
the baseline alone (`planned`): `qaeval plan` and the gate print the same figure for the same
baseline, and a change, however noisy, never moves what counts as resolvable (its p-value weighs
its noise).

The sign-flip test cannot give every p-value (core/statistics/significance.py): with n paired cases
its smallest is 2^(1 - n), so Holm's strictest step can reach no lower than m x 2^(1 - n). When that
is above alpha, no change of any size can be significant: the suite has no finite MDE (None), and
`cases_needed` never plans fewer cases than `floor_cases` (9 for m = 12). Its Monte Carlo floor,
1 / (flips + 1), is kept out of the way: the gate draws at least `flips(m)` = 20 m / alpha flips
(4,800 for m = 12), so m / (flips + 1) stays below alpha / 20.
Assumptions: cases are independent, a change leaves the spread of per-case values as it was, n is
large enough for the normal approximation (a simulation in tests/core/test_gate_statistics.py
checks the power), and the per-case values lie in [0, 1].
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

from qaeval_tui.core.statistics.significance import smallest_p_value

ALPHA = 0.05
POWER = 0.8
FORMULA = "(z[1 - alpha/(2m)] + z[power]) * sd_paired / sqrt(n)"
FLIPS_PER_LEVEL = 20  # Monte Carlo flips at least FLIPS_PER_LEVEL x m / alpha
FLIPS_RULE = f"max(bootstrap_replicates, {FLIPS_PER_LEVEL} m / alpha)"


@dataclass(frozen=True)
class SuiteMDE:
    """What a suite resolves for one metric, before any change: from the baseline's per-case values."""

    n: int  # cases the metric has a value on
    sd: float  # the planning sd
    smallest_p_holm: float  # m x 2^(1 - n), capped at 1: the lowest Holm p-value the test can reach
    mde: float | None  # None: no finite MDE, the test cannot reach significance with n cases


def planned(baseline_values: Sequence[float], metrics_checked: int, alpha: float = ALPHA) -> SuiteMDE:
    """The MDE a suite resolves for a metric with these baseline values, the floor of the test included."""
    n = len(baseline_values)
    sd = planning_sd(baseline_values)
    floor = min(1.0, metrics_checked * smallest_p_value(n))
    mde = minimum_detectable_effect(sd, n, metrics_checked, alpha) if floor <= alpha else None
    return SuiteMDE(n, sd, floor, mde)


def floor_cases(metrics_checked: int, alpha: float = ALPHA) -> int:
    """The fewest paired cases whose sign-flip test can reach Holm p <= alpha: m x 2^(1 - n) <= alpha."""
    n = 1
    while metrics_checked * smallest_p_value(n) > alpha:
        n += 1
    return n


def flips(metrics_checked: int, replicates: int, alpha: float = ALPHA) -> int:
    """The random sign flips the gate draws for a family of m metrics: the configured number, raised to
    20 m / alpha so the Monte Carlo floor m / (flips + 1) is far below alpha."""
    return max(replicates, math.ceil(FLIPS_PER_LEVEL * metrics_checked / alpha))


MAX_PLANNED_CASES = 10**15
"""More cases than any suite holds: a plan past it is "no countable suite", not a number."""


def critical_sum(metrics_checked: int, alpha: float = ALPHA, power: float = POWER) -> float:
    """z[1 - alpha / (2 m)] + z[power]: the MDE in standard errors at the Holm-strictest level."""
    if metrics_checked < 1:
        raise ValueError(f"at least one metric is checked, got {metrics_checked}")
    if not 0.0 < alpha < 1.0 or not 0.0 < power < 1.0:
        raise ValueError(f"alpha and power are between 0 and 1, got {alpha} and {power}")
    normal = NormalDist()
    return normal.inv_cdf(1.0 - alpha / (2 * metrics_checked)) + normal.inv_cdf(power)


def minimum_detectable_effect(
    sd: float, n: int, metrics_checked: int, alpha: float = ALPHA, power: float = POWER
) -> float:
    """The smallest true mean change the gate finds significant with probability `power`."""
    if n < 1:
        raise ValueError(f"need at least one case, got {n}")
    return critical_sum(metrics_checked, alpha, power) * sd / math.sqrt(n)


def cases_needed(
    sd: float, target: float, metrics_checked: int, alpha: float = ALPHA, power: float = POWER
) -> int | None:
    """Cases whose MDE is at most `target`, and never fewer than the test can reach significance with
    (`floor_cases`); None when no suite size does: a target of 0, or one so small that the count would
    pass `MAX_PLANNED_CASES` (a target of 1e-155 squares past what a float holds)."""
    if target <= 0.0:
        return None
    least = floor_cases(metrics_checked, alpha)
    if sd <= 0.0:
        return least
    ratio = critical_sum(metrics_checked, alpha, power) * sd / target
    if not ratio < math.sqrt(MAX_PLANNED_CASES):  # NaN and infinity included
        return None
    # A hair below the exact ratio, so a target met exactly is not rounded up by float noise.
    return max(least, math.ceil(ratio * ratio - 1e-9))


def tolerance_text(value: float) -> str:
    """A tolerance in a table or a reason: three decimals, as every tolerance is written, except one
    too small for them to show (1e-300 is not 0.000)."""
    return f"{value:.3g}" if 0.0 < abs(value) < 0.0005 else f"{value:.3f}"


def planning_sd(baseline_values: Sequence[float]) -> float:
    """sqrt(2) x the sample sd of the baseline's per-case values with a pseudo-case at 0 and one at 1."""
    values = [*baseline_values, 0.0, 1.0]
    mean = sum(values) / len(values)
    variance = sum((value - mean) ** 2 for value in values) / (len(values) - 1)
    return math.sqrt(2.0 * variance)


def short(value: float) -> str:
    """A tolerance or MDE as a reader writes it: 0.02, 0.11, 0.105 (at most three decimals)."""
    if 0.0 < abs(value) < 0.0005:  # 1e-300 is not 0.00
        return f"{value:.3g}"
    text = f"{value:.3f}".rstrip("0")
    return text + "0" * max(0, 2 - len(text.partition(".")[2]))
