"""Exact agreement's anytime-valid lower bound (core/statistics/anytime.py): calibrating again as labels
accumulate keeps false TRUSTED at the bar within 5%, where the single-look Wilson bound, checked at every
look, does not; and the verdict says which bound decided."""

from __future__ import annotations

import math

import numpy as np
import pytest

from qaeval_tui.core.config import CalibrationConfig
from qaeval_tui.core.statistics.anytime import anytime_lower_bound
from qaeval_tui.core.statistics.intervals import wilson_cc_interval
from qaeval_tui.core.statistics.verdict import Evidence, decide

BAR = 0.70
LOOKS = list(range(20, 301, 10))  # calibrate again after every 10 new judged items, up to 300


def test_a_worked_example_of_the_mixture_bound() -> None:
    # 80 agreements in 100, bar 0.70: prior Beta(8.5, 1.5). At the bound p, the mixture likelihood ratio
    # B(a + S, b + n - S) / B(a, b) / (p^S (1 - p)^(n - S)) equals 1 / alpha = 20.
    low = anytime_lower_bound(80, 100, BAR)
    assert low is not None and 0.65 < low < wilson_cc_interval(80, 100)[0]  # type: ignore[index]
    a, b = 8.5, 1.5
    log_mixture = (
        math.lgamma(a + 80) + math.lgamma(b + 20) - math.lgamma(a + b + 100) - math.lgamma(a) - math.lgamma(b)
    ) + math.lgamma(a + b)
    ratio = math.exp(log_mixture - 80 * math.log(low) - 20 * math.log1p(-low))
    assert ratio == pytest.approx(20.0, rel=1e-6)
    assert anytime_lower_bound(0, 10, BAR) == 0.0 and anytime_lower_bound(0, 0, BAR) is None


def _first_trusting(bound: object) -> dict[int, int]:
    """Per look n, the fewest agreements whose lower bound clears the bar."""
    table = {}
    for n in LOOKS:
        table[n] = next(s for s in range(n + 2) if s > n or (bound(s, n) or 0.0) >= BAR)  # type: ignore[operator]
    return table


def test_repeated_calibration_as_labels_accumulate_keeps_false_trusted_within_5_percent() -> None:
    # A judge whose true exact agreement is exactly the bar: every TRUSTED is false. 4,000 seeded label
    # streams, looked at after every 10 judged items from 20 to 300 (29 looks). Monte Carlo sd 0.003.
    rng = np.random.default_rng(2025)
    agreements = np.cumsum(rng.random((4000, LOOKS[-1])) < BAR, axis=1)
    at_looks = agreements[:, [n - 1 for n in LOOKS]]

    def false_trusted(bound: object) -> float:
        needed = np.array([_first_trusting(bound)[n] for n in LOOKS])
        return float((at_looks >= needed).any(axis=1).mean())

    single = float((at_looks[:, -1] >= _first_trusting(lambda s, n: wilson_cc_interval(s, n)[0])[LOOKS[-1]]).mean())
    wilson = false_trusted(lambda s, n: wilson_cc_interval(s, n)[0])
    anytime = false_trusted(lambda s, n: anytime_lower_bound(s, n, BAR))
    assert single <= 0.03  # one look: within its level (measured 0.019)
    assert wilson > 0.05  # every look with the fixed-n bound: the failure (measured 0.084)
    assert anytime <= 0.05, anytime  # measured 0.017


def test_the_verdict_names_the_anytime_bound_when_it_alone_holds_trust_back() -> None:
    # 80 of 100: the Wilson bound 0.71 clears 0.70, the anytime-valid one (0.67) does not.
    evidence = Evidence(
        n=100,
        exact=0.8,
        exact_ci=wilson_cc_interval(80, 100),
        alpha=0.6,
        alpha_ci=(0.45, 0.72),
        alpha_ci_reason=None,
        alpha_items=100,
        constant_judge=None,
        exact_anytime=anytime_lower_bound(80, 100, BAR),
    )
    decision = decide(evidence, CalibrationConfig(human_bar=False))
    assert decision.verdict == "INSUFFICIENT" and decision.decided_by == "exact_anytime"
    assert "anytime-valid lower bound 0.67" in decision.reason and decision.more_items is not None
    assert decide(evidence, CalibrationConfig(human_bar=False, anytime=False)).verdict == "TRUSTED"
