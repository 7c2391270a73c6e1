"""Drift bands: drops alarm for higher-is-better metrics, over-refusal alarms both ways."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qaeval_tui.core.errors import InputError
from qaeval_tui.core.running.metrics import METRIC_NAMES
from qaeval_tui.core.statistics.drift import DriftPoint, append_point, check_drift, read_timeseries


def point(run: int, suite: str = "suite-a", **metrics: float | None) -> DriftPoint:
    values: dict[str, float | None] = dict.fromkeys(METRIC_NAMES, 0.9)
    values["over_refusal_rate"] = 0.1
    values.update(metrics)
    return DriftPoint(f"2026-10-{run:02d}T00:00:00Z", f"run-{run}", suite, "judge-1", values)


HISTORY = [point(1), point(2, faithfulness_rate=0.92), point(3, faithfulness_rate=0.88), point(4)]


def band(report_metric: str, current: DriftPoint, history: list[DriftPoint] = HISTORY) -> tuple[str, str]:
    found = next(b for b in check_drift(history, current).bands if b.metric == report_metric)
    return found.state, found.message


def test_a_steady_metric_is_within_its_band() -> None:
    state, message = band("faithfulness_rate", point(5))
    assert state == "ok" and message.startswith("0.900 within its band")


def test_a_drop_below_the_band_alarms() -> None:
    state, message = band("faithfulness_rate", point(5, faithfulness_rate=0.70))
    assert state == "alarm" and message.startswith("dropped to 0.700, below its band")
    report = check_drift(HISTORY, point(5, faithfulness_rate=0.70))
    assert report.exit_code == 1 and [b.metric for b in report.alarms] == ["faithfulness_rate"]


def test_a_rise_of_a_higher_is_better_metric_never_alarms() -> None:
    assert band("faithfulness_rate", point(5, faithfulness_rate=1.0))[0] == "ok"


def test_over_refusal_alarms_in_both_directions() -> None:
    assert band("over_refusal_rate", point(5, over_refusal_rate=0.40))[0] == "alarm"
    state, message = band("over_refusal_rate", point(5, over_refusal_rate=0.0))
    assert state == "alarm" and message.startswith("dropped to 0.000")


def test_the_band_is_never_narrower_than_min_band() -> None:
    # History is perfectly flat at 0.9: a 0.01 wobble stays inside the 0.02 minimum half-width.
    assert band("mrr", point(5, mrr=0.89))[0] == "ok"
    assert band("mrr", point(5, mrr=0.87))[0] == "alarm"


def test_too_little_history_is_warming_up_not_an_alarm() -> None:
    state, message = band("faithfulness_rate", point(3, faithfulness_rate=0.1), HISTORY[:2])
    assert state == "warming_up" and message == "2 earlier point(s); 3 needed for a band"


def test_points_from_another_suite_or_judge_are_not_compared() -> None:
    mixed = [point(i, suite="suite-b", faithfulness_rate=0.1) for i in range(1, 6)] + HISTORY
    report = check_drift(mixed, point(9))
    assert report.compared == 4 and report.skipped == 5 and not report.alarms


def test_only_the_trailing_window_makes_the_band() -> None:
    old_bad = [point(i, faithfulness_rate=0.2) for i in range(1, 10)]
    report = check_drift(old_bad + HISTORY, point(20, faithfulness_rate=0.89), window=4)
    assert not report.alarms and report.compared == 4


def test_the_series_appends_and_reads_back(tmp_path: Path) -> None:
    path = tmp_path / "drift" / "series.jsonl"
    assert read_timeseries(path) == []
    for item in HISTORY:
        append_point(path, item)
    assert read_timeseries(path) == HISTORY
    assert len(path.read_text().splitlines()) == 4


def test_a_corrupt_series_names_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "series.jsonl"
    good = json.dumps(HISTORY[0].to_json())
    path.write_text(good + "\n{oops\n" + json.dumps({**HISTORY[0].to_json(), "metrics": {"mrr": "high"}}) + "\n")
    with pytest.raises(InputError) as caught:
        read_timeseries(path)
    assert [str(p) for p in caught.value.problems] == [
        f"{path}:2: (line): invalid JSON: Expecting property name enclosed in double quotes at column 2",
        f"{path}:3: metrics.mrr: must be a number or null, got 'high'",
    ]


def test_a_metric_that_stops_being_measured_alarms_instead_of_going_n_a() -> None:
    state, message = band("faithfulness_rate", point(5, faithfulness_rate=None))
    assert state == "alarm" and message == "no value in this run; the last 4 point(s) had one"
    never_measured = [point(n, faithfulness_rate=None) for n in range(1, 5)]
    assert band("faithfulness_rate", point(5, faithfulness_rate=None), never_measured)[0] == "n/a"


def test_a_band_never_leaves_zero_to_one() -> None:
    """Every metric is a rate: a band of a metric steady at 1.0 (or 0.0) ends there, not past it."""
    history = [point(run, faithfulness_rate=1.0, over_refusal_rate=0.0) for run in range(1, 5)]
    report = check_drift(history, point(5, faithfulness_rate=1.0, over_refusal_rate=0.0))
    bands = {b.metric: b for b in report.bands}
    assert (bands["faithfulness_rate"].low, bands["faithfulness_rate"].high) == (0.98, 1.0)
    assert (bands["over_refusal_rate"].low, bands["over_refusal_rate"].high) == (0.0, 0.02)
    assert all(0.0 <= b.low <= b.high <= 1.0 for b in report.bands if b.low is not None and b.high is not None)
    assert "band [0.980, 1.000]" in bands["faithfulness_rate"].message
