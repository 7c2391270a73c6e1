"""A renamed person is one person (`qaeval team rename`): every read asking "is this row theirs" takes all their
names, every read grouping by person hands out the name they have now, and their revisions go on from the last.
On both backends: a store copied from a team store holds its renames."""

from __future__ import annotations

import json
from pathlib import Path

from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.renames import PersonNames
from qaeval_tui.core.store.rows import LabelDraft
from qaeval_tui.core.store.tables import TABLE_SPECS, TableRows
from tests.store_contract.conftest import Backend
from tests.store_contract.rows import SCORES, seeded


def renamed(store: StoreBackend, old: str, new: str) -> None:
    """Record a rename as the team store's owner does (no store method writes one)."""
    n = store.count("renames") + 1
    store.insert_table_rows(TableRows(TABLE_SPECS["renames"], [(n, old, new, "owner", f"2026-12-01T10:0{n}Z")]))


def label(store: StoreBackend, item: str, reviewer: str, faithfulness: int = 2) -> tuple[str, int]:
    draft = LabelDraft(item, item.removeprefix("item-"), reviewer, dict(SCORES, faithfulness=faithfulness), "1")
    stored = store.append_label(draft)
    return stored.label.reviewer, stored.label.revision


def test_a_chain_of_renames_is_one_person_named_by_the_latest() -> None:
    people = PersonNames([("ana", "anna"), ("ben", "bob"), ("anna", "ann"), ("ann", "ana")])
    assert [people.current(name) for name in ("ana", "anna", "ann", "ben", "bob", "cy")] == [
        "ana", "ana", "ana", "bob", "bob", "cy",
    ]  # fmt: skip
    assert not PersonNames([])


def test_a_renamed_persons_history_reads_as_theirs_under_their_name_now(backend: Backend) -> None:
    store = backend.open()
    first, second, _ = seeded(store)
    assert label(store, first, "ana") == ("ana", 1)
    store.record_reveal(first, "ana")
    store.record_gold_shown(second, "ana", SCORES)
    assert label(store, first, "ben") == ("ben", 1)
    renamed(store, "ana", "anna")
    # Theirs, by either name: the history, the reveal, the gold lock; a new revision goes on from the last.
    assert label(store, first, "anna") == ("anna", 2)
    assert [(r.label.reviewer, r.label.revision) for r in store.labels(reviewer="ana")] == [("anna", 1), ("anna", 2)]
    assert store.has_revealed(first, "anna") and store.gold_shown(second, "anna") == SCORES
    assert store.record_gold_shown(second, "anna", {"faithfulness": 0, "citation_correctness": 0}) == SCORES
    assert [mark.item_id for mark in store.label_marks("anna")] == [first, first]
    assert store.labels(reviewer="anna")[-1].label.revealed  # after the reveal made as ana
    # Grouped by person: one name each.
    assert {revision.reviewer for revision in store.label_revisions()} == {"anna", "ben"}
    assert store.label_reviewers() == ["anna", "ben"]
    assert set(store.unblinded_at()) == {(first, "anna")}


def test_renaming_back_keeps_one_person(backend: Backend) -> None:
    store = backend.open()
    first, _, _ = seeded(store)
    label(store, first, "ana")
    renamed(store, "ana", "anna")
    label(store, first, "anna")
    renamed(store, "anna", "ana")
    assert label(store, first, "ana") == ("ana", 3)
    assert store.label_reviewers() == ["ana"]


def test_exports_are_by_the_name_now_and_importing_an_old_export_again_changes_nothing(
    backend: Backend, tmp_path: Path
) -> None:
    from qaeval_tui.core.config import Config
    from qaeval_tui.core.review.label_export import export_labels
    from qaeval_tui.core.review.labels_io import import_labels

    store = backend.open()
    first, second, _ = seeded(store)
    label(store, first, "ana")
    label(store, second, "ben")
    assert export_labels(store, tmp_path / "before") == {"ana": 1, "ben": 1}
    renamed(store, "ana", "anna")
    label(store, first, "anna")
    assert export_labels(store, tmp_path / "after") == {"anna": 2, "ben": 1}  # one file per person
    lines = (tmp_path / "after" / "anna.jsonl").read_text(encoding="utf-8").splitlines()
    assert [(json.loads(line)["reviewer"], json.loads(line)["revision"]) for line in lines] == [
        ("anna", 1),
        ("anna", 2),
    ]
    for folder in ("before", "after"):  # the file written under her former name is hers, already stored
        report = import_labels(store, [tmp_path / folder], Config().rubric)
        assert (report.added, report.unchanged) == (0, report.lines), folder
    assert len(store.labels()) == 3


def test_a_queue_under_a_former_name_is_the_persons_and_the_dashboard_counts_one_queue(backend: Backend) -> None:
    """`team rename` moves the queue with the login; one a curator built under the old name since is theirs too."""
    from qaeval_tui.core.store.rows import QueueEntry

    store = backend.open()
    first, second, third = seeded(store)
    store.write_assignments([QueueEntry("ana", first, 1, 7), QueueEntry("ben", second, 1, 7)], replace=False)
    renamed(store, "ana", "anna")
    store.write_assignments([QueueEntry("anna", third, 2, 7)], replace=False)
    assert store.queue_item_ids("anna") == [first, third] and store.queue_length("ana") == 2
    assert store.queued_items() == {"anna": frozenset({first, third}), "ben": frozenset({second})}
    assert [(a.reviewer, a.item_id) for a in store.assignments("anna")] == [("anna", first), ("anna", third)]


def test_qaeval_queue_refuses_a_former_name_and_names_the_one_to_queue(backend: Backend) -> None:
    """A queue is made under the name a person signs in with now: `--reviewers ana` after ana became anna
    is a usage error naming anna, and nothing is assigned."""
    import pytest

    from qaeval_tui.core.config import Config, ReviewConfig
    from qaeval_tui.core.errors import UsageError
    from qaeval_tui.core.usecases.queue import queue_from_run, queue_more_labels

    store = backend.open()
    seeded(store)
    renamed(store, "ana", "anna")
    config = Config(review=ReviewConfig(reviewers=["ben", "anna"]))
    for queue in (
        lambda: queue_from_run(config, store, reviewers=["ben", "ana"]),
        lambda: queue_more_labels(config, store, reviewers=["ana"]),
    ):
        with pytest.raises(UsageError, match=r"reviewer 'ana' was renamed to 'anna' .*queue 'anna' instead"):
            queue()
    assert store.queued_items() == {}
    outcome = queue_from_run(config, store)  # the roster's names now
    assert set(outcome.report.load) == set(store.queued_items()) == {"ben", "anna"}
