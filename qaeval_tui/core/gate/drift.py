"""Drift: a JSONL time series of run metrics, and an alarm when a metric leaves its band.

The band of a metric is the mean of the trailing window of comparable points (same suite and
same judge config: anything else measures something else) plus or minus `sigma` standard
deviations, never narrower than `min_band` on either side. Higher-is-better metrics alarm on
a drop only; lower-is-better ones (over-refusal) in both directions, because a system going
quiet to stay safe is also a failure.
"""

from __future__ import annotations

import json
import math
import os
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from qaeval_tui.core.errors import InputError, Problem, UsageError
from qaeval_tui.core.jsonl import json_object_lines
from qaeval_tui.core.running.metrics import METRIC_NAMES, METRIC_SPECS, rate_problem
from qaeval_tui.core.running.result import RunResult

DRIFT_VERSION = 1


@dataclass(frozen=True)
class DriftPoint:
    at: str
    run_id: str
    suite_hash: str
    judge_config_hash: str
    metrics: dict[str, float | None]

    def to_json(self) -> dict[str, Any]:
        return {
            "version": DRIFT_VERSION,
            "at": self.at,
            "run_id": self.run_id,
            "suite_hash": self.suite_hash,
            "judge_config_hash": self.judge_config_hash,
            "metrics": self.metrics,
        }


def point_from_run(result: RunResult) -> DriftPoint:
    return DriftPoint(
        at=result.finished_at,
        run_id=result.run_id,
        suite_hash=result.suite_hash,
        judge_config_hash=result.judge_config.config_hash(),
        metrics={name: result.board.overall[name].value for name in METRIC_NAMES},
    )


def _point(raw: object, path: str, line: int) -> tuple[DriftPoint | None, list[Problem]]:
    if not isinstance(raw, dict):
        return None, [Problem(path, line, "(line)", "each line must be a JSON object")]
    problems = []
    if raw.get("version") != DRIFT_VERSION:
        problems.append(Problem(path, line, "version", f"must be {DRIFT_VERSION}, got {raw.get('version')!r}"))
    for key in ("at", "run_id", "suite_hash", "judge_config_hash"):
        if not isinstance(raw.get(key), str):
            problems.append(Problem(path, line, key, "required text field"))
    metrics = raw.get("metrics")
    if not isinstance(metrics, dict):
        problems.append(Problem(path, line, "metrics", "must be an object of metric -> number or null"))
        metrics = {}
    for name, value in metrics.items():
        problem = value_problem(name, value)
        if problem is not None:
            problems.append(Problem(path, line, f"metrics.{name}", problem))
    if problems:
        return None, problems
    values = {str(name): None if value is None else float(value) for name, value in metrics.items()}
    return DriftPoint(raw["at"], raw["run_id"], raw["suite_hash"], raw["judge_config_hash"], values), []


def value_problem(name: str, value: object) -> str | None:
    """Why a metric value cannot enter a band: not a number, NaN, an infinity, or (a known metric) outside [0, 1].

    One 1e308 in the window would widen the band past any real drop, so it is refused, not averaged.
    """
    if name in METRIC_SPECS:
        return rate_problem(value)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
        return f"must be a number or null, got {value!r}"
    if value is not None and not math.isfinite(value):
        return f"must be a finite number, got {value!r}"
    return None


def read_timeseries(path: str | Path) -> list[DriftPoint]:
    """Every point of the series (none if the file does not exist yet); a bad line is an InputError."""
    location = Path(path)
    if not location.exists():
        return []
    try:
        text = location.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{location}: cannot read the time series: {exc}") from exc
    points: list[DriftPoint] = []
    problems: list[Problem] = []
    for number, raw in json_object_lines(text, location, problems):
        point, found = _point(raw, str(location), number)
        problems.extend(found)
        if point is not None:
            points.append(point)
    if problems:
        raise InputError(problems, what="drift time series")
    return points


