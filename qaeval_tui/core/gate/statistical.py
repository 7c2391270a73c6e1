"""The statistical side of Tier 2: a p-value, Holm's correction and the minimum detectable effect for
every gated metric, and the `statistical` mode's decision (fireassay's gate).

Every metric with a tolerance and a value on at least one case both runs share is checked: its
paired differences are tested with a sign-flip permutation test (core/statistics/significance.py:
exact when small enough, else at least `power.flips(m)` seeded random flips), the p-values are
Holm-corrected across every metric checked, and its MDE at the corrected level is set beside its
tolerance. The MDE is the suite's, planned from the baseline's values on the paired cases exactly as
`qaeval plan` plans it (core/gate/power.py), so the change under test never moves it; a suite so
small that the test cannot reach the corrected level has none. A tolerance below the MDE is a drop
the suite cannot tell from noise.

`tolerance` mode (the default) keeps the tolerance decision and warns beside such a tolerance.
`statistical` mode blocks a metric when its drop is at least its tolerance *and* significant after
Holm (a verdict reached, whatever the MDE), and otherwise refuses (no verdict: exit 3) a metric
whose tolerance is below its MDE, or whose drop beyond the tolerance the test could not have found
significant (too few cases changed: the smallest Holm p-value it can reach is above alpha), so
"not significant" never passes a drop the test was blind to. A metric that lost its values fails in
both modes: that is no question of noise. Tier 1 is the same in both.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Literal

from qaeval_tui.core.gate import power
from qaeval_tui.core.gate.delta import MetricDelta, MetricTest, SharedCase
from qaeval_tui.core.running.metrics import METRIC_SPECS
from qaeval_tui.core.statistics.significance import SignFlipTest, holm_adjusted, sign_flip_test

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


def checked(
    deltas: Sequence[MetricDelta], shared: Sequence[SharedCase], mode: GateMode = "tolerance"
) -> dict[str, tuple[list[float], list[float]]]:
    """The metrics Holm's family holds (gated: a tolerance and a baseline value; paired on some case),
    each with its paired differences and baseline values. In `statistical` mode a zero tolerance is a
    rule per case (core/gate/delta.py), not a test: it stays out of the family."""
    family = {}
    for delta in deltas:
        per_case = mode == "statistical" and delta.tolerance == 0.0
        if delta.tolerance is not None and delta.status != "n/a" and not per_case:
            differences, before = paired_values(delta.name, shared)
            if differences:
                family[delta.name] = (differences, before)
    return family


def unresolved_warning(name: str, tolerance: float, suite: power.SuiteMDE, needed: int | None) -> str:
    """ "this suite cannot resolve a 0.02 drop in faithfulness_rate; it resolves 0.11 with 39 cases; ..." """
    change = "drop" if METRIC_SPECS[name].higher_is_better else "rise"
    more = (
        f"~{needed} cases would resolve {power.short(tolerance)}"
        if needed is not None
        else f"no number of cases resolves a {change} of 0"
        if tolerance <= 0.0
        else f"no countable number of cases resolves a {change} of {power.short(tolerance)}"
    )
    cases = f"{suite.n} case" + ("" if suite.n == 1 else "s")
    if suite.mde is None:
        resolves = (
            f"with {cases} no {change} can be significant (the smallest Holm p-value the test can reach is "
            f"{suite.smallest_p_holm:.3g} > {power.ALPHA})"
        )
    elif suite.mde <= 1.0:
        resolves = f"it resolves {power.short(suite.mde)} with {cases}"
    else:
        resolves = f"with {cases} it resolves no {change} a metric in [0, 1] can make (MDE {power.short(suite.mde)})"
    return f"this suite cannot resolve a {power.short(tolerance)} {change} in {name}; {resolves}; {more}"


def attach_tests(
    deltas: Sequence[MetricDelta],
    shared: Sequence[SharedCase],
    replicates: int,
    seed: int,
    mode: GateMode = "tolerance",
) -> tuple[MetricDelta, ...]:
    """Each gated, paired metric with its test attached (the others as they were). The MDE is planned
    from the baseline's values on the paired cases, as `qaeval plan` plans it; the test draws at least
    `power.flips(m)` random flips when it is not exact."""
    pairs = checked(deltas, shared, mode)
    if not pairs:
        return tuple(deltas)
    names, family = list(pairs), len(pairs)
    flips = power.flips(family, replicates)
    tested: dict[str, tuple[SignFlipTest, power.SuiteMDE]] = {}
    for name, (differences, before) in pairs.items():
        tested[name] = (sign_flip_test(differences, flips, seed), power.planned(before, family))
    adjusted = dict(zip(names, holm_adjusted([tested[name][0].p_value for name in names]), strict=True))
    out = []
    for delta in deltas:
        if delta.name not in tested or delta.tolerance is None:
            out.append(delta)
            continue
        result, suite = tested[delta.name]
        needed = power.cases_needed(suite.sd, delta.tolerance, family)
        below = suite.mde is None or delta.tolerance < suite.mde - _EPSILON
        warning = unresolved_warning(delta.name, delta.tolerance, suite, needed) if below else None
        test = MetricTest(
            n=suite.n,
            p_value=result.p_value,
            p_holm=adjusted[delta.name],
            significant=adjusted[delta.name] <= power.ALPHA,
            sd_paired=suite.sd,
            mde=suite.mde,
            cases_needed=needed,
            warning=warning,
            method=result.method,
            n_changed=result.n_nonzero,
            smallest_p_holm=min(1.0, family * result.smallest_p_value),
        )
        out.append(dataclasses.replace(delta, test=test))
    return tuple(out)


def decide_statistically(delta: MetricDelta) -> MetricDelta:
    """`statistical` mode: block a significant drop beyond the tolerance; refuse a tolerance the suite cannot
    resolve, or a drop beyond it the test could not have found significant; pass the rest."""
    if delta.tolerance is None or delta.status in ("n/a", "info"):
        return delta
    lost_values = delta.status == "fail" and (delta.current is None or bool(delta.lost_cases))
    if lost_values:  # a metric that lost values fails whatever the noise
        return delta
    if delta.tolerance == 0.0:  # decided case by case (core/gate/delta.py): no test, nothing to refuse
        rule = "zero tolerance, decided per case: no case may go from pass to fail"
        return delta if delta.status == "fail" else dataclasses.replace(delta, reason=f"{rule}; none did")
    test = delta.test
    if test is None:
        why = (
            'a PPI estimate ([gate] judge_metrics = "ppi") is compared unpaired, so the paired test has nothing to test'
            if delta.basis == "ppi"
            else "no case both runs scored, so nothing to test"
        )
        return _refused(delta, why)
    holm = f"p = {test.p_value:.4f}, Holm p = {test.p_holm:.4f}"
    if delta.status == "fail" and test.significant:  # a verdict reached, whatever the suite resolves
        return dataclasses.replace(delta, reason=f"{delta.reason}; significant after Holm ({holm})")
    if test.warning is not None:
        plan = f"`qaeval plan --baseline BASELINE --metric {delta.name}` says what it would take"
        return _refused(delta, f"{test.warning}; {plan}")
    if delta.status != "fail":
        return delta
    if test.smallest_p_holm > power.ALPHA:  # "not significant" would say nothing: it could not be
        changed = f"{test.n_changed} case" + ("" if test.n_changed == 1 else "s")
        return _refused(
            delta,
            f"{delta.reason}; not significant after Holm ({holm}), and it could not be: with {changed} changed "
            f"the smallest Holm p-value the test can reach is {test.smallest_p_holm:.3g} > {power.ALPHA}",
        )
    return dataclasses.replace(
        delta, status="pass", reason=f"{delta.reason}; not significant after Holm ({holm}): not blocked"
    )


def _refused(delta: MetricDelta, why: str) -> MetricDelta:
    return dataclasses.replace(delta, status="refused", reason=f"{why}; no verdict: refusing is not passing")


def apply_mode(deltas: Sequence[MetricDelta], mode: GateMode) -> tuple[MetricDelta, ...]:
    if mode == "tolerance":
        return tuple(deltas)
    return tuple(decide_statistically(delta) for delta in deltas)
