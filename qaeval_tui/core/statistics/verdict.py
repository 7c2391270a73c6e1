"""Calibration verdicts, decided on the interval (DESIGN §5), and the words every output shows.

Per axis, with n judged items that have a human consensus (`rule = "interval"`, the default):

- fewer than max(`min_n`, MIN_ITEMS_EXACT_INTERVAL) items: INSUFFICIENT (TRUSTED needs at least
  MIN_ITEMS_ALPHA_INTERVAL, for alpha's interval: the items to decide count up to that floor);
- the judge gave every item the same score: RETUNE (it tells no item apart, whatever its agreement);
- the upper bound of exact agreement (Wilson with continuity correction) is below `min_exact`: RETUNE;
- alpha with the judge as a coder is at or below zero with enough items for its interval, or its
  upper bound is at or below `chance_floor`: RETUNE;
- the lower bound of exact agreement clears `min_exact` and the lower bound of alpha (BCa bootstrap)
  is above `chance_floor`: TRUSTED;
- otherwise INSUFFICIENT, with about how many more judged items would decide it: for exact
  agreement, the n at which the interval around the observed rate would exclude the bar
  (`intervals.items_to_decide`); for alpha, the n at which its half-width, shrinking as 1/sqrt(n),
  would be smaller than the estimate's distance to the floor; for too few items, the minimum.

The reason names the bound that decided. `rule = "point"` keeps the seed's rule (exact agreement's
point estimate against `min_exact`, n >= `min_n`; a constant judge is RETUNE there too) and every
output says so (`RULE_POINT_NOTE`, `report_notes`), the gate's included.
`verdict_line` is the one place the words of a verdict are put together; renderers only place it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from qaeval_tui.core.config import CalibrationConfig
from qaeval_tui.core.statistics.alpha_interval import MIN_ITEMS_ALPHA_INTERVAL
from qaeval_tui.core.statistics.anytime import anytime_lower_bound
from qaeval_tui.core.statistics.human_bar import MIN_ITEMS_HUMAN_BAR
from qaeval_tui.core.statistics.intervals import MIN_ITEMS_EXACT_INTERVAL, items_to_decide, too_few_items

Verdict = Literal["TRUSTED", "RETUNE", "INSUFFICIENT"]
ALPHA = "alpha (judge as a coder)"
HUMAN_GAP = "the judge's agreement with reviewers minus theirs with each other"
MAX_ITEMS_TO_DECIDE = 10_000
REASON_NO_PAIRS = "no item has both a human consensus and a judge score on this axis"
RULE_POINT_NOTE = (
    'verdicts decided on point estimates (calibration.rule = "point"), not on their intervals: '
    "a TRUSTED here may not hold"
)


@dataclass(frozen=True)
class Evidence:
    """What one axis's verdict is decided on."""

    n: int
    exact: float | None
    exact_ci: tuple[float, float] | None
    alpha: float | None
    alpha_ci: tuple[float, float] | None
    alpha_ci_reason: str | None
    alpha_items: int
    """Pairable items alpha was computed on (equals n: judge and consensus, one pair per item)."""
    constant_judge: str | None
    """The constant-judge warning, when the judge gave every item one score."""
    exact_anytime: float | None = None
    """Exact agreement's anytime-valid lower bound (core/statistics/anytime.py)."""
    human_gap: float | None = None
    """Judge-reviewer minus reviewer-reviewer agreement (core/statistics/human_bar.py); None: no item for it."""
    human_gap_ci: tuple[float, float] | None = None
    human_reason: str | None = None
    human_items: int = 0


@dataclass(frozen=True)
class Decision:
    verdict: Verdict
    reason: str
    decided_by: str
    """no_pairs, too_few_items, min_n, constant_judge, exact_upper, alpha_point, alpha_upper,
    exact_and_alpha_lower, exact_lower, alpha_lower, alpha_no_interval; point_estimate under rule "point"."""
    more_items: int | None
    """About how many more judged items would decide an INSUFFICIENT verdict (None: none would, or not one)."""


