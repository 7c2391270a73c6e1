"""Verdicts decided on the interval, consensus that needs two reviewers, and no interval where none holds.

Each test is a case of issue 12 that the point-estimate rule got wrong: 14 of 20 was TRUSTED, a
constant judge was TRUSTED, a "95%" interval came from 3 items, one item gave alpha 0.000, and one
reviewer's label counted as a unanimous consensus.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from qaeval_tui.core.config import CalibrationConfig, Config, load_config
from qaeval_tui.core.errors import ConfigError
from qaeval_tui.core.rubric import Axis, Rubric
from qaeval_tui.core.statistics import stats
from qaeval_tui.core.statistics.agreement import agreement_report
from qaeval_tui.core.statistics.alpha_interval import MIN_ITEMS_ALPHA_INTERVAL
from qaeval_tui.core.statistics.calibration import CalibrationReport, calibrate
from qaeval_tui.core.statistics.label_table import LabelTable
from qaeval_tui.core.statistics.verdict import RULE_POINT_NOTE, verdict_line
from qaeval_tui.core.statistics.verdict_table import VerdictTable
from tests.core.test_calibration import label, pairs_to_inputs, verdict

AXIS = Axis(name="f", anchors=("a", "b", "c"))
RUBRIC = Rubric(version="1", axes=(AXIS,))


def calibrated(human: list[int], judge: list[int], **bar: object) -> CalibrationReport:
    labels, verdicts = pairs_to_inputs(human, judge)
    table = LabelTable.from_labels(labels, RUBRIC)
    return calibrate(table, VerdictTable.from_verdicts(verdicts, RUBRIC), RUBRIC, CalibrationConfig(**bar))


def varied(n: int, agree: int) -> tuple[list[int], list[int]]:
    """Humans vary over the scale; the judge agrees on the first `agree` items, one step off on the rest."""
    human = [k % 3 for k in range(n)]
    return human, [h if k < agree else (h + 1) % 3 for k, h in enumerate(human)]


def test_fourteen_of_twenty_is_insufficient_and_says_which_bound_decided() -> None:
    axis = calibrated(*varied(20, 14)).axes["f"]
    assert axis.exact == 0.7 and axis.exact_ci is not None
    assert axis.verdict == "INSUFFICIENT" and axis.decided_by == "exact_lower"
    low, high = axis.exact_ci
    assert low < 0.70 < high
    assert axis.verdict_reason.startswith(
        f"lower bound {low:.2f} of exact agreement is below min_exact 0.70 and its upper bound {high:.2f} is not"
    )
    # The same 0.70 rate never decides a bar of 0.70; against 0.60, more items would.
    assert axis.more_items_to_decide is None
    lower_bar = calibrated(*varied(20, 14), min_exact=0.6).axes["f"]
    assert lower_bar.verdict == "INSUFFICIENT" and lower_bar.more_items_to_decide is not None
    assert f"about {lower_bar.more_items_to_decide} more judged items would decide it" in lower_bar.verdict_reason


def test_a_clear_judge_is_trusted_and_a_clearly_bad_one_retuned_on_their_bounds() -> None:
    # The reviewers agree perfectly here, which a judge right 95% of the time cannot match: the human bar
    # (tests/core/test_human_bar.py) is off for this test of the other two bounds.
    good = calibrated(*varied(200, 190), human_bar=False).axes["f"]
    assert good.verdict == "TRUSTED" and good.decided_by == "exact_and_alpha_lower"
    assert good.exact_ci is not None and good.alpha_ci is not None and good.alpha_ci[0] > 0
    assert good.verdict_reason.startswith(f"lower bound {good.exact_ci[0]:.2f} of exact agreement clears min_exact")
    bad = calibrated(*varied(60, 30)).axes["f"]
    assert bad.verdict == "RETUNE" and bad.decided_by == "exact_upper"
    assert bad.exact_ci is not None
    assert (
        bad.verdict_reason == f"upper bound {bad.exact_ci[1]:.2f} of exact agreement is below min_exact 0.70 (n = 60)"
    )


@pytest.mark.parametrize("n", [20, 100, 1000])
def test_a_constant_judge_is_never_trusted(n: int) -> None:
    # Humans say 2 on 90% of items: the constant judge agrees 0.9, far above the bar, and means nothing.
    human = [2 if k % 10 else 1 for k in range(n)]
    axis = calibrated(human, [2] * n).axes["f"]
    assert axis.exact == pytest.approx(0.9) and axis.kappa == 0.0
    assert axis.verdict == "RETUNE" and axis.decided_by == "constant_judge"
    assert axis.verdict_reason.startswith(f"the judge gave all {n} items a 2")


def test_a_near_constant_judge_is_not_trusted() -> None:
    # One item in 200 differs, and on it the judge is right: exact 0.905, lower bound far above 0.70.
    human = [2 if k % 10 else 1 for k in range(200)]
    judge = [2] * 200
    judge[0] = 1
    axis = calibrated(human, judge).axes["f"]
    assert axis.exact_ci is not None and axis.exact_ci[0] > 0.8
    assert axis.verdict != "TRUSTED"
    assert axis.alpha_ci is not None and axis.alpha_ci[0] <= 0.0


def test_three_items_give_no_interval_and_say_why() -> None:
    axis = calibrated([0, 1, 2], [0, 1, 2]).axes["f"]
    data = axis.to_json()
    assert (data["exact_ci"], data["alpha_ci"]) == (None, None)
    assert data["reasons"]["exact_ci"] == "too few items for an interval (n = 3; need ≥ 10)"
    assert data["reasons"]["alpha_ci"] == "too few items for an interval (n = 3; need ≥ 50)"
    assert axis.verdict == "INSUFFICIENT" and axis.verdict_reason == "too few items for an interval (n = 3; need ≥ 10)"
    # Inter-rater agreement on 3 items: alpha, but no interval.
    labels = [label(f"i{k}", who, {"f": (k + (who == "b")) % 3}) for k in range(3) for who in ("a", "b")]
    report = agreement_report(LabelTable.from_labels(labels, RUBRIC), RUBRIC, replicates=200)
    assert report.axes["f"].alpha.value is not None
    assert report.axes["f"].alpha.ci is None
    assert report.axes["f"].alpha.ci_reason == "too few items for an interval (n = 3; need ≥ 50)"


def test_alpha_of_a_single_item_is_undefined_with_a_reason_not_zero() -> None:
    labels = [label("only", "a", {"f": 0}), label("only", "b", {"f": 2})]
    report = agreement_report(LabelTable.from_labels(labels, RUBRIC), RUBRIC, replicates=200)
    data = report.to_json()["axes"]["f"]
    assert (data["alpha"], data["state"], data["reason"]) == (None, "undefined", stats.REASON_ONE_ITEM)
    # The package itself says 0.0 here, as if measured.
    import krippendorff

    assert krippendorff.alpha(reliability_data=[[0.0], [2.0]], value_domain=[0, 1, 2]) == 0.0


def test_an_item_labelled_by_one_reviewer_is_unresolved_not_unanimous() -> None:
    labels = [label(f"i{k}", who, {"f": k % 3}) for k in range(30) for who in ("a", "b")]
    labels += [label("solo", "a", {"f": 2})]
    verdicts = [verdict(f"i{k}", {"f": k % 3}) for k in range(30)] + [verdict("solo", {"f": 2})]
    table = LabelTable.from_labels(labels, RUBRIC)
    report = calibrate(table, VerdictTable.from_verdicts(verdicts, RUBRIC), RUBRIC, CalibrationConfig())
    axis = report.to_json()["axes"]["f"]
    assert axis["n"] == 30 and axis["one_reviewer_items"] == ["solo"]
    assert (axis["consensus"]["one_reviewer"], axis["consensus"]["unanimous"]) == (1, 30)
    assert "1 item(s) with one reviewer only: unresolved, offered for more labels" in axis["warnings"]
    # A team that asks for one reviewer gets it counted.
    single = calibrate(table, VerdictTable.from_verdicts(verdicts, RUBRIC), RUBRIC, CalibrationConfig(min_reviewers=1))
    assert single.axes["f"].n == 31 and single.axes["f"].one_reviewer_items == ()


def test_the_point_rule_is_kept_on_request_and_says_so() -> None:
    point = calibrated(*varied(20, 14), rule="point", human_bar=False)  # reviewers agree perfectly here
    assert point.axes["f"].verdict == "TRUSTED"
    assert point.axes["f"].verdict_reason.startswith("point estimate: exact agreement 0.700 >= 0.70")
    data = point.to_json()
    assert data["rule_note"] == RULE_POINT_NOTE and data["bar"]["rule"] == "point"
    assert calibrated(*varied(20, 14)).to_json()["rule_note"] is None


def test_the_verdict_line_carries_verdict_reason_and_warnings() -> None:
    human = [2 if k % 10 else 1 for k in range(20)]
    axis = calibrated(human, [2] * 20, rule="point").axes["f"].to_json()
    constant = "the judge gave all 20 items a 2: its agreement only mirrors how often humans gave 2"
    assert verdict_line("f", axis) == f"f RETUNE: {constant}; it tells no item apart"
    assert verdict_line("f", {**axis, "warnings": ["one", "two"]}).endswith(" · warning: one · warning: two")


@pytest.mark.parametrize("rule", ["interval", "point"])
def test_a_constant_judge_is_never_trusted_under_either_rule(rule: str) -> None:
    # Review of issue 12, item 5: 18 of 20 humans say 2 and the judge always says 2. Exact agreement
    # 0.90 clears the point rule's bar, but the judge tells no item apart: RETUNE under both rules.
    human = [2 if k % 10 else 1 for k in range(20)]
    axis = calibrated(human, [2] * 20, rule=rule, min_n=10).axes["f"]
    assert (axis.verdict, axis.decided_by) == ("RETUNE", "constant_judge")
    assert axis.verdict_reason.startswith("the judge gave all 20 items a 2")
    # Too few items is still INSUFFICIENT under the point rule, not a verdict on a constant judge.
    assert calibrated([2] * 5, [2] * 5, rule="point", min_n=10).axes["f"].verdict == "INSUFFICIENT"


@pytest.mark.parametrize(("n", "more"), [(5, 45), (12, 38), (20, 30), (49, 1)])
def test_a_perfect_judge_below_the_alpha_floor_counts_the_items_up_to_it(n: int, more: int) -> None:
    # Review of issue 12, item 7: TRUSTED needs alpha's interval, which needs 50 items, so a perfect judge
    # at n = 5 needs 45 more (not the 5 up to the exact interval's floor of 10), at n = 12 38 more (not 8).
    human = [k % 3 for k in range(n)]
    axis = calibrated(human, list(human)).axes["f"]
    assert axis.verdict == "INSUFFICIENT"
    assert axis.more_items_to_decide == more == MIN_ITEMS_ALPHA_INTERVAL - n
    # Those items do decide it: the same judge at the floor is TRUSTED.
    at_floor = [k % 3 for k in range(n + more)]
    assert calibrated(at_floor, list(at_floor)).axes["f"].verdict == "TRUSTED"


def test_an_exact_agreement_above_the_bar_counts_up_to_the_alpha_floor_too() -> None:
    # 21 of 24: the exact interval alone would clear 0.70 within a few items, but TRUSTED needs 50.
    axis = calibrated(*varied(24, 21)).axes["f"]
    assert (axis.verdict, axis.decided_by, axis.more_items_to_decide) == ("INSUFFICIENT", "exact_lower", 26)
    assert "about 26 more judged items would decide it" in axis.verdict_reason


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('rule = "median"', "qaeval.toml:2: calibration.rule: Input should be 'interval' or 'point'"),
        ("min_reviewers = 0", "qaeval.toml:2: calibration.min_reviewers: Input should be greater than or equal to 1"),
        ("min_reviewers = 2.0", "qaeval.toml:2: calibration.min_reviewers: Input should be a valid integer"),
        ("chance_floor = 1.5", "qaeval.toml:2: calibration.chance_floor: Input should be less than 1"),
        ('chance_floor = "0"', "qaeval.toml:2: calibration.chance_floor: Input should be a valid number"),
    ],
)
def test_the_calibration_settings_are_validated_strictly(tmp_path: Path, line: str, message: str) -> None:
    (tmp_path / "qaeval.toml").write_text(f"[calibration]\n{line}\n")
    with pytest.raises(ConfigError) as caught:
        load_config(cwd=tmp_path)
    assert message in str(caught.value)


def test_the_calibration_settings_are_read() -> None:
    config = Config.model_validate(
        {"calibration": {"rule": "point", "min_reviewers": 3, "chance_floor": 0.2}}, strict=True
    )
    assert (config.calibration.rule, config.calibration.min_reviewers, config.calibration.chance_floor) == (
        "point", 3, 0.2,
    )  # fmt: skip


def test_single_reviewer_items_are_offered_beside_the_disagreements(tmp_path: Path) -> None:
    from qaeval_tui.core.curation.adjudication import adjudication_queue, record_consensus
    from qaeval_tui.core.curation.dossier import item_dossier
    from qaeval_tui.core.review.session import build_review_items
    from tests.core.review_fixtures import store_with_run

    store, items = store_with_run(tmp_path / "q.db", n_items=3)
    build_review_items(store, "run-1")
    f = "faithfulness"
    stored = [
        label(items[0], "ana", {f: 1}), label(items[0], "ben", {f: 2}),  # a disagreement
        label(items[1], "ana", {f: 2}),  # one reviewer only
        label(items[2], "ana", {f: None}), label(items[2], "ben", {f: 0}),  # can't judge is no value: one value
    ]  # fmt: skip
    store.insert_labels([lab.model_copy(update={"case_id": lab.item_id[:8]}) for lab in stored], origin="test")
    config = Config()
    queue = adjudication_queue(store, config)
    assert [(e.item_id, e.axis) for e in queue.entries] == [(items[0], f)]
    offered = {(e.item_id, e.axis, e.consensus_source) for e in queue.too_few_reviewers}
    assert offered == {(items[1], f, "unresolved: one reviewer"), (items[2], f, "unresolved: one reviewer")}
    dossier = item_dossier(store, config, items[1], with_judge=False)
    assert {c.axis: c.source for c in dossier.consensus}[f] == "unresolved: one reviewer"
    record_consensus(store, config, items[1], f, 2, "checked the sources", "lead")  # a ruling resolves it
    assert [e.item_id for e in adjudication_queue(store, config).too_few_reviewers] == [items[2]]
    store.close()
