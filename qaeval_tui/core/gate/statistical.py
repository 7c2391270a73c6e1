"""The statistical side of Tier 2: a p-value, Holm's correction and the minimum detectable effect for
every gated metric, and the `statistical` mode's decision (fireassay's gate).

Every metric with a tolerance and a value on at least one case both runs share is checked: its
paired differences are tested with a sign-flip permutation test (core/statistics/significance.py),
the p-values are Holm-corrected across every metric checked, and its MDE at the corrected level for
its number of paired cases (core/gate/power.py) is set beside its tolerance. A tolerance below the
MDE is a drop the suite cannot tell from noise.

`tolerance` mode (the default) keeps the tolerance decision and warns beside such a tolerance.
`statistical` mode blocks a metric only when its drop is at least its tolerance *and* significant
after Holm, and refuses (no verdict: exit 3) a metric whose tolerance is below its MDE. A metric
that lost its values fails in both modes: that is no question of noise. Tier 1 is the same in both.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Literal

from qaeval_tui.core.gate import power
from qaeval_tui.core.gate.delta import MetricDelta, MetricTest, SharedCase
from qaeval_tui.core.running.metrics import METRIC_SPECS
from qaeval_tui.core.statistics.significance import holm_adjusted, sign_flip_p_value

GateMode = Literal["tolerance", "statistical"]
GATE_MODES: tuple[GateMode, ...] = ("tolerance", "statistical")
TEST_NAME = "paired sign-flip permutation test, two-sided, seeded"
_EPSILON = 1e-9


def paired_values(name: str, shared: Sequence[SharedCase]) -> tuple[list[float], list[float]]:
    """The per-case differences (now - baseline) and the baseline values, over cases where both have a value."""
    differences: list[float] = []
    before: list[float] = []
    for case in shared:
        now, old = case.now.get(name), case.old.get(name)
        if now is not None and old is not None:
            differences.append(now - old)
            before.append(old)
    return differences, before


def checked(deltas: Sequence[MetricDelta], shared: Sequence[SharedCase]) -> dict[str, tuple[list[float], list[float]]]:
    """The metrics Holm's family holds (gated: a tolerance and a baseline value; paired on some case),
    each with its paired differences and baseline values."""
    family = {}
    for delta in deltas:
        if delta.tolerance is not None and delta.status != "n/a":
            differences, before = paired_values(delta.name, shared)
            if differences:
                family[delta.name] = (differences, before)
    return family


def unresolved_warning(name: str, tolerance: float, mde: float, n: int, needed: int | None) -> str:
    """ "this suite cannot resolve a 0.02 drop in faithfulness_rate; it resolves 0.11 with 39 cases; ..." """
    change = "drop" if METRIC_SPECS[name].higher_is_better else "rise"
    more = (
        f"~{needed} cases would resolve {power.short(tolerance)}"
        if needed is not None
        else f"no number of cases resolves a {change} of 0"
    )
    cases = f"{n} case" + ("" if n == 1 else "s")
    resolves = (
        f"it resolves {power.short(mde)} with {cases}"
        if mde <= 1.0
        else f"with {cases} it resolves no {change} a metric in [0, 1] can make (MDE {power.short(mde)})"
    )
    return f"this suite cannot resolve a {power.short(tolerance)} {change} in {name}; {resolves}; {more}"


def attach_tests(
    deltas: Sequence[MetricDelta], shared: Sequence[SharedCase], replicates: int, seed: int
) -> tuple[MetricDelta, ...]:
    """Each gated, paired metric with its test attached (the others as they were)."""
    pairs = checked(deltas, shared)
    if not pairs:
        return tuple(deltas)
    names, family = list(pairs), len(pairs)
    tested: dict[str, tuple[int, float, float, float]] = {}
    for name, (differences, before) in pairs.items():
        sd = max(power.sample_sd(differences), power.planning_sd(before))
        mde = power.minimum_detectable_effect(sd, len(differences), family)
        tested[name] = (len(differences), sign_flip_p_value(differences, replicates, seed), sd, mde)
    adjusted = dict(zip(names, holm_adjusted([tested[name][1] for name in names]), strict=True))
    out = []
    for delta in deltas:
        if delta.name not in tested or delta.tolerance is None:
            out.append(delta)
            continue
        n, p_value, sd, mde = tested[delta.name]
        needed = power.cases_needed(sd, delta.tolerance, family)
        below = delta.tolerance < mde - _EPSILON
        warning = unresolved_warning(delta.name, delta.tolerance, mde, n, needed) if below else None
        test = MetricTest(
            n=n,
            p_value=p_value,
            p_holm=adjusted[delta.name],
            significant=adjusted[delta.name] <= power.ALPHA,
            sd_paired=sd,
            mde=mde,
            cases_needed=needed,
            warning=warning,
        )
        out.append(dataclasses.replace(delta, test=test))
    return tuple(out)


def decide_statistically(delta: MetricDelta) -> MetricDelta:
    """`statistical` mode: refuse a tolerance the suite cannot resolve; block only a significant drop."""
    if delta.tolerance is None or delta.status in ("n/a", "info"):
        return delta
    lost_values = delta.status == "fail" and (delta.current is None or bool(delta.lost_cases))
    if lost_values:  # a metric that lost values fails whatever the noise
        return delta
    test = delta.test
    if test is None:
        why = (
            'a PPI estimate ([gate] judge_metrics = "ppi") is compared unpaired, so the paired test has nothing to test'
            if delta.basis == "ppi"
            else "no case both runs scored, so nothing to test"
        )
        return dataclasses.replace(delta, status="refused", reason=f"{why}; no verdict: refusing is not passing")
    if test.warning is not None:
        return dataclasses.replace(
            delta, status="refused", reason=f"{test.warning}; no verdict: refusing is not passing"
        )
    if delta.status != "fail":
        return delta
    holm = f"p = {test.p_value:.4f}, Holm p = {test.p_holm:.4f}"
    if test.significant:
        return dataclasses.replace(delta, reason=f"{delta.reason}; significant after Holm ({holm})")
    return dataclasses.replace(
        delta, status="pass", reason=f"{delta.reason}; not significant after Holm ({holm}): not blocked"
    )


def apply_mode(deltas: Sequence[MetricDelta], mode: GateMode) -> tuple[MetricDelta, ...]:
    if mode == "tolerance":
        return tuple(deltas)
    return tuple(decide_statistically(delta) for delta in deltas)
