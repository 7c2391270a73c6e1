"""`qaeval plan`: the suite size a target minimum detectable effect needs, per metric, from a baseline.

The same figures the gate computes (core/gate/power.py `planned`) before any change exists: the
planning sd from the baseline's per-case values, the family size m of the metrics the gate would
check, and the floor of the sign-flip test (a metric on too few cases has no finite MDE). A metric
applies to n of the baseline's N cases, so k cases of it need about k x N / n cases in all. A metric
with no tolerance is not gated: it has no target unless --mde gives one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.gate import power
from qaeval_tui.core.gate.baseline import Baseline
from qaeval_tui.core.running.metrics import METRIC_NAMES

PLAN_FORMAT = "qaeval-plan"


@dataclass(frozen=True)
class MetricPlan:
    name: str
    n: int  # baseline cases the metric applies to
    sd_paired: float | None
    mde: float | None  # what the suite resolves now; None: no finite MDE (or no value)
    target: float | None  # None: not gated and no --mde
    cases_needed: int | None  # cases the metric applies to, for an MDE of `target`
    suite_size_needed: int | None  # cases in all, at the baseline's share of applicable cases
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "n": self.n,
            "sd_paired": self.sd_paired,
            "mde": self.mde,
            "target_mde": self.target,
            "cases_needed": self.cases_needed,
            "suite_size_needed": self.suite_size_needed,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class SuitePlan:
    baseline: str
    n_cases: int
    family: int  # m: metrics the gate would check
    metrics: tuple[MetricPlan, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "format": PLAN_FORMAT,
            "version": 1,
            "baseline": self.baseline,
            "n_cases": self.n_cases,
            "alpha": power.ALPHA,
            "power": power.POWER,
            "metrics_checked": self.family,
            # Below this many cases a metric has no finite MDE: m x 2^(1 - n) > alpha.
            "fewest_cases_for_significance": power.floor_cases(self.family),
            "mde_formula": power.FORMULA,
            "metrics": [metric.to_json() for metric in self.metrics],
        }


def plan_suite(
    baseline: Baseline,
    tolerances: Mapping[str, float],
    target: float | None,
    names: Sequence[str] = (),
    mode: str = "tolerance",
) -> SuitePlan:
    """Per metric (the gated ones, or `names`): what the baseline's suite resolves, and what resolves `target`
    (default: the metric's tolerance). In `statistical` mode a zero tolerance is a rule per case, outside
    the tested family, as the gate decides it."""
    if target is not None and not 0.0 < target <= 1.0:
        raise UsageError(f"--mde: must be a number above 0 and at most 1, got {target}")
    unknown = [name for name in names if name not in METRIC_NAMES]
    if unknown:
        raise UsageError(f"--metric: unknown metric {unknown[0]!r}; known: {', '.join(METRIC_NAMES)}")
    per_metric = {name: _values(baseline, name) for name in METRIC_NAMES}
    per_case = {name for name, value in tolerances.items() if mode == "statistical" and value == 0.0}
    gated = [name for name in METRIC_NAMES if name in tolerances and per_metric[name] and name not in per_case]
    family = max(1, len(gated))
    chosen = list(dict.fromkeys(names)) or [name for name in METRIC_NAMES if name in tolerances]
    total = len(baseline.cases)
    plans = []
    for name in chosen:
        goal = target if target is not None else tolerances.get(name)
        values = per_metric[name]
        if not values:
            plans.append(MetricPlan(name, 0, None, None, goal, None, None, "no value in the baseline"))
            continue
        suite = power.planned(values, family)
        needed = None if goal is None else power.cases_needed(suite.sd, goal, family)
        size = None if needed is None else math.ceil(needed * total / len(values))
        note = _note(suite, goal, needed)
        if name in per_case and target is None:
            note = "zero tolerance: decided per case (no case may go from pass to fail), no test to plan"
        plans.append(MetricPlan(name, len(values), suite.sd, suite.mde, goal, needed, size, note))
    return SuitePlan(baseline.path, total, family, tuple(plans))


def _note(suite: power.SuiteMDE, goal: float | None, needed: int | None) -> str | None:
    notes = []
    if goal is None:
        notes.append("not gated (no tolerance): --mde X plans a target")
    elif goal <= 0.0:
        notes.append("never (target 0)")
    elif needed is None and suite.sd > 0.0:
        notes.append(f"no countable suite resolves {goal:.3g} (more than {power.MAX_PLANNED_CASES:.0e} cases)")
    if suite.mde is None:
        notes.append(
            f"no finite MDE: with {suite.n} cases the smallest Holm p-value the test can reach is "
            f"{suite.smallest_p_holm:.3g} > {power.ALPHA}"
        )
    return "; ".join(notes) or None


def _values(baseline: Baseline, name: str) -> list[float]:
    return [value for case in baseline.cases.values() if (value := case.values.get(name)) is not None]
