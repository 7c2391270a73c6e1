"""Per-axis inter-rater agreement built from labels: published values, any scale and level, undefined states."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qaeval_tui.core.models.label import Label
from qaeval_tui.core.rubric import Axis, Rubric
from qaeval_tui.core.statistics.agreement import agreement_report
from qaeval_tui.core.statistics.alpha_interval import METHOD
from qaeval_tui.core.statistics.label_table import LabelTable, select_labels

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 4 observers x 12
# units, values 1..5 with missing data; published alpha nominal 0.743, ordinal 0.815, interval 0.849.
K2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]


def five_point_rubric() -> Rubric:
    return Rubric(
        version="k",
        axes=tuple(
            Axis(name=level, scale=(1, 2, 3, 4, 5), level=level, anchors=tuple("abcde"))
            for level in ("nominal", "ordinal", "interval")
        ),
    )


def label(item: str, reviewer: str, scores: dict[str, int | None], **extra: object) -> Label:
    fields: dict[str, object] = {
        "item_id": item,
        "case_id": f"case-{item}",
        "reviewer": reviewer,
        "scores": scores,
        "rubric_version": "k",
        "revision": 1,
        "created_at": "2026-01-01T00:00:00Z",
    }
    return Label.model_validate(fields | extra)


def labels_from_matrix(matrix: Sequence[Sequence[int | None]], axes: Sequence[str]) -> list[Label]:
    out = []
    for r, row in enumerate(matrix):
        for i, value in enumerate(row):
            if value is not None:
                out.append(label(f"u{i:02d}", f"coder{r}", dict.fromkeys(axes, value)))
    return out


def test_axis_alpha_reproduces_krippendorff_2011_at_each_axis_level() -> None:
    rubric = five_point_rubric()
    labels = labels_from_matrix(K2011, rubric.axis_names)
    report = agreement_report(LabelTable.from_labels(labels, rubric), rubric, replicates=200, seed=3)
    figures = {name: round(axis.alpha.value or 0.0, 3) for name, axis in report.axes.items()}
    assert figures == {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849}
    nominal = report.to_json()["axes"]["nominal"]
    assert (nominal["n_items"], nominal["n_pairable"], nominal["n_pairable_values"]) == (12, 11, 40)
    assert nominal["distribution"] == {"1": 9, "2": 13, "3": 11, "4": 5, "5": 3}  # all 41 values, unit 12's too
    assert nominal["bootstrap"] == {
        "replicates": 200, "seed": 3, "confidence": 0.95, "replicates_undefined": 0,
        "method": METHOD, "min_items": 50,
    }  # fmt: skip
    # 11 pairable items are too few for an interval that holds (alpha_interval.MIN_ITEMS_ALPHA_INTERVAL).
    assert (nominal["ci"], nominal["ci_reason"]) == (None, "too few items for an interval (n = 11; need ≥ 50)")


def test_report_ignores_reviewer_names_and_label_order() -> None:
    rubric = five_point_rubric()
    labels = labels_from_matrix(K2011, rubric.axis_names)
    renamed = [lab.model_copy(update={"reviewer": f"z{lab.reviewer[::-1]}"}) for lab in labels]
    random.Random(5).shuffle(renamed)
    first = agreement_report(LabelTable.from_labels(labels, rubric), rubric, replicates=100, seed=1)
    second = agreement_report(LabelTable.from_labels(renamed, rubric), rubric, replicates=100, seed=1)
    for name in rubric.axis_names:
        assert first.axes[name].alpha.value == pytest.approx(second.axes[name].alpha.value)
        assert first.axes[name].raw_agreement == pytest.approx(second.axes[name].raw_agreement)


@settings(max_examples=30, deadline=None)
@given(
    truth=st.lists(st.sampled_from([0, 1]), min_size=2, max_size=15).filter(lambda t: len(set(t)) == 2),
    coders=st.integers(2, 4),
)
def test_binary_axis_with_perfect_agreement_and_variation_is_one(truth: list[int], coders: int) -> None:
    rubric = Rubric(version="k", axes=(Axis(name="ok", scale=(0, 1), level="nominal", anchors=("no", "yes")),))
    labels = labels_from_matrix([truth] * coders, ["ok"])
    axis = agreement_report(LabelTable.from_labels(labels, rubric), rubric, replicates=50).axes["ok"]
    assert axis.alpha.value == pytest.approx(1.0) and axis.raw_agreement == 1.0


def test_no_variation_is_a_state_with_a_reason_and_null_in_json() -> None:
    rubric = Rubric(version="k", axes=(Axis(name="f", anchors=("a", "b", "c")),))
    labels = labels_from_matrix([[2, 2, 2], [2, 2, 2]], ["f"])
    data = agreement_report(LabelTable.from_labels(labels, rubric), rubric, replicates=50).to_json()
    axis = data["axes"]["f"]
    assert (axis["alpha"], axis["state"], axis["ci"]) == (None, "undefined", None)
    assert "no variation" in axis["reason"] and axis["ci_reason"]
    assert axis["raw_agreement"] == 1.0 and axis["distribution"] == {"0": 0, "1": 0, "2": 6}
    json.dumps(data, allow_nan=False)  # no NaN sneaks into the JSON


def test_single_reviewer_gives_no_pairable_values_and_no_pairwise() -> None:
    rubric = Rubric(version="k", axes=(Axis(name="f", anchors=("a", "b", "c")),))
    labels = labels_from_matrix([[0, 1, 2]], ["f"])
    data = agreement_report(LabelTable.from_labels(labels, rubric), rubric, replicates=50).to_json()
    axis = data["axes"]["f"]
    assert axis["alpha"] is None and axis["reason"] == "fewer than two pairable values"
    assert axis["raw_agreement"] is None and axis["raw_agreement_reason"]
    assert data["pairwise"] == {"f": []}


def test_cant_judge_is_counted_but_not_a_value() -> None:
    rubric = Rubric(version="k", axes=(Axis(name="f", anchors=("a", "b", "c")),))
    labels = [
        label("i1", "a", {"f": 0}),
        label("i1", "b", {"f": None}),
        label("i2", "a", {"f": 1}),
        label("i2", "b", {"f": 1}),
    ]
    axis = agreement_report(LabelTable.from_labels(labels, rubric), rubric, replicates=50).to_json()["axes"]["f"]
    assert (axis["n_labels"], axis["n_cant_judge"], axis["n_items"], axis["n_pairable"]) == (3, 1, 2, 1)


def test_pairwise_reports_each_reviewer_pair_with_weights_by_level() -> None:
    rubric = five_point_rubric()
    labels = labels_from_matrix(K2011, rubric.axis_names)
    data = agreement_report(LabelTable.from_labels(labels, rubric), rubric, replicates=50).to_json()
    nominal, ordinal = data["pairwise"]["nominal"], data["pairwise"]["ordinal"]
    assert len(nominal) == 6 and {p["kappa_weights"] for p in nominal} == {None}
    assert {p["kappa_weights"] for p in ordinal} == {"quadratic"}
    first = nominal[0]
    assert first["reviewers"] == ["coder0", "coder1"] and first["n_common"] == 9
    assert first["raw_agreement"] == pytest.approx(8 / 9)


def test_selection_reads_the_latest_blind_revision_and_ignores_skips() -> None:
    labels = [
        label("i1", "ana", {"f": 0}, revision=1),
        label("i1", "ana", {"f": 1}, revision=2),
        label("i1", "ana", {"f": 2}, revision=3, revealed=True),
        label("i2", "ana", {}, skipped=True),
        label("i3", "ana", {"f": 1}, rubric_version="old"),
    ]
    chosen = select_labels(labels, "k")
    assert [(lab.item_id, lab.scores) for lab in chosen.labels] == [("i1", {"f": 1})]
    assert chosen.counts() == {
        "revisions_read": 5,
        "used": 1,
        "skips": 1,
        "superseded": 1,
        "post_reveal_excluded": 1,
        "other_rubric_version": 1,
        "include_post_reveal": False,
        "quarantined_excluded": 0,
    }
    with_reveal = select_labels(labels, "k", include_post_reveal=True)
    assert with_reveal.labels[0].scores == {"f": 2}


def test_selected_labels_come_in_item_then_reviewer_order_as_strings_sort() -> None:
    """The order every report and table follows: (item, reviewer) as Python sorts the strings,
    prefixes, case and non-ASCII included, whatever order the revisions arrive in."""
    rng = random.Random(7)
    names = ["a", "ab", "a-b", "B", "b", "é", "e", "item-10", "item-9", "z", "Z1", "a b"]
    keys = [(item, reviewer) for item in names for reviewer in ("ana", "Ana", "bo", "ana2")]
    rng.shuffle(keys)
    labels = [label(item, reviewer, {"f": rng.choice([0, 1, 2])}) for item, reviewer in keys]
    chosen = select_labels(labels, "k").labels
    assert [(lab.item_id, lab.reviewer) for lab in chosen] == sorted(keys)
