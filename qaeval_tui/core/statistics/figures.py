"""What the pictures show, as plain data: the apps draw it with Unicode blocks, the HTML reports as SVG.

Every number here comes from a report the CLI prints (agreement, calibration, drift, the gate), so
a picture can never disagree with its table. An interval is carried only where the report prints
one; a figure the report leaves undefined carries the report's reason instead of a number.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from statistics import median

from qaeval_tui.core.statistics.agreement import AgreementReport
from qaeval_tui.core.statistics.calibration import CalibrationReport
from qaeval_tui.core.statistics.drift import DriftPoint, check_drift
from qaeval_tui.core.store.rows import RunRecord, StoredLabel

PACE_POINTS = 40
"""The reviewer's last items a pace picture shows (older ones scroll off)."""


@dataclass(frozen=True)
class IntervalPoint:
    """One row of an interval figure: a point and its interval, either of which may be missing."""

    label: str
    value: float | None
    low: float | None = None
    high: float | None = None
    note: str = ""
    """Why there is no value or no interval (the report's own reason), or ""."""


@dataclass(frozen=True)
class IntervalFigure:
    """Points with their intervals on one axis of values (one row per rubric axis)."""

    name: str
    """Short identifier (`alpha`, `exact`): the SVG's data-figure."""
    title: str
    points: tuple[IntervalPoint, ...]
    domain: tuple[float, float]
    reference: float | None = None
    """A line to read the points against (the calibration bar, zero for a delta), or None."""
    reference_label: str = ""


@dataclass(frozen=True)
class HeatMap:
    """A confusion table: rows are the human consensus, columns the judge, in scale order."""

    name: str
    scale: tuple[int, ...]
    counts: tuple[tuple[int, ...], ...]

    def share(self, row: int, column: int) -> float:
        """The cell's share of its row (0 for an empty row)."""
        total = sum(self.counts[row])
        return self.counts[row][column] / total if total else 0.0


@dataclass(frozen=True)
class BandedSeries:
    """A metric's history (oldest first) and the drift band its latest point is judged against."""

    metric: str
    labels: tuple[str, ...]
    """Each point's run id."""
    values: tuple[float | None, ...]
    low: float | None
    high: float | None
    center: float | None
    state: str
    """The drift state of the latest point: ok, alarm, warming_up or n/a."""
    message: str


@dataclass(frozen=True)
class Pace:
    """Seconds a reviewer spent on each label of their queue, in the order submitted (the last few)."""

    reviewer: str
    seconds: tuple[float, ...]
    median: float | None
    items: int
    """Every label submitted on the queue, a revision counted too (`seconds` holds the last PACE_POINTS)."""


def _ends(interval: tuple[float, float] | None) -> tuple[float | None, float | None]:
    return (None, None) if interval is None else (interval[0], interval[1])


def agreement_figures(report: AgreementReport) -> tuple[IntervalFigure, IntervalFigure]:
    """Alpha per axis with its bootstrap interval, and raw agreement (which has no interval)."""
    alphas, raws = [], []
    for name, axis in report.axes.items():
        ci = axis.alpha.ci
        note = axis.alpha.reason or "" if axis.alpha.value is None else axis.alpha.ci_reason or ""
        alphas.append(IntervalPoint(name, axis.alpha.value, *_ends(ci), note=note))
        raws.append(IntervalPoint(name, axis.raw_agreement, note="" if axis.raw_agreement is not None else "undefined"))
    confidence = f"{report.confidence:.0%}"
    return (
        IntervalFigure(
            "alpha",
            f"Krippendorff's alpha per axis, {confidence} bootstrap CI",
            tuple(alphas),
            (-1.0, 1.0),
            0.0,
            "chance",
        ),
        IntervalFigure("raw_agreement", "Raw agreement per axis (no interval)", tuple(raws), (0.0, 1.0)),
    )


