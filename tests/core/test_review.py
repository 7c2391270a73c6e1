"""Blind review core: queue order and resume, blindness of the view model, revisions, undo, reveal."""

from __future__ import annotations

import dataclasses
import typing
from collections import Counter
from pathlib import Path

import pytest

from qaeval_tui.core.config import Config
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.golden.loader import GoldenSet
from qaeval_tui.core.models.golden import GoldenCase, LoadedCase
from qaeval_tui.core.review.session import (
    ABSTAIN_GOLD,
    BlindItemView,
    BlindnessError,
    InvalidScoresError,
    ReviewSession,
    assign,
    build_review_items,
    find_quote,
)
from qaeval_tui.core.rubric import Axis, Rubric
from qaeval_tui.core.store.sqlite import Store
from tests.core.review_fixtures import ADAPTER_NAME, FULL, JUDGE_NAME, demo_case, store_with_run


@pytest.fixture
def store(tmp_path: Path) -> typing.Iterator[Store]:
    opened, _ = store_with_run(tmp_path / "q.db", n_items=6)
    build_review_items(opened, "run-1")
    assign(opened, ["ana", "ben", "chloe"], overlap=2, seed=7)
    yield opened
    opened.close()


def session(store: Store, reviewer: str = "ana", config: Config | None = None) -> ReviewSession:
    return ReviewSession(store, config or Config(), reviewer)


# -- items and assignment ---------------------------------------------------------------------------


def test_one_review_item_per_case_output_and_rebuilding_adds_nothing(tmp_path: Path) -> None:
    store, items = store_with_run(tmp_path / "q.db", n_items=5)
    assert build_review_items(store, "run-1") == 5
    assert build_review_items(store, "run-1") == 0
    assert sorted(row.item_id for row in store.review_items()) == sorted(items)


def test_missing_case_content_fails_clearly_or_comes_from_the_golden_set(tmp_path: Path) -> None:
    store, _ = store_with_run(tmp_path / "q.db", n_items=2, store_cases=False)
    with pytest.raises(UsageError, match="readable-case-000"):
        build_review_items(store, "run-1")
    assert store.review_items() == []
    from qaeval_tui.core.hashing import content_hash

    loaded = tuple(
        LoadedCase(
            GoldenCase.model_validate(demo_case(i), strict=False),
            "frozen",
            "golden/frozen.jsonl",
            i + 1,
            content_hash(demo_case(i)),
        )
        for i in range(2)
    )
    assert build_review_items(store, "run-1", GoldenSet(loaded, ("golden/frozen.jsonl",))) == 2
    assert session_view_count(store) == 2


def session_view_count(store: Store) -> int:
    assign(store, ["ana"], overlap=1, seed=1)
    return session(store).progress().assigned


def test_unknown_run_is_a_usage_error(tmp_path: Path) -> None:
    store, _ = store_with_run(tmp_path / "q.db", n_items=1)
    with pytest.raises(UsageError, match="no run"):
        build_review_items(store, "nope")


def test_assignment_is_balanced_has_k_reviewers_per_item_and_is_seeded(tmp_path: Path) -> None:
    store, items = store_with_run(tmp_path / "q.db", n_items=31)
    build_review_items(store, "run-1")
    report = assign(store, ["ana", "ben", "chloe", "dev"], overlap=3, seed=11)
    per_item = Counter(item for _, item, _ in store.assignments())
    assert set(per_item.values()) == {3} and set(per_item) == set(items)
    assert max(report.load.values()) - min(report.load.values()) <= 1
    # Every pair of reviewers shares items, so pairwise agreement is computable.
    assert len(report.pair_overlap) == 6 and min(report.pair_overlap.values()) >= 10
    first = store.assignments()
    again, _ = store_with_run(tmp_path / "q2.db", n_items=31)
    build_review_items(again, "run-1")
    assign(again, ["ana", "ben", "chloe", "dev"], overlap=3, seed=11)
    assert again.assignments() == first
    orders = {r: [i for rr, i, _ in first if rr == r] for r in ("ana", "ben")}
    shared = [i for i in orders["ana"] if i in orders["ben"]]
    assert shared != [i for i in orders["ben"] if i in orders["ana"]], "each reviewer has an order of their own"


def test_new_items_are_appended_without_reshuffling_existing_queues(tmp_path: Path) -> None:
    store, _ = store_with_run(tmp_path / "q.db", n_items=4)
    build_review_items(store, "run-1")
    assign(store, ["ana", "ben"], overlap=1, seed=3)
    before = store.assignments("ana")
    # A second run of different cases adds review items.
    other, _ = store_with_run(tmp_path / "other.db", n_items=8, run_id="run-2")
    other.close()
    more, _ = store_with_run(tmp_path / "q.db", n_items=8, run_id="run-2")
    build_review_items(more, "run-2")
    report = assign(more, ["ana", "ben"], overlap=1, seed=3)
    assert more.assignments("ana")[: len(before)] == before
    assert report.newly_assigned_items == 4 and sum(report.load.values()) == 8