def append_point(path: str | Path, point: DriftPoint) -> None:
    """Append one line and flush it to disk, so an acknowledged point survives a crash."""
    location = Path(path)
    try:
        location.parent.mkdir(parents=True, exist_ok=True)
        needs_newline = location.exists() and location.stat().st_size > 0 and not location.read_bytes().endswith(b"\n")
        with location.open("a", encoding="utf-8") as handle:
            if needs_newline:
                handle.write("\n")
            handle.write(json.dumps(point.to_json(), ensure_ascii=False, sort_keys=True, allow_nan=False) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as exc:
        raise UsageError(f"{location}: cannot append to the time series: {exc.strerror}") from exc


@dataclass(frozen=True)
class Band:
    metric: str
    value: float | None
    center: float | None
    low: float | None
    high: float | None
    n: int
    state: Literal["ok", "alarm", "warming_up", "n/a"]
    message: str

    def to_json(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "value": self.value,
            "center": self.center,
            "low": self.low,
            "high": self.high,
            "n": self.n,
            "state": self.state,
            "message": self.message,
        }


@dataclass(frozen=True)
class DriftReport:
    point: DriftPoint
    bands: tuple[Band, ...]
    compared: int
    skipped: int
    window: int
    sigma: float
    min_band: float
    judge_errors: tuple[tuple[str, str], ...] = ()

    @property
    def alarms(self) -> list[Band]:
        return [band for band in self.bands if band.state == "alarm"]

    @property
    def alarmed(self) -> bool:
        """A band alarm, or a judge that failed on some case (its point measures less than the others)."""
        return bool(self.alarms or self.judge_errors)

    @property
    def exit_code(self) -> int:
        return 1 if self.alarmed else 0

    def to_json(self) -> dict[str, Any]:
        return {
            "format": "qaeval-drift",
            "version": DRIFT_VERSION,
            "alarm": self.alarmed,
            "alarms": [band.metric for band in self.alarms],
            "judge_errors": [{"case_id": case_id, "error": error} for case_id, error in self.judge_errors],
            "appended": not self.judge_errors,
            "point": self.point.to_json(),
            "metrics": [band.to_json() for band in self.bands],
            "history": {"compared": self.compared, "skipped_other_suite_or_judge": self.skipped},
            "window": self.window,
            "sigma": self.sigma,
            "min_band": self.min_band,
        }


def _band(
    metric: str, value: float | None, history: Sequence[float], sigma: float, min_band: float, min_points: int
) -> Band:
    n = len(history)
    if value is None and n:  # a metric that stops being measured has not held steady
        return Band(metric, None, None, None, None, n, "alarm", f"no value in this run; the last {n} point(s) had one")
    if value is None:
        return Band(metric, None, None, None, None, n, "n/a", "no value in this run")
    if n < min_points:
        return Band(
            metric, value, None, None, None, n, "warming_up", f"{n} earlier point(s); {min_points} needed for a band"
        )
    center = statistics.fmean(history)
    half = max(sigma * statistics.pstdev(history), min_band)
    low, high = center - half, center + half
    higher_is_better = METRIC_SPECS[metric].higher_is_better if metric in METRIC_SPECS else True
    where = f"band [{low:.3f}, {high:.3f}] (mean of the last {n}: {center:.3f})"
    if value < low:
        return Band(metric, value, center, low, high, n, "alarm", f"dropped to {value:.3f}, below its {where}")
    if value > high and not higher_is_better:
        return Band(metric, value, center, low, high, n, "alarm", f"rose to {value:.3f}, above its {where}")
    return Band(metric, value, center, low, high, n, "ok", f"{value:.3f} within its {where}")


def check_options(window: int, sigma: float, min_band: float) -> None:
    """Refuse band settings that could hide a drop (a NaN or infinite width never alarms): UsageError."""
    if window < 1:
        raise UsageError(f"--window must be at least 1, got {window}")
    for option, value in (("--sigma", sigma), ("--min-band", min_band)):
        if not math.isfinite(value) or value < 0:
            raise UsageError(f"{option} must be a finite number, 0 or more, got {value!r}")


def check_drift(
    history: Sequence[DriftPoint],
    point: DriftPoint,
    *,
    window: int = 10,
    sigma: float = 3.0,
    min_band: float = 0.02,
    min_points: int = 3,
    judge_errors: Sequence[tuple[str, str]] = (),
) -> DriftReport:
    """Compare `point` with the trailing `window` comparable points of `history` (which excludes it).

    `judge_errors` are (case id, error) of the cases the judge failed on in this run: an alarm.
    """
    check_options(window, sigma, min_band)
    comparable = [
        p for p in history if p.suite_hash == point.suite_hash and p.judge_config_hash == point.judge_config_hash
    ]
    trailing = comparable[-window:]
    bands = []
    for metric in METRIC_NAMES:
        values = [p.metrics[metric] for p in trailing if p.metrics.get(metric) is not None]
        bands.append(
            _band(metric, point.metrics.get(metric), [v for v in values if v is not None], sigma, min_band, min_points)
        )
    return DriftReport(
        point,
        tuple(bands),
        len(trailing),
        len(history) - len(comparable),
        window,
        sigma,
        min_band,
        tuple(judge_errors),
    )
