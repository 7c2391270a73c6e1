"""The `ppi` block of a baseline or run artifact, read strictly: what `judge_metrics = "ppi"` gates against.

Written by `qaeval baseline` (when the store held labels on the run's cases) and by `qaeval run`:
`{"ppi": {"metrics": {<judge metric>: {"value": rate | null, "ci": [low, high] | null,
"n_labelled": int, "reason": text | null, ...}, ...}, ...}}`. Read back: the value, the interval,
the labelled count and the reason (the rest is for people). A value and each end of the interval
must be a rate in [0, 1] or null, `n_labelled` a whole number, under a judge-scored metric's name;
`ci` and `n_labelled` may be absent (a file written before they were read back): the gate then
refuses to gate on that estimate rather than guess its precision (ppi_gate.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from qaeval_tui.core.running.metrics import METRIC_SPECS, rate_problem

JsonPath = tuple[str | int, ...]


@dataclass(frozen=True)
class RecordedPPI:
    """One metric's PPI estimate as a baseline recorded it, and where: what the gate compares with."""

    value: float | None
    ci: tuple[float, float] | None
    """None: no interval recorded (null, or absent from an older file)."""
    n_labelled: int | None
    """None: not recorded (absent from an older file)."""
    reason: str | None
    """Why the estimate or its interval is missing, as recorded."""
    path: str
    line: int
    """Line of the metric's entry in the file."""


def _ci_problem(ci: object) -> str | None:
    if ci is None:
        return None
    if not isinstance(ci, list) or len(ci) != 2:
        return f"must be [low, high] or null, got {ci!r}"
    for end in ci:
        if end is None or (problem := rate_problem(end)) is not None:
            return f"each end {problem or 'must be a number'}"
    if ci[0] > ci[1]:
        return f"low must not exceed high, got {ci!r}"
    return None


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
            continue
        if not isinstance(entry, dict):
            found.append((where, "must be an object with `value`"))
            continue
        if (problem := rate_problem(entry.get("value"))) is not None:
            found.append(((*where, "value"), problem))
        if (problem := _ci_problem(entry.get("ci"))) is not None:
            found.append(((*where, "ci"), problem))
        n = entry.get("n_labelled", 0)
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            found.append(((*where, "n_labelled"), f"must be a whole number, 0 or more, got {n!r}"))
        if not isinstance(entry.get("reason"), str | None):
            found.append(((*where, "reason"), f"must be text or null, got {entry.get('reason')!r}"))
    return found


def ppi_values(block: Any, path: str, line_of: Callable[[JsonPath], int]) -> dict[str, RecordedPPI]:
    """Metric -> recorded estimate of a block `ppi_problems` passed (empty when there is none).

    `line_of` finds a JSON path's line in the file at `path`."""
    if not isinstance(block, dict):
        return {}
    return {
        name: RecordedPPI(
            value=entry.get("value"),
            ci=None if entry.get("ci") is None else (entry["ci"][0], entry["ci"][1]),
            n_labelled=entry.get("n_labelled"),
            reason=entry.get("reason"),
            path=path,
            line=line_of(("ppi", "metrics", name)),
        )
        for name, entry in block["metrics"].items()
    }