@pytest.mark.parametrize(("reviewers", "overlap"), [([], 1), (["ana"], 2), (["ana", "ana"], 1), (["a b"], 1)])
def test_bad_queue_requests_are_usage_errors(store: Store, reviewers: list[str], overlap: int) -> None:
    with pytest.raises(UsageError):
        assign(store, reviewers, overlap=overlap, seed=1)


# -- blindness --------------------------------------------------------------------------------------


def _field_names(cls: type) -> set[str]:
    names: set[str] = set()
    hints = typing.get_type_hints(cls)
    for field in dataclasses.fields(cls):
        names.add(field.name)
        for arg in typing.get_args(hints[field.name]) or (hints[field.name],):
            for inner in typing.get_args(arg) or (arg,):
                if dataclasses.is_dataclass(inner) and isinstance(inner, type):
                    names |= _field_names(inner)
    return names


def test_blind_view_has_no_field_that_could_carry_verdict_system_case_id_or_other_labels() -> None:
    names = _field_names(BlindItemView)
    assert {"question", "answer", "citations", "sources", "axes", "quote"} <= names  # it does walk nested views
    forbidden = (
        "judge",
        "verdict",
        "evidence",
        "case_id",
        "system",
        "adapter",
        "reviewer",
        "label",
        "run",
        "gold_answer",
        "expected",
    )
    leaks = sorted(name for name in names if any(word in name for word in forbidden))
    assert leaks == []


def test_rendered_blind_view_contains_nothing_it_must_hide(store: Store) -> None:
    ben = session(store, "ben")
    shared = next(i for _, i, _ in store.assignments("ana") if i in {j for _, j, _ in store.assignments("ben")})
    ben.submit(shared, FULL, note="BEN-PRIVATE-NOTE", flagged=True, seconds_spent=3)
    ana = session(store, "ana")
    view = ana._view(shared, [i for _, i, _ in store.assignments("ana")], None)
    text = repr(view)
    item = store.review_item(shared)
    assert item is not None
    for secret in (
        item.item.case_id,
        ADAPTER_NAME,
        JUDGE_NAME,
        "BEN-PRIVATE-NOTE",
        "ben",
        "judgehash",
        "run-1",
        "secret prompt",
    ):
        assert secret not in text
    assert "How long is the warranty" in text and view.previous_scores == {}


def test_gold_answer_only_after_every_blind_axis_is_scored(store: Store) -> None:
    ana = session(store)
    view = ana.next_item()
    assert view is not None
    assert ana.gold_answer(view.item_id, {}) is None
    assert ana.gold_answer(view.item_id, {"faithfulness": 2}) is None
    assert ana.gold_answer(view.item_id, {"faithfulness": 2, "citation_correctness": 7}) is None  # off-scale
    gold = ana.gold_answer(view.item_id, {"faithfulness": 2, "citation_correctness": None})
    item = store.review_item(view.item_id)
    assert item is not None and item.case is not None
    case = item.case
    assert gold == (case["gold_answer"] or ABSTAIN_GOLD)


def test_reveal_needs_own_submit_and_later_revisions_are_marked_post_reveal(store: Store) -> None:
    ana = session(store)
    view = ana.next_item()
    assert view is not None
    with pytest.raises(BlindnessError):
        ana.reveal(view.item_id)
    assert not store.has_revealed(view.item_id, "ana")
    first = ana.submit(view.item_id, {**FULL, "faithfulness": 1}, "", False, 4.0)
    revealed = ana.reveal(view.item_id)
    assert revealed.judge_name == JUDGE_NAME and revealed.judge_scores["faithfulness"] == 2
    assert revealed.agrees == {"faithfulness": False, "citation_correctness": True, "answer_correctness": True}
    second = ana.submit(view.item_id, FULL, "changed after reveal", False, 2.0)
    assert (first.revealed, second.revealed) == (False, True)
    assert (first.revision, second.revision) == (1, 2)
    # Another reviewer's reveal is theirs alone.
    with pytest.raises(BlindnessError):
        session(store, "chloe").reveal(view.item_id)


# -- queue order, resume, skip, undo ----------------------------------------------------------------


