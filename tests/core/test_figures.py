"""The pictures' data: a metric's history and band, a reviewer's pace, a stored run as a drift point."""

from __future__ import annotations

import statistics

import pytest

from qaeval_tui.core.statistics.drift import DriftPoint, check_drift
from qaeval_tui.core.statistics.figures import (
    PACE_POINTS,
    IntervalFigure,
    IntervalPoint,
    metric_histories,
    point_from_record,
    reviewer_pace,
)
from qaeval_tui.core.statistics.svg import interval_svg
from qaeval_tui.core.store.rows import RunRecord, StoredLabel


def point(run_id: str, value: float, suite: str = "S", at: str = "") -> DriftPoint:
    return DriftPoint(at or run_id, run_id, suite, "J", {"faithfulness_rate": value, "mrr": 0.5})


def test_a_history_keeps_the_runs_comparable_with_the_latest_and_its_band_is_drifts() -> None:
    values = [0.90, 0.94, 0.92, 0.96, 0.80]
    points = [point(f"r{i}", v) for i, v in enumerate(values)]
    points.insert(2, point("other", 0.1, suite="T"))  # another suite measures something else
    (series,) = metric_histories(points, ["faithfulness_rate"])
    assert series.labels == ("r0", "r1", "r2", "r3", "r4") and series.values == tuple(values)
    history = values[:-1]
    half = max(3 * statistics.pstdev(history), 0.02)
    assert series.low == pytest.approx(statistics.fmean(history) - half)
    assert series.high == pytest.approx(statistics.fmean(history) + half)
    expected = check_drift([p for p in points if p.suite_hash == "S"][:-1], points[-1]).bands[1]
    assert (series.state, series.message) == (expected.state, expected.message)
    assert metric_histories([], ["mrr"]) == ()


def test_too_few_earlier_runs_give_no_band() -> None:
    (series,) = metric_histories([point("a", 0.9), point("b", 0.5)], ["faithfulness_rate"])
    assert (series.low, series.high, series.state) == (None, None, "warming_up")


def test_a_stored_run_is_a_drift_point_of_its_overall_metrics() -> None:
    run = RunRecord(
        "run-1", "S", "hub", "mechanical", "J", "v", "t0", "t1", 2, {},
        {"overall": {"mrr": {"value": 0.75, "n": 2}, "abstention_recall": {"value": None, "n": 0}}},
    )  # fmt: skip
    found = point_from_record(run)
    assert found is not None and found.metrics == {"mrr": 0.75, "abstention_recall": None} and found.at == "t1"
    assert point_from_record(RunRecord("run-2", "S", "hub", None, None, "v", "t0", "t1", 0, {}, {})) is None


def label(reviewer: str, item: str, seconds: float, *, skipped: bool = False) -> StoredLabel:
    return StoredLabel(item, reviewer, 1, skipped, "1", False, False, seconds, {})


def test_pace_is_the_seconds_of_each_label_on_the_queue_in_order() -> None:
    revisions = [
        label("ana", "i1", 10), label("ana", "i2", 30, skipped=True), label("ana", "x", 99),  # off her queue
        label("ana", "i2", 20), label("ben", "i1", 5),
    ]  # fmt: skip
    ana, ben = reviewer_pace(revisions, {"ana": frozenset({"i1", "i2"}), "ben": frozenset({"i1"})})
    assert (ana.reviewer, ana.seconds, ana.median, ana.items) == ("ana", (10.0, 20.0), 15.0, 2)
    assert (ben.seconds, ben.median) == ((5.0,), 5.0)
    many = [label("ana", "i1", float(n)) for n in range(PACE_POINTS + 5)]
    (long,) = reviewer_pace(many, {"ana": frozenset({"i1"})})
    assert long.items == PACE_POINTS + 5 and long.seconds[0] == 5.0 and len(long.seconds) == PACE_POINTS
    (idle,) = reviewer_pace([], {"chloe": frozenset({"i9"})})
    assert (idle.seconds, idle.median) == ((), None)


def test_a_point_without_an_interval_is_drawn_alone_and_says_why() -> None:
    figure = IntervalFigure(
        "alpha", "alpha", (IntervalPoint("a", 0.5, 0.4, 0.6), IntervalPoint("b", 0.3, note="too few items")), (0.0, 1.0)
    )
    svg = interval_svg(figure)
    with_interval, alone = svg.split('<g class="point"')[1:]
    assert 'data-low="0.400000" data-high="0.600000"' in with_interval and "<line" in with_interval
    assert 'data-low="" data-high=""' in alone and "<line" not in alone and "too few items" in alone
