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
With m = 1 this is Lehr's rule, n = 16 sd^2 / delta^2 per arm. The gate takes the larger of this
and the spread of the differences it observes, so a noisy change never makes a suite look sharper.
Assumptions: cases are independent, a change leaves the spread of per-case values as it was, n is
large enough for the normal approximation (a simulation in tests/core/test_gate_statistics.py
checks the power), and the per-case values lie in [0, 1].
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

ALPHA = 0.05
POWER = 0.8
FORMULA = "(z[1 - alpha/(2m)] + z[power]) * sd_paired / sqrt(n)"


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
    """Cases whose MDE is at most `target`; None when no suite size does (a target of 0)."""
    if target <= 0.0:
        return None
    if sd <= 0.0:
        return 1
    # A hair below the exact ratio, so a target met exactly is not rounded up by float noise.
    return max(1, math.ceil((critical_sum(metrics_checked, alpha, power) * sd / target) ** 2 - 1e-9))


def planning_sd(baseline_values: Sequence[float]) -> float:
    """sqrt(2) x the sample sd of the baseline's per-case values with a pseudo-case at 0 and one at 1."""
    values = [*baseline_values, 0.0, 1.0]
    mean = sum(values) / len(values)
    variance = sum((value - mean) ** 2 for value in values) / (len(values) - 1)
    return math.sqrt(2.0 * variance)


def sample_sd(values: Sequence[float]) -> float:
    """Sample standard deviation (n - 1); 0 for fewer than two values."""
    if len(values) < 2:
        return 0.0
    mean = sum(values) / len(values)
    return math.sqrt(sum((value - mean) ** 2 for value in values) / (len(values) - 1))


def short(value: float) -> str:
    """A tolerance or MDE as a reader writes it: 0.02, 0.11, 0.105 (at most three decimals)."""
    text = f"{value:.3f}".rstrip("0")
    return text + "0" * max(0, 2 - len(text.partition(".")[2]))