def constant_judge_warning(values: list[int] | tuple[int, ...], n: int) -> str | None:
    """A judge that gave every paired item the same score tells no item apart, whatever its agreement."""
    if n < 2 or len(set(values)) != 1:
        return None
    value = values[0]
    return f"the judge gave all {n} items a {value}: its agreement only mirrors how often humans gave {value}"


def _point_rule(e: Evidence, bar: CalibrationConfig) -> Decision:
    if e.n < bar.min_n or e.exact is None:
        reason = f"n = {e.n} is below the minimum of {bar.min_n} judged items with a human consensus"
        return Decision("INSUFFICIENT", reason, "min_n", bar.min_n - e.n)
    if e.constant_judge is not None:  # under either rule: its agreement is the humans' base rate, not skill
        return Decision("RETUNE", f"{e.constant_judge}; it tells no item apart", "constant_judge", None)
    if e.exact >= bar.min_exact and bar.human_bar and (e.human_gap is None or e.human_gap < -bar.human_margin):
        shown = "no item with two or more reviewers" if e.human_gap is None else f"{e.human_gap:+.3f}"
        reason = (
            f"point estimate: exact agreement {e.exact:.3f} >= {bar.min_exact:.2f}, but {HUMAN_GAP} is {shown}, "
            f"not at least -{bar.human_margin:.2f}"
        )
        return Decision("INSUFFICIENT" if e.human_gap is None else "RETUNE", reason, "point_estimate", None)
    if e.exact >= bar.min_exact:
        return Decision(
            "TRUSTED",
            f"point estimate: exact agreement {e.exact:.3f} >= {bar.min_exact:.2f} with n = {e.n}",
            "point_estimate",
            None,
        )
    reason = f"point estimate: exact agreement {e.exact:.3f} < {bar.min_exact:.2f} with n = {e.n}"
    return Decision("RETUNE", reason, "point_estimate", None)


def _more_for_alpha(e: Evidence, floor: float) -> int | None:
    if e.alpha is None or e.alpha_ci is None or e.alpha <= floor:
        return None
    half = (e.alpha_ci[1] - e.alpha_ci[0]) / 2.0
    return max(1, math.ceil(e.n * (half / (e.alpha - floor)) ** 2) - e.n)


def _undecided_exact(e: Evidence, bar: CalibrationConfig) -> Decision:
    assert e.exact is not None and e.exact_ci is not None
    low, high = e.exact_ci
    reason = (
        f"lower bound {low:.2f} of exact agreement is below min_exact {bar.min_exact:.2f} "
        f"and its upper bound {high:.2f} is not (n = {e.n})"
    )
    total = items_to_decide(e.exact, bar.min_exact, limit=MAX_ITEMS_TO_DECIDE)
    if total is None:
        reason += f"; at the observed rate {e.exact:.3f} not even {MAX_ITEMS_TO_DECIDE} items would decide it"
        return Decision("INSUFFICIENT", reason, "exact_lower", None)
    if e.exact > bar.min_exact:  # on its way to TRUSTED, which also needs alpha's interval
        total = max(total, MIN_ITEMS_ALPHA_INTERVAL)
    more = max(1, total - e.n)
    return Decision("INSUFFICIENT", f"{reason}; about {more} more judged items would decide it", "exact_lower", more)


def _undecided_anytime(e: Evidence, bar: CalibrationConfig, low: float) -> Decision:
    """Exact agreement clears the bar at this look, but not with a bound that holds at every look."""
    shown = "none" if e.exact_anytime is None else f"{e.exact_anytime:.2f}"
    reason = (
        f"lower bound {low:.2f} of exact agreement clears min_exact {bar.min_exact:.2f}, but its anytime-valid "
        f"lower bound {shown} (which holds however often calibrate is re-run as labels accumulate) does not "
        f"(n = {e.n})"
    )
    more = None
    if e.exact is not None and e.exact > bar.min_exact:
        total = e.n
        while total <= MAX_ITEMS_TO_DECIDE:
            total = max(total + 1, int(total * 1.1))
            bound = anytime_lower_bound(round(e.exact * total), total, bar.min_exact)
            if bound is not None and bound >= bar.min_exact:
                more = max(MIN_ITEMS_ALPHA_INTERVAL, total) - e.n
                reason += f"; about {more} more judged items at this rate would decide it"
                break
    return Decision("INSUFFICIENT", reason, "exact_anytime", more)


