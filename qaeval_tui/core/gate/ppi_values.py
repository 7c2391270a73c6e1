"""The `ppi` block of a baseline or run artifact, read strictly: what `judge_metrics = "ppi"` gates against.

Written by `qaeval baseline` (when the store held labels on the run's cases) and by `qaeval run`:
`{"ppi": {"metrics": {<judge metric>: {"value": rate | null, ...}, ...}, ...}}`. Only the values
are read back; each must be a rate in [0, 1] or null, under a judge-scored metric's name.
"""

from __future__ import annotations

from typing import Any

from qaeval_tui.core.running.metrics import METRIC_SPECS, rate_problem

JsonPath = tuple[str | int, ...]


def ppi_problems(block: object) -> list[tuple[JsonPath, str]]:
    """Every reason the `ppi` block cannot be gated against (none when it is absent)."""
    if block is None:
        return []
    metrics = block.get("metrics") if isinstance(block, dict) else None
    if not isinstance(metrics, dict):
        return [(("ppi",), "must be an object with `metrics`: metric -> {value, ...}")]
    found: list[tuple[JsonPath, str]] = []
    for name, entry in metrics.items():
        where: JsonPath = ("ppi", "metrics", name)
        spec = METRIC_SPECS.get(name)
        if spec is None or spec.judge_axis is None:
            found.append((where, f"{name!r} is no judge-scored metric"))
        elif not isinstance(entry, dict):
            found.append((where, "must be an object with `value`"))
        elif (problem := rate_problem(entry.get("value"))) is not None:
            found.append(((*where, "value"), problem))
    return found


def ppi_values(block: Any) -> dict[str, float | None]:
    """Metric -> PPI value of a block `ppi_problems` passed (empty when there is none)."""
    if not isinstance(block, dict):
        return {}
    return {name: entry.get("value") for name, entry in block["metrics"].items()}