def calibration_figures(report: CalibrationReport) -> tuple[IntervalFigure, IntervalFigure]:
    """Judge vs human: exact agreement with its Wilson interval against the bar, and alpha (judge as a coder)."""
    exact, alpha = [], []
    for name, axis in report.axes.items():
        exact.append(IntervalPoint(name, axis.exact, *_ends(axis.exact_ci), note=axis.exact_ci_reason or ""))
        value = axis.alpha.value if axis.alpha is not None else None
        reason = axis.alpha.reason if axis.alpha is not None and value is None else axis.alpha_ci_reason
        alpha.append(IntervalPoint(name, value, *_ends(axis.alpha_ci), note=reason or ""))
    bar = report.to_json()["bar"]["min_exact"]
    return (
        IntervalFigure("exact", "Exact agreement, judge vs human, 95% Wilson CI", tuple(exact), (0.0, 1.0), bar, "bar"),
        IntervalFigure("judge_alpha", "Alpha with the judge as a coder", tuple(alpha), (-1.0, 1.0), 0.0, "chance"),
    )


def confusion_maps(report: CalibrationReport) -> tuple[HeatMap, ...]:
    return tuple(
        HeatMap(name, axis.scale, tuple(tuple(row) for row in axis.confusion)) for name, axis in report.axes.items()
    )


def point_from_record(run: RunRecord) -> DriftPoint | None:
    """A stored run as a drift point (None for a run with no overall metrics or judge config)."""
    overall = run.metrics.get("overall")
    if not isinstance(overall, dict) or run.judge_config_hash is None:
        return None
    values: dict[str, float | None] = {}
    for name, metric in overall.items():
        value = metric.get("value") if isinstance(metric, dict) else None
        values[str(name)] = float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
    return DriftPoint(run.finished_at, run.run_id, run.suite_hash, run.judge_config_hash, values)


def points_from_runs(runs: Sequence[RunRecord]) -> list[DriftPoint]:
    """Stored runs (any order) as a drift series, oldest first."""
    points = [point for run in runs if (point := point_from_record(run)) is not None]
    return sorted(points, key=lambda point: (point.at, point.run_id))


def metric_histories(
    points: Sequence[DriftPoint],
    metrics: Sequence[str],
    *,
    window: int = 10,
    sigma: float = 3.0,
    min_band: float = 0.02,
    last: int = 30,
) -> tuple[BandedSeries, ...]:
    """Each metric's history over the points comparable with the latest (same suite and judge config),
    and the latest point's band as `qaeval drift` computes it (the trailing `window` before it)."""
    if not points:
        return ()
    latest = points[-1]
    comparable = [
        p for p in points if p.suite_hash == latest.suite_hash and p.judge_config_hash == latest.judge_config_hash
    ]
    report = check_drift(comparable[:-1], latest, window=window, sigma=sigma, min_band=min_band)
    bands = {band.metric: band for band in report.bands}
    shown = comparable[-last:]
    series = []
    for metric in metrics:
        band = bands.get(metric)
        if band is None:
            continue
        series.append(
            BandedSeries(
                metric,
                tuple(point.run_id for point in shown),
                tuple(point.metrics.get(metric) for point in shown),
                band.low,
                band.high,
                band.center,
                band.state,
                band.message,
            )
        )
    return tuple(series)


def reviewer_pace(revisions: Sequence[StoredLabel], queues: Mapping[str, AbstractSet[str]]) -> list[Pace]:
    """Per reviewer with a queue: seconds spent on each submitted label of their queue, in commit order."""
    spent: dict[str, list[float]] = {reviewer: [] for reviewer in queues}
    for revision in revisions:
        queue = queues.get(revision.reviewer)
        if queue is None or revision.item_id not in queue or revision.skipped:
            continue
        spent[revision.reviewer].append(float(revision.seconds_spent))
    return [
        Pace(reviewer, tuple(seconds[-PACE_POINTS:]), median(seconds) if seconds else None, len(seconds))
        for reviewer, seconds in sorted(spent.items())
    ]
