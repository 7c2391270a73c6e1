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

from qaeval_tui.core.atomic_file import append_line_atomically, held_lock, remove_leftover_temps, why_not_written
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
    version = raw.get("version")
    if type(version) is not int or version != DRIFT_VERSION:  # by type: true == 1 in Python
        problems.append(Problem(path, line, "version", f"must be {DRIFT_VERSION}, got {version!r}"))
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
    """Why a metric value cannot enter a band: not a number, NaN, an infinity, or (a known metric) outside its bounds.

    One 1e308 in the window would widen the band past any real drop, so it is refused, not averaged.
    """
    if name in METRIC_SPECS:
        return rate_problem(value, METRIC_SPECS[name].bounds)
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
    """Add one line to the series atomically: a reader, or a writer killed halfway, sees the old series or the new.

    Appending in place could leave half a line behind (a kill, a full disk), and every later run
    would then stop at that line. The series is rewritten whole to a temporary file and renamed
    over the old one, under a lock, so two runs appending at once both keep their point; a
    temporary file a killed run left behind is removed.
    """
    location = Path(path)
    line = json.dumps(point.to_json(), ensure_ascii=False, sort_keys=True, allow_nan=False)
    target = Path(os.path.realpath(location))  # a link keeps pointing at the series it names
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with held_lock(target.parent / f".{target.name}.lock"):
            remove_leftover_temps(target.parent, lambda name: name == target.name)
            append_line_atomically(target, line)
    except OSError as exc:
        raise UsageError(f"{location}: cannot append to the time series: {why_not_written(location, exc)}") from exc


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
    low, high = max(0.0, center - half), min(1.0, center + half)  # every metric is a rate in [0, 1]
    higher_is_better = METRIC_SPECS[metric].higher_is_better if metric in METRIC_SPECS else True
    where = f"band [{low:.3f}, {high:.3f}] (mean of the last {n}: {center:.3f})"
    if value < low:
        return Band(metric, value, center, low, high, n, "alarm", f"dropped to {value:.3f}, below its {where}")
    if value > high and not higher_is_better:
        return Band(metric, value, center, low, high, n, "alarm", f"rose to {value:.3f}, above its {where}")
    return Band(metric, value, center, low, high, n, "ok", f"{value:.3f} within its {where}")


# Beyond these a band is so wide that no drop ever leaves it: the alarm is off without a word.
# Every metric is in [0, 1], so a half-width of 0.5 already lets a metric halve unnoticed; and
# a value 10 standard deviations below a stable mean is never noise.
MAX_SIGMA = 10.0
MAX_MIN_BAND = 0.5


def check_options(window: int, sigma: float, min_band: float) -> None:
    """Refuse band settings that could hide a drop (a NaN, infinite or huge width never alarms): UsageError."""
    if isinstance(window, bool) or not isinstance(window, int) or window < 1:
        raise UsageError(f"--window must be a whole number, 1 or more, got {window!r}")
    for option, value, highest in (("--sigma", sigma, MAX_SIGMA), ("--min-band", min_band, MAX_MIN_BAND)):
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= highest:
            raise UsageError(
                f"{option} must be a number from 0 to {highest:g}, got {value!r}: a wider band never alarms, "
                "so it would switch drift detection off"
            )


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
