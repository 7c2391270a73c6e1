"""An anytime-valid lower bound for exact agreement: it holds however often `calibrate` is run again as
labels accumulate.

A fixed-n interval checked at every new batch of labels is a test repeated until it passes: a judge
whose true exact agreement is exactly the bar was TRUSTED at some look in 8.2% of label streams
(looks every 10 items up to 300) with the 95% Wilson bound, where one look gives 1.7%. This bound is
the lower end of a confidence sequence: Robbins' beta-binomial mixture (Robbins 1970; Howard,
Ramdas, McAuliffe and Sekhon, "Time-uniform, nonparametric, nonasymptotic confidence sequences",
Ann. Statist. 2021). With S agreements in n items and a Beta(a, b) mixing prior over the rate,

    M_n(p) = B(a + S, b + n - S) / B(a, b) / (p^S (1 - p)^(n - S))

is a nonnegative martingale under rate p, so by Ville's inequality P(M_n(p) >= 1/alpha at any n) <=
alpha, and {p : M_n(p) < 1/alpha} covers the true rate at every n at once with probability >= 1 -
alpha. The prior is fixed before any label is seen, from the bar alone: mean (1 + bar) / 2 (a
judge somewhat better than the bar), weight 10 (a = 10 m, b = 10 (1 - m)); it buys power near the
rates a team hopes for and costs validity nothing. The price of validity at every look: at a 0.8
agreement rate the bound is about 0.67 at 100 items where the single-look Wilson bound is 0.71.
"""

from __future__ import annotations

import math

PRIOR_WEIGHT = 10.0


def _log_beta(x: float, y: float) -> float:
    return math.lgamma(x) + math.lgamma(y) - math.lgamma(x + y)


def anytime_lower_bound(successes: int, n: int, bar: float, confidence: float = 0.95) -> float | None:
    """The lower end of the confidence sequence for a rate after `successes` in `n` (None when n is 0)."""
    if n <= 0:
        return None
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be between 0 and n, got {successes} of {n}")
    mean = min(max((1.0 + bar) / 2.0, 0.01), 0.99)
    a, b = PRIOR_WEIGHT * mean, PRIOR_WEIGHT * (1.0 - mean)
    threshold = math.log(1.0 - confidence) + _log_beta(a + successes, b + n - successes) - _log_beta(a, b)

    def inside(p: float) -> bool:  # M_n(p) < 1 / alpha, in logs
        return successes * math.log(p) + (n - successes) * math.log1p(-p) > threshold

    if successes == 0:
        return 0.0
    low, high = 1e-12, successes / n
    if inside(low):
        return 0.0
    for _ in range(60):  # bisection: the set is an interval around S / n, its log-likelihood concave
        middle = (low + high) / 2.0
        if inside(middle):
            high = middle
        else:
            low = middle
    return high