def _interval_rule(e: Evidence, bar: CalibrationConfig) -> Decision:
    floor = bar.chance_floor
    need = max(bar.min_n, MIN_ITEMS_EXACT_INTERVAL)
    if e.n < need or e.exact is None or e.exact_ci is None:
        # TRUSTED also needs alpha's interval, so nothing short of its floor decides a judge that is doing well.
        to_floor = max(need, MIN_ITEMS_ALPHA_INTERVAL) - e.n
        if e.n < MIN_ITEMS_EXACT_INTERVAL:
            return Decision("INSUFFICIENT", too_few_items(e.n, MIN_ITEMS_EXACT_INTERVAL), "too_few_items", to_floor)
        reason = f"n = {e.n} is below the minimum of {bar.min_n} judged items with a human consensus"
        return Decision("INSUFFICIENT", reason, "min_n", to_floor)
    low, high = e.exact_ci
    if e.constant_judge is not None:
        return Decision("RETUNE", f"{e.constant_judge}; it tells no item apart", "constant_judge", None)
    if high < bar.min_exact:
        reason = f"upper bound {high:.2f} of exact agreement is below min_exact {bar.min_exact:.2f} (n = {e.n})"
        return Decision("RETUNE", reason, "exact_upper", None)
    if e.alpha is not None and e.alpha <= 0.0 and e.alpha_items >= MIN_ITEMS_ALPHA_INTERVAL:
        reason = f"{ALPHA} {e.alpha:.3f} is at or below zero with n = {e.n}: no better than chance"
        return Decision("RETUNE", reason, "alpha_point", None)
    if e.alpha_ci is not None and e.alpha_ci[1] <= floor:
        reason = f"upper bound {e.alpha_ci[1]:.2f} of {ALPHA} is at or below the chance floor {floor:.2f} (n = {e.n})"
        return Decision("RETUNE", reason, "alpha_upper", None)
    if bar.human_bar and e.human_gap_ci is not None and e.human_gap_ci[1] < -bar.human_margin:
        reason = (
            f"upper bound {e.human_gap_ci[1]:+.2f} of {HUMAN_GAP} is below -{bar.human_margin:.2f}: the judge agrees "
            f"with a reviewer less often than another reviewer does ({e.human_items} items with two or more reviewers)"
        )
        return Decision("RETUNE", reason, "human_upper", None)
    if low < bar.min_exact:
        return _undecided_exact(e, bar)
    if bar.anytime and (e.exact_anytime is None or e.exact_anytime < bar.min_exact):
        return _undecided_anytime(e, bar, low)
    cleared = f"lower bound {low:.2f} of exact agreement clears min_exact {bar.min_exact:.2f}"
    if e.alpha_ci is None:
        why = e.alpha_ci_reason or "no interval"
        more = MIN_ITEMS_ALPHA_INTERVAL - e.alpha_items if e.alpha_items < MIN_ITEMS_ALPHA_INTERVAL else None
        reason = f"{cleared}, but {ALPHA} has no interval: {why}"
        if more is not None:
            reason += f"; {more} more judged items would give it one"
        return Decision("INSUFFICIENT", reason, "alpha_no_interval", more)
    if e.alpha_ci[0] <= floor:
        reason = (
            f"{cleared}, but lower bound {e.alpha_ci[0]:.2f} of {ALPHA} is not above the chance floor {floor:.2f} "
            f"(n = {e.n})"
        )
        more = _more_for_alpha(e, floor)
        if more is not None:
            reason += f"; about {more} more judged items would decide it"
        return Decision("INSUFFICIENT", reason, "alpha_lower", more)
    reason = (
        f"{cleared} and lower bound {e.alpha_ci[0]:.2f} of {ALPHA} is above the chance floor {floor:.2f} (n = {e.n})"
    )
    if not bar.human_bar:
        return Decision("TRUSTED", reason, "exact_and_alpha_lower", None)
    return _human_rule(e, bar, reason)


