"""Exposure (DESIGN §4, issue 13): a person with pending items who opens a curator view showing one
of them has the exposure recorded; their later label on it is not blind, says why, and agreement
and calibration leave it out and count it. A label file claiming blind after it is refused. A
curator never rules on a disagreement they labelled."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from qaeval_tui.core.config import Config
from qaeval_tui.core.curation.adjudication import adjudication_queue, record_consensus
from qaeval_tui.core.curation.dossier import item_dossier
from qaeval_tui.core.errors import InputError, UsageError
from qaeval_tui.core.models.label import Label
from qaeval_tui.core.review.labels_io import import_labels
from qaeval_tui.core.review.session import ReviewSession, build_review_items
from qaeval_tui.core.statistics.sources import agreement_from_store, calibration_from_store
from qaeval_tui.core.store.rows import QueueEntry
from qaeval_tui.core.store.sqlite import Store
from tests.core.review_fixtures import store_with_run

CONFIG = Config()
ALL_TWO: dict[str, int | None] = {"faithfulness": 2, "citation_correctness": 2, "answer_correctness": 2}


def a_label(item: str, reviewer: str, scores: dict[str, int | None], **fields: Any) -> Label:
    return Label(
        item_id=item, case_id=fields.pop("case_id", f"readable-case-00{fields.pop('index', 0)}"),
        reviewer=reviewer, scores=scores, rubric_version="1", revision=fields.pop("revision", 1),
        created_at=fields.pop("created_at", "2026-01-01T00:00:00Z"), seconds_spent=10.0, **fields,
    )  # fmt: skip


@pytest.fixture
def team(tmp_path: Path) -> Iterator[tuple[Store, list[str]]]:
    """Six items ana and ben labelled blind (disagreeing on item 0); dora has items 0 and 1 pending."""
    store, items = store_with_run(tmp_path / "q.db", n_items=6)
    build_review_items(store, "run-1")
    labels = []
    for i, item in enumerate(items):
        labels.append(a_label(item, "ana", ALL_TWO, index=i))
        labels.append(a_label(item, "ben", {**ALL_TWO, "faithfulness": 0 if i == 0 else 2}, index=i))
    store.insert_labels(labels, origin="import")
    store.write_assignments([QueueEntry("dora", items[0], 0, 1), QueueEntry("dora", items[1], 1, 1)], replace=False)
    yield store, items
    store.close()


def test_a_drilldown_dossier_of_a_pending_item_records_the_exposure_and_the_later_label_is_excluded(
    team: tuple[Store, list[str]],
) -> None:
    store, items = team
    before_agreement = agreement_from_store(store, CONFIG).selection
    item_dossier(store, CONFIG, items[0], with_judge=True, viewer="dora", view="dashboard drill-down")
    item_dossier(store, CONFIG, items[3], with_judge=True, viewer="dora")  # not dora's: nothing to taint
    (event,) = store.exposures(person="dora")
    assert (event.item_id, event.view) == (items[0], "dashboard drill-down")
    for seen in ("the judge verdict and evidence", "other reviewers' labels", "the consensus", "the gold answer"):
        assert seen in event.seen

    session = ReviewSession(store, CONFIG, "dora")
    exposed = session.submit(items[0], ALL_TWO, "", False, 5.0)
    blind = session.submit(items[1], ALL_TWO, "", False, 5.0)
    assert exposed.revealed and not blind.revealed  # stored as not blind, only where dora saw something
    reasons = store.not_blind_reasons(reviewer="dora")
    assert reasons == {
        (items[0], "dora", 1): f"exposed: saw {event.seen} in the dashboard drill-down at {event.seen_at}"
    }

    agreement = agreement_from_store(store, CONFIG).selection
    calibration = calibration_from_store(store, CONFIG).selection
    for selection in (agreement, calibration):
        assert selection["post_reveal_excluded"] == 1  # counted, with post-reveal revisions
        assert selection["used"] == int(before_agreement["used"]) + 1  # dora's blind label on item 1 only
    included = agreement_from_store(store, CONFIG, include_post_reveal=True).selection
    assert included["used"] == int(before_agreement["used"]) + 2


def test_the_adjudication_list_records_exposure_for_the_viewers_own_items_only(team: tuple[Store, list[str]]) -> None:
    store, items = team
    queue = adjudication_queue(store, CONFIG, viewer="dora")
    assert [entry.item_id for entry in queue.entries] == [items[0]]
    assert [(e.item_id, e.view) for e in store.exposures(person="dora")] == [(items[0], "adjudication list")]
    adjudication_queue(store, CONFIG)  # built for no one (the CLI's queue): records nothing
    assert len(store.exposures()) == 1


def test_importing_a_revision_claiming_blind_after_a_recorded_exposure_is_refused_located(
    team: tuple[Store, list[str]], tmp_path: Path
) -> None:
    store, items = team
    item_dossier(store, CONFIG, items[1], with_judge=False, viewer="dora", view="item dossier")
    (event,) = store.exposures(person="dora")
    before = [row.label for row in store.labels()]
    lines = [
        a_label(items[0], "dora", ALL_TWO, created_at="2030-01-01T00:00:00Z"),  # item 0: dora saw nothing
        # Dated before the exposure, but the store holds no such revision yet: it arrives after it. The date is
        # the client's to write, so it decides nothing.
        a_label(items[1], "dora", ALL_TWO, index=1, created_at="2000-01-01T00:00:00Z"),
        a_label(items[1], "dora", ALL_TWO, index=1, revision=2, created_at="2030-01-01T00:00:00Z"),  # after
    ]
    path = tmp_path / "dora.jsonl"
    path.write_text("".join(json.dumps(label.model_dump(mode="json")) + "\n" for label in lines), encoding="utf-8")
    with pytest.raises(InputError) as refused:
        import_labels(store, [path], CONFIG.rubric)
    problems = refused.value.problems
    assert [(p.path, p.line, p.field) for p in problems] == [(str(path), 2, "revealed"), (str(path), 3, "revealed")]
    assert event.seen_at in problems[0].message and "2000-01-01T00:00:00Z" in problems[0].message
    assert [row.label for row in store.labels()] == before  # nothing imported

    honest = [lines[0], *(line.model_copy(update={"revealed": True}) for line in lines[1:])]
    path.write_text("".join(json.dumps(label.model_dump(mode="json")) + "\n" for label in honest), encoding="utf-8")
    assert import_labels(store, [path], CONFIG.rubric).added == 3


def test_a_reveal_also_refuses_a_later_revision_claiming_blind(team: tuple[Store, list[str]], tmp_path: Path) -> None:
    store, items = team
    store.record_reveal(items[0], "ana")
    path = tmp_path / "ana.jsonl"
    late = a_label(items[0], "ana", ALL_TWO, revision=2, created_at="2999-01-01T00:00:00Z")
    path.write_text(json.dumps(late.model_dump(mode="json")) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="revealed"):
        import_labels(store, [path], CONFIG.rubric)


def test_a_stored_blind_revision_imported_again_after_the_reveal_is_unchanged(
    team: tuple[Store, list[str]], tmp_path: Path
) -> None:
    """Re-importing an export is idempotent: a revision the store already holds was blind when stored."""
    store, items = team
    store.record_reveal(items[0], "ana")
    path = tmp_path / "ana.jsonl"
    stored = [row.label for row in store.labels(reviewer="ana")]
    path.write_text("".join(json.dumps(label.model_dump(mode="json")) + "\n" for label in stored), encoding="utf-8")
    report = import_labels(store, [path], CONFIG.rubric)
    assert (report.added, report.unchanged) == (0, len(stored))


def test_a_curator_cannot_rule_on_a_disagreement_they_labelled(team: tuple[Store, list[str]]) -> None:
    store, items = team
    (entry,) = adjudication_queue(store, CONFIG).entries
    assert entry.ruling_refused("Ben") is not None and entry.ruling_refused("dana") is None
    with pytest.raises(UsageError, match="ben labelled readable-case-000, so cannot rule on it"):
        record_consensus(store, CONFIG, items[0], "faithfulness", 2, "fits the anchor", "ben")
    assert store.adjudications() == {}
    record_consensus(store, CONFIG, items[0], "faithfulness", 2, "fits the anchor", "dana")
    assert store.adjudications() == {(items[0], "faithfulness"): 2}