def test_resume_where_left_off_with_skips_coming_back_last(store: Store) -> None:
    queue = [i for _, i, _ in store.assignments("ana")]
    assert len(queue) == 4
    ana = session(store)
    first = ana.next_item()
    assert first is not None and (first.item_id, first.position, first.total) == (queue[0], 1, 4)
    ana.skip(queue[0], 1.5)
    ana.submit(queue[1], FULL, "", False, 2.0)
    resumed = session(store).next_item()  # a new session, as after a restart
    assert resumed is not None and resumed.item_id == queue[2]
    ana.submit(queue[2], FULL, "", True, 1.0)
    ana.skip(queue[3], 1.0)
    assert ana.next_item().item_id == queue[0]  # type: ignore[union-attr]
    ana.skip(queue[0], 1.0)  # skipped again: the other skipped item comes first now
    assert ana.next_item().item_id == queue[3]  # type: ignore[union-attr]
    ana.submit(queue[3], FULL, "", False, 1.0)
    ana.submit(queue[0], FULL, "", False, 1.0)
    assert ana.next_item() is None
    progress = ana.progress()
    assert (progress.done, progress.assigned, progress.skipped, progress.flagged) == (4, 4, 0, 1)
    assert progress.seconds_spent == pytest.approx(8.5)
    summary = ana.summary()
    assert (summary.labeled, summary.skipped, summary.flagged, summary.remaining) == (4, 0, 1, 0)


def test_undo_reopens_last_submits_without_erasing_and_resubmit_is_a_new_revision(store: Store) -> None:
    ana = session(store)
    queue = [i for _, i, _ in store.assignments("ana")]
    ana.submit(queue[0], FULL, "first", False, 1.0)
    ana.submit(queue[1], {**FULL, "faithfulness": 0}, "second", True, 1.0)
    reopened = ana.undo()
    assert reopened is not None and reopened.item_id == queue[1]
    assert (reopened.previous_scores["faithfulness"], reopened.previous_note, reopened.previous_flagged) == (
        0,
        "second",
        True,
    )
    earlier = ana.undo()
    assert earlier is not None and earlier.item_id == queue[0] and earlier.previous_note == "first"
    assert ana.undo() is None
    ana.submit(queue[0], {**FULL, "faithfulness": 1}, "first, revised", False, 1.0)
    history = [(row.label.revision, row.label.note) for row in store.labels(reviewer="ana", item_id=queue[0])]
    assert history == [(1, "first"), (2, "first, revised")]
    assert ana.next_item().item_id == queue[2]  # type: ignore[union-attr]


def test_undo_after_a_skip_reopens_the_skipped_item_then_the_submitted_one(store: Store) -> None:
    ana = session(store)
    queue = [i for _, i, _ in store.assignments("ana")]
    ana.submit(queue[0], FULL, "first", False, 1.0)
    ana.skip(queue[1], 1.0)
    reopened = ana.undo()
    assert reopened is not None and reopened.item_id == queue[1] and reopened.previous_scores == {}
    earlier = ana.undo()
    assert earlier is not None and earlier.item_id == queue[0] and earlier.previous_note == "first"


def test_invalid_scores_are_refused_and_nothing_is_written(store: Store) -> None:
    ana = session(store)
    item = ana.next_item().item_id  # type: ignore[union-attr]
    for scores in (
        {"faithfulness": 2},
        {**FULL, "faithfulness": 3},
        {**FULL, "tone": 1},
        {**FULL, "faithfulness": True},
    ):
        with pytest.raises(InvalidScoresError):
            ana.submit(item, scores, "", False, 1.0)  # type: ignore[arg-type]
    with pytest.raises(InvalidScoresError):
        ana.submit(item, FULL, "", False, -1.0)
    assert store.labels() == []


def test_cant_judge_is_a_valid_score(store: Store) -> None:
    ana = session(store)
    item = ana.next_item().item_id  # type: ignore[union-attr]
    label = ana.submit(item, {**FULL, "answer_correctness": None}, "", False, 1.0)
    assert label.scores["answer_correctness"] is None


def test_any_scale_rubric_validates_against_its_own_points(tmp_path: Path) -> None:
    rubric = Rubric(
        version="5pt",
        axes=(
            Axis(name="quality", scale=(1, 2, 3, 4, 5), level="interval", anchors=tuple("abcde")),
            Axis(name="correct", scale=(0, 1), level="nominal", anchors=("no", "yes"), needs_gold=True),
        ),
    )
    config = Config(rubric=rubric)
    store, _ = store_with_run(tmp_path / "q.db", n_items=2)
    build_review_items(store, "run-1")
    assign(store, ["ana"], overlap=1, seed=1)
    ana = session(store, config=config)
    view = ana.next_item()
    assert view is not None and [a.scale for a in view.axes] == [(1, 2, 3, 4, 5), (0, 1)]
    assert ana.gold_answer(view.item_id, {"quality": 5}) is not None
    with pytest.raises(InvalidScoresError):
        ana.submit(view.item_id, {"quality": 0, "correct": 1}, "", False, 1.0)
    label = ana.submit(view.item_id, {"quality": 5, "correct": 0}, "", False, 1.0)
    assert label.rubric_version == "5pt"