def _human_rule(e: Evidence, bar: CalibrationConfig, cleared: str) -> Decision:
    """The last step to TRUSTED: the judge agrees with reviewers about as often as they agree with each other."""
    margin = bar.human_margin
    if e.human_gap_ci is None or e.human_gap is None:
        why = e.human_reason or "no interval"
        more = MIN_ITEMS_HUMAN_BAR - e.human_items if e.human_items < MIN_ITEMS_HUMAN_BAR else None
        reason = f"{cleared}, but {HUMAN_GAP} has no interval: {why}"
        return Decision("INSUFFICIENT", reason, "human_no_interval", more)
    low, _ = e.human_gap_ci
    if low < -margin:
        reason = (
            f"{cleared}, but lower bound {low:+.2f} of {HUMAN_GAP} is below -{margin:.2f} "
            f"({e.human_items} items with two or more reviewers)"
        )
        more = None
        if e.human_gap > -margin:
            half = (e.human_gap_ci[1] - low) / 2.0
            more = max(1, math.ceil(e.human_items * (half / (e.human_gap + margin)) ** 2) - e.human_items)
            reason += f"; about {more} more such items would decide it"
        return Decision("INSUFFICIENT", reason, "human_lower", more)
    reason = f"{cleared}, and lower bound {low:+.2f} of {HUMAN_GAP} is at least -{margin:.2f} ({e.human_items} items)"
    return Decision("TRUSTED", reason, "exact_alpha_and_human_lower", None)


def decide(evidence: Evidence, bar: CalibrationConfig) -> Decision:
    """The verdict of one axis under the configured rule, and the reason naming what decided it."""
    if evidence.n == 0:
        return Decision("INSUFFICIENT", REASON_NO_PAIRS, "no_pairs", None)
    return _point_rule(evidence, bar) if bar.rule == "point" else _interval_rule(evidence, bar)


def overall_verdict(verdicts: Iterable[str]) -> Verdict:
    """A calibration's verdict from its axes': RETUNE if any axis is, else INSUFFICIENT if any is, else TRUSTED."""
    states = set(verdicts)
    return "RETUNE" if "RETUNE" in states else "INSUFFICIENT" if "INSUFFICIENT" in states else "TRUSTED"


def verdict_line(axis_name: str, axis: Mapping[str, Any]) -> str:
    """One axis's verdict, the reason (the bound that decided it) and its warnings, in the words of every output.

    `axis` is `AxisCalibration.to_json()`; the axis name is put in as given (renderers escape it).
    """
    words = f"{axis_name} {axis['verdict']}: {axis['verdict_reason']}"
    return words + "".join(f" · warning: {warning}" for warning in axis["warnings"])


def report_notes(report: Mapping[str, Any]) -> list[str]:
    """Report-wide notes every output shows (from `CalibrationReport.to_json()`)."""
    return [RULE_POINT_NOTE] if report["bar"]["rule"] == "point" else []


def bar_line(bar: Mapping[str, Any]) -> str:
    """The bar in words, with the sizes that really decide: under the interval rule, TRUSTED needs alpha's
    interval, so no axis is TRUSTED below MIN_ITEMS_ALPHA_INTERVAL judged items whatever `min_n` says."""
    consensus = f"consensus of >= {bar['min_reviewers']} reviewers"
    if bar["rule"] == "point":
        return (
            f"bar: exact >= {bar['min_exact']:.2f} with n >= {bar['min_n']} on every axis (point rule), {consensus}"
            f"{human_bar_words(bar)}"
        )
    return (
        f"bar: on every axis the lower bounds of exact agreement >= {bar['min_exact']:.2f} and of alpha above "
        f"{bar['chance_floor']:.2f} (interval rule; n >= {bar['min_n']}, and alpha's interval needs "
        f"n >= {MIN_ITEMS_ALPHA_INTERVAL}), {consensus}{human_bar_words(bar)}"
    )


def human_bar_words(bar: Mapping[str, Any]) -> str:
    """The anytime bound and the human bar in words, for every output's bar line (each said when off too)."""
    looks = "exact's bound anytime-valid" if bar.get("anytime", False) else "fixed-n bounds"
    if not bar.get("human_bar", False):
        return f"; {looks}; human bar off"
    return f"; {looks}; human bar, margin {bar['human_margin']:.2f}"
