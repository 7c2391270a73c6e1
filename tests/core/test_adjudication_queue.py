"""The adjudication queue: which (item, axis) pairs blind reviewers disagree on, worst first, and rulings."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from qaeval_tui.core.config import Config
from qaeval_tui.core.curation.adjudication import adjudication_queue, record_consensus
from qaeval_tui.core.curation.dossier import item_dossier
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.models.label import Label
from qaeval_tui.core.review.session import build_review_items
from qaeval_tui.core.statistics.sources import calibration_from_store
from qaeval_tui.core.store.sqlite import Store
from tests.core.review_fixtures import store_with_run

CONFIG = Config()


def label(item: str, reviewer: str, scores: dict[str, int | None], **fields: Any) -> Label:
    return Label(
        item_id=item, case_id=fields.pop("case_id", item[:8]), reviewer=reviewer, scores=scores,
        note=fields.pop("note", ""), flagged=fields.pop("flagged", False),
        skipped=fields.pop("skipped", False), rubric_version="1", revealed=fields.pop("revealed", False),
        revision=fields.pop("revision", 1),
        created_at="2026-01-01T00:00:00Z", seconds_spent=10.0,
    )  # fmt: skip


@pytest.fixture
def stored(tmp_path: Path) -> Iterator[tuple[Store, list[str]]]:
    store, items = store_with_run(tmp_path / "q.db", n_items=6)
    build_review_items(store, "run-1")
    yield store, items
    store.close()


def test_disagreements_are_listed_worst_first_with_every_blind_label(stored: tuple[Store, list[str]]) -> None:
    store, items = stored
    f = "faithfulness"
    store.insert_labels(
        [
            label(items[0], "ana", {f: 1}), label(items[0], "ben", {f: 2}),  # spread 1, unresolved
            label(items[1], "ana", {f: 0}), label(items[1], "ben", {f: 2}, note="cites a decoy"),  # spread 2
            label(items[2], "ana", {f: 1}), label(items[2], "ben", {f: 1}), label(items[2], "chloe", {f: 2}),  # median
            label(items[3], "ana", {f: 2}), label(items[3], "ben", {f: 2}),  # agree
            label(items[4], "ana", {f: None}), label(items[4], "ben", {f: 2}),  # can't judge is not a value
            label(items[5], "ana", {f: 2}),  # one reviewer only
        ],
        origin="test",
    )  # fmt: skip
    queue = adjudication_queue(store, CONFIG)
    assert [(e.item_id, e.axis) for e in queue.entries] == [(items[1], f), (items[0], f), (items[2], f)]
    worst = queue.entries[0]
    assert worst.spread == 2 and worst.distinct == 2 and worst.open
    assert [(s.reviewer, s.value, s.note) for s in worst.scores] == [("ana", 0, ""), ("ben", 2, "cites a decoy")]
    assert worst.consensus == 1 and worst.consensus_source == "median"  # the median of 0 and 2 is a scale point
    assert (queue.entries[1].consensus, queue.entries[1].consensus_source) == (None, "unresolved")
    assert queue.entries[2].consensus_source == "median"
    assert queue.open_count == 3 and queue.open_per_axis() == {f: 3}


def test_unresolved_comes_before_median_at_equal_spread(stored: tuple[Store, list[str]]) -> None:
    store, items = stored
    f = "faithfulness"
    store.insert_labels(
        [
            label(items[0], "ana", {f: 1}, case_id="aaa"), label(items[0], "ben", {f: 1}, case_id="aaa"),
            label(items[0], "chloe", {f: 2}, case_id="aaa"),
            label(items[1], "ana", {f: 1}, case_id="zzz"), label(items[1], "ben", {f: 2}, case_id="zzz"),
        ],
        origin="test",
    )  # fmt: skip
    queue = adjudication_queue(store, CONFIG)
    assert [e.consensus_source for e in queue.entries] == ["unresolved", "median"]


def test_only_the_latest_blind_revision_counts(stored: tuple[Store, list[str]]) -> None:
    store, items = stored
    f = "faithfulness"
    store.insert_labels(
        [
            label(items[0], "ana", {f: 0}), label(items[0], "ben", {f: 2}),
            label(items[0], "ana", {f: 2}, revision=2),  # a blind second thought: now they agree
            label(items[1], "ana", {f: 2}), label(items[1], "ben", {f: 2}),
            label(items[1], "ben", {f: 0}, revision=2, revealed=True),  # after seeing the judge: not used
            label(items[2], "ana", {f: 0}), label(items[2], "ben", {}, skipped=True),  # a skip is not a label
        ],
        origin="test",
    )  # fmt: skip
    assert adjudication_queue(store, CONFIG).entries == ()


def test_a_ruling_moves_the_entry_after_the_open_ones_and_calibration_uses_it(stored: tuple[Store, list[str]]) -> None:
    store, items = stored
    f = "faithfulness"
    store.insert_labels(
        [
            label(items[0], "ana", {f: 1}), label(items[0], "ben", {f: 2}),
            label(items[1], "ana", {f: 0}), label(items[1], "ben", {f: 1}),
        ],
        origin="test",
    )  # fmt: skip
    before = calibration_from_store(store, CONFIG).axes[f].consensus_counts
    assert before["unresolved"] == 2 and before["adjudicated"] == 0
    record_consensus(store, CONFIG, items[0], f, 2, "  the sources support every claim  ", " dana ")
    queue = adjudication_queue(store, CONFIG)
    assert [(e.item_id, e.adjudicated) for e in queue.entries] == [(items[1], False), (items[0], True)]
    assert queue.entries[1].consensus == 2 and queue.entries[1].consensus_source == "adjudicated"
    assert store.adjudications() == {(items[0], f): 2}
    after = calibration_from_store(store, CONFIG).axes[f]
    assert after.consensus_counts["adjudicated"] == 1 and after.consensus_counts["unresolved"] == 1
    # A later ruling supersedes, the earlier one stays in the table (append-only).
    record_consensus(store, CONFIG, items[0], f, 1, "second look", "dana")
    assert store.adjudications() == {(items[0], f): 1} and store.count("adjudications") == 2


@pytest.mark.parametrize(
    ("axis", "score", "reason", "who", "message"),
    [
        ("nope", 1, "r", "dana", "unknown axis"),
        ("faithfulness", 7, "r", "dana", "not on the faithfulness scale"),
        ("faithfulness", 1, "   ", "dana", "needs a reason"),
        ("faithfulness", 1, "r", "", "needs a reason and the adjudicator"),
    ],
)
def test_a_bad_ruling_is_refused_and_writes_nothing(
    stored: tuple[Store, list[str]], axis: str, score: int, reason: str, who: str, message: str
) -> None:
    store, items = stored
    with pytest.raises(UsageError, match=message):
        record_consensus(store, CONFIG, items[0], axis, score, reason, who)
    assert store.count("adjudications") == 0


def test_the_dossier_shows_every_blind_label_and_hides_the_judge_unless_asked(stored: tuple[Store, list[str]]) -> None:
    store, items = stored
    f = "faithfulness"
    store.insert_labels(
        [
            label(items[0], "ana", {f: 1, "answer_correctness": 2}, note="[bold]not markup[/]", flagged=True),
            label(items[0], "ben", {f: 2, "answer_correctness": 2}),
            label(items[0], "ben", {f: 0, "answer_correctness": 2}, revision=2, revealed=True),
        ],
        origin="test",
    )  # fmt: skip
    blind = item_dossier(store, CONFIG, items[0], with_judge=False)
    assert blind.judge is None
    assert [(lab.reviewer, lab.scores[f], lab.note, lab.flagged) for lab in blind.labels] == [
        ("ana", 1, "[bold]not markup[/]", True),
        ("ben", 2, "", False),
    ]
    assert blind.post_reveal_revisions == 1
    consensus = {c.axis: (c.value, c.source) for c in blind.consensus}
    assert consensus[f] == (None, "unresolved") and consensus["answer_correctness"] == (2, "unanimous")
    assert blind.question.startswith("How long is the warranty") and blind.gold_source_ids == ("s1",)
    assert [c.resolvable for c in blind.citations] == [True, False]
    judged = item_dossier(store, CONFIG, items[0], with_judge=True)
    assert judged.judge is not None and judged.judge.scores[f] == 2 and judged.judge.status == "ok"
    with pytest.raises(UsageError, match="no review item"):
        item_dossier(store, CONFIG, "missing", with_judge=False)
