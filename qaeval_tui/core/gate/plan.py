"""`qaeval plan`: the suite size a target minimum detectable effect needs, per metric, from a baseline.

The same figures the gate computes (core/gate/power.py) before any change exists: the planning sd
from the baseline's per-case values, the family size m of the metrics the gate would check. A
metric applies to n of the baseline's N cases, so k cases of it need about k x N / n cases in all.
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
    mde: float | None  # what the suite resolves now
    target: float
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
            "mde_formula": power.FORMULA,
            "metrics": [metric.to_json() for metric in self.metrics],
        }


def plan_suite(
    baseline: Baseline, tolerances: Mapping[str, float], target: float | None, names: Sequence[str] = ()
) -> SuitePlan:
    """Per metric (the gated ones, or `names`): what the baseline's suite resolves, and what resolves `target`
    (default: the metric's tolerance)."""
    if target is not None and not 0.0 < target <= 1.0:
        raise UsageError(f"--mde: must be a number above 0 and at most 1, got {target}")
    unknown = [name for name in names if name not in METRIC_NAMES]
    if unknown:
        raise UsageError(f"--metric: unknown metric {unknown[0]!r}; known: {', '.join(METRIC_NAMES)}")
    per_metric = {name: _values(baseline, name) for name in METRIC_NAMES}
    gated = [name for name in METRIC_NAMES if name in tolerances and per_metric[name]]
    family = max(1, len(gated))
    chosen = list(dict.fromkeys(names)) or [name for name in METRIC_NAMES if name in tolerances]
    total = len(baseline.cases)
    plans = []
    for name in chosen:
        goal = target if target is not None else tolerances.get(name, 0.0)
        values = per_metric[name]
        if not values:
            plans.append(MetricPlan(name, 0, None, None, goal, None, None, "no value in the baseline"))
            continue
        sd = power.planning_sd(values)
        needed = power.cases_needed(sd, goal, family)
        suite = None if needed is None else math.ceil(needed * total / len(values))
        reason = None if needed is not None else "never (target 0)"
        mde = power.minimum_detectable_effect(sd, len(values), family)
        plans.append(MetricPlan(name, len(values), sd, mde, goal, needed, suite, reason))
    return SuitePlan(baseline.path, total, family, tuple(plans))


def _values(baseline: Baseline, name: str) -> list[float]:
    return [value for case in baseline.cases.values() if (value := case.values.get(name)) is not None]
