"""The store reads behind a review session: revisions after an id, the queue, change tokens, migration 2."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from qaeval_tui.core.config import Config
from qaeval_tui.core.review.session import ReviewSession, assign, build_review_items
from qaeval_tui.core.store.schema import MIGRATIONS as _MIGRATIONS
from qaeval_tui.core.store.sqlite import SCHEMA_VERSION, Store
from tests.core.review_fixtures import FULL, store_with_run


def test_label_marks_read_one_reviewers_revisions_after_an_id_in_order(tmp_path: Path) -> None:
    store, items = store_with_run(tmp_path / "q.db", n_items=3)
    build_review_items(store, "run-1")
    assign(store, ["ana", "ben"], overlap=2, seed=1)
    ana, ben = ReviewSession(store, Config(), "ana"), ReviewSession(store, Config(), "ben")
    first = ana.submit(items[0], FULL, "", True, 1.5)
    ben.submit(items[0], FULL, "", False, 9.0)
    ana.skip(items[1], 2.5)
    marks = store.label_marks("ana")
    assert [(item, skipped, flagged, secs) for _, item, skipped, flagged, secs in marks] == [
        (items[0], 0, 1, 1.5),
        (items[1], 1, 0, 2.5),
    ]
    first_id = marks[0].id
    assert [mark.item_id for mark in store.label_marks("ana", after_id=first_id)] == [items[1]]
    assert store.label_marks("ana", after_id=marks[-1].id) == [] and first.revision == 1
    assert store.queue_item_ids("ana") == [item_id for _, item_id, _ in store.assignments("ana")]
    assert store.queue_length("ana") == 3 and store.queue_length("nobody") == 0


def test_start_up_reads_never_import_sqlite_utils_and_table_names_agree_with_it(tmp_path: Path) -> None:
    path = tmp_path / "q.db"
    script = (
        "import sys\nfrom qaeval_tui.core.store.sqlite import Store\n"
        f"store = Store.open({str(path)!r})\nstore.count('labels')\nprint('sqlite_utils' in sys.modules)"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert run.stdout.split() == ["False"]  # importing it slows the review TUI's cold start
    with Store.open(path) as store:
        names = store.table_names()
        assert {"labels", "assignments", "review_items"} <= set(names)
        assert store.db.table_names() == names


def test_change_token_moves_on_any_commit_from_here_or_elsewhere(tmp_path: Path) -> None:
    store, items = store_with_run(tmp_path / "q.db", n_items=2)
    build_review_items(store, "run-1")
    token = store.change_token()
    assert store.change_token() == token
    assign(store, ["ana"], overlap=1, seed=1)
    moved = store.change_token()
    assert moved != token
    with Store.open(store.path) as other:
        other.record_reveal(items[0], "ana")
    assert store.change_token() != moved


def version_1_store(path: Path) -> None:
    conn = sqlite3.connect(path)
    for statement in _MIGRATIONS[0]:
        conn.execute(statement)
    conn.execute(
        """INSERT INTO labels (item_id, case_id, reviewer, revision, scores_json, note, flagged, skipped,
           rubric_version, revealed, created_at, seconds_spent, origin)
           VALUES ('i1', 'c1', 'ana', 1, '{}', '', 0, 0, '1', 0, '2026-01-01T00:00:00Z', 3.0, 'old')"""
    )
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()


def test_an_existing_version_1_store_gains_the_index_and_keeps_its_labels(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    version_1_store(path)
    with Store.open(path) as store:
        assert store.schema_version == SCHEMA_VERSION
        assert [mark[1:] for mark in store.label_marks("ana")] == [("i1", 0, 0, 3.0)]
        plan = " ".join(
            row[-1]
            for row in store.conn.execute(
                "EXPLAIN QUERY PLAN SELECT id, item_id, skipped, flagged, seconds_spent FROM labels "
                "WHERE reviewer = ? AND id > ? ORDER BY id",
                ("ana", 0),
            )
        )
        assert "COVERING INDEX labels_by_reviewer_in_order" in plan and "TEMP B-TREE" not in plan


def test_two_processes_upgrading_an_old_store_at_once_both_open_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "old.db"
    version_1_store(path)
    late = Store(sqlite3.connect(path, isolation_level=None), str(path))
    Store.open(path).close()  # the first process upgrades
    monkeypatch.setattr(Store, "schema_version", property(lambda _: 1))  # what the second read just before
    late.migrate()
    late.close()
    monkeypatch.undo()
    with Store.open(path) as store:
        assert store.schema_version == SCHEMA_VERSION and [m[1] for m in store.label_marks("ana")] == ["i1"]