def test_citations_locate_quotes_and_mark_unresolvable_sources(store: Store) -> None:
    view = session(store).next_item()
    assert view is not None
    good, dangling = view.citations
    assert (good.marker, good.resolvable, dangling.marker, dangling.resolvable) == (1, True, 2, False)
    s1 = next(s for s in view.sources if s.source_id == "s1")
    assert good.span is not None and s1.text[good.span[0] : good.span[1]].lower() == "lasts ten years"
    assert s1.cited_spans == (good.span,) and dangling.span is None
    assert find_quote("abc", None) is None and find_quote("abc", "zzz") is None


def test_two_sessions_on_one_database_lose_no_revision(tmp_path: Path, store: Store) -> None:
    other = Store.open(store.path)
    item = next(i for _, i, _ in store.assignments("ana"))
    session(store).submit(item, FULL, "a", False, 1.0)
    session(other).submit(item, FULL, "b", False, 1.0)
    other.close()
    assert [(r.label.revision, r.label.note) for r in store.labels(item_id=item)] == [(1, "a"), (2, "b")]


# -- the gold lock and unchanged re-submits (issue 13) --------------------------------------------------


def test_once_the_gold_is_shown_the_blind_axes_are_locked_for_that_item(store: Store) -> None:
    ana = session(store)
    item = ana.next_item().item_id  # type: ignore[union-attr]
    assert ana.gold_lock(item) == {}
    assert ana.gold_answer(item, {"faithfulness": None}) is None  # one blind axis is not a lock yet
    assert ana.gold_lock(item) == {}
    assert ana.gold_answer(item, {"faithfulness": None, "citation_correctness": None}) is not None  # `x x`
    assert ana.gold_lock(item) == {"faithfulness": None, "citation_correctness": None}
    with pytest.raises(BlindnessError, match=r"locked \(faithfulness = None\)"):
        ana.submit(item, {**FULL, "citation_correctness": None, "faithfulness": 2}, "", False, 1.0)
    assert store.labels() == []
    label = ana.submit(
        item, {"faithfulness": None, "citation_correctness": None, "answer_correctness": 1}, "", False, 1.0
    )
    assert label.scores["answer_correctness"] == 1
    other = next(i for _, i, _ in store.assignments("ana") if i != item)
    assert ana.gold_lock(other) == {}  # the lock is per item
    ana.submit(other, FULL, "", False, 1.0)


def test_the_gold_lock_is_in_the_store_so_a_new_session_and_the_items_view_carry_it(store: Store) -> None:
    ana = session(store)
    item = ana.next_item().item_id  # type: ignore[union-attr]
    assert ana.next_item().gold_lock == {}  # type: ignore[union-attr]
    ana.gold_answer(item, {"faithfulness": 2, "citation_correctness": None})
    restarted = session(store)  # the app quit and came back
    view = restarted.next_item()
    assert view is not None and view.item_id == item
    assert view.gold_lock == {"faithfulness": 2, "citation_correctness": None}
    assert restarted.gold_answer(item, {}) is not None  # shown once, it shows again with the lock
    assert restarted.gold_lock(item) == view.gold_lock  # a later showing does not move the lock
    with pytest.raises(BlindnessError, match=r"locked \(faithfulness = 2\)"):
        restarted.submit(item, {**FULL, "faithfulness": 1, "citation_correctness": None}, "", False, 1.0)
    restarted.submit(item, {**FULL, "faithfulness": 2, "citation_correctness": None}, "", False, 1.0)
    assert session(store, "ben").gold_lock(item) == {}  # the lock is this reviewer's


def test_resubmitting_an_unchanged_item_writes_no_revision(store: Store) -> None:
    ana = session(store)
    item = ana.next_item().item_id  # type: ignore[union-attr]
    first = ana.submit(item, FULL, "a note", True, 3.0)
    ana.undo()
    again = ana.submit(item, FULL, "a note", True, 2.0)
    assert again == first
    assert [row.label.revision for row in store.labels(reviewer="ana", item_id=item)] == [1]
    ana.submit(item, FULL, "a changed note", True, 2.0)
    assert [row.label.revision for row in store.labels(reviewer="ana", item_id=item)] == [1, 2]


def test_reveal_shows_the_other_reviewers_latest_labels_and_notes(store: Store) -> None:
    ana, ben = session(store), session(store, "ben")
    shared = next(i for _, i, _ in store.assignments("ana") if i in {j for _, j, _ in store.assignments("ben")})
    ben.submit(shared, {**FULL, "faithfulness": 0}, "first thought", False, 1.0)
    ben.submit(shared, {**FULL, "faithfulness": 1}, "on reflection", False, 1.0)
    ana.submit(shared, FULL, "mine", False, 1.0)
    others = ana.reveal(shared).others
    assert [(o.reviewer, o.scores["faithfulness"], o.note) for o in others] == [("ben", 1, "on reflection")]
