"""`[gate] judge_metrics = "ppi"` never compares an estimate whose precision is unknown (review of issue 12).

The case the review found: the judge mean falls from 0.80 to 0.60, and one labelled case (human 1,
judge 0) lifts this run's PPI estimate to 1.0 (clipped), which passed against the baseline's 0.80.
"""

from __future__ import annotations

import pytest

from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.gate.delta import MetricDelta
from qaeval_tui.core.gate.ppi_gate import PPIGate, current_ppi
from qaeval_tui.core.gate.ppi_values import RecordedPPI
from qaeval_tui.core.statistics.ppi import MIN_LABELLED_FOR_CI, ppi_mean

NAME = "answer_correctness"


def _baseline(n_labelled: int | None = 100, ci: tuple[float, float] | None = (0.72, 0.88)) -> RecordedPPI:
    return RecordedPPI(0.80, ci, n_labelled, None, "baselines/demo.json", 12)


def _delta() -> MetricDelta:
    return MetricDelta(
        NAME, "", True, 0.80, 0.60, -0.20, "shared", 0.02, "fail", "dropped -0.200", None, None, 100, NAME, None, None
    )


def test_one_labelled_case_cannot_lift_a_drop_into_a_pass() -> None:
    one_label = ppi_mean([1.0] * 60 + [0.0] * 40, [None] * 99 + [1.0])
    assert one_label.value == 1.0 and one_label.ci is None  # the estimate the old gate passed
    with pytest.raises(UsageError, match=f"{NAME}: this run's PPI estimate 1.000 has no interval"):
        current_ppi({NAME: one_label}, [NAME])
    with pytest.raises(UsageError, match="has no interval"):  # nor can a gate be built around it
        PPIGate({NAME: one_label}, {NAME: _baseline()})


@pytest.mark.parametrize(
    ("recorded", "field"),
    [
        (_baseline(n_labelled=None), "n_labelled: not recorded"),
        (_baseline(n_labelled=MIN_LABELLED_FOR_CI - 1), f"n_labelled: {MIN_LABELLED_FOR_CI - 1} labelled case"),
        (_baseline(ci=None), "ci: no interval recorded"),
    ],
)
def test_a_baseline_estimate_without_an_interval_is_refused_naming_file_line_field(
    recorded: RecordedPPI, field: str
) -> None:
    judge = [1.0] * 60 + [0.0] * 40
    labelled = ppi_mean(judge, [1.0] * 30 + [0.0] * 20 + [None] * 50)  # 50 labelled: an interval
    assert labelled.ci is not None
    with pytest.raises(UsageError, match=f"^baselines/demo.json:12: ppi.metrics.{NAME}.{field}"):
        PPIGate({NAME: labelled}, {NAME: recorded})


def test_with_both_intervals_the_tolerance_rule_decides_and_both_are_shown() -> None:
    judge = [1.0] * 60 + [0.0] * 40
    now = ppi_mean(judge, [1.0] * 30 + [0.0] * 20 + [None] * 50)
    assert now.value is not None and now.ci is not None
    row = PPIGate({NAME: now}, {NAME: _baseline()}).apply(_delta())
    assert row.status == "fail" and row.delta == pytest.approx(now.value - 0.80)  # beyond the 0.02 tolerance
    assert row.ci_reason is not None and "baseline [0.720, 0.880] on 100 labelled case(s)" in row.ci_reason
    assert f"this run [{now.ci[0]:.3f}, {now.ci[1]:.3f}] on 50 of 100" in row.ci_reason
