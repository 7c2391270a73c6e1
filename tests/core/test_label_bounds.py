"""What a label may hold, on both backends alike: the team store's database refuses more (schema migration 9),
so a label file, or a review session, is told first, at the line and field, with nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qaeval_tui.core.config import Config
from qaeval_tui.core.errors import InputError
from qaeval_tui.core.limits import MAX_NOTE_CHARS
from qaeval_tui.core.review.labels_io import import_labels
from qaeval_tui.core.review.session import InvalidScoresError, ReviewSession, build_review_items
from tests.core.review_fixtures import FULL, store_with_run


def test_a_label_file_with_a_note_too_long_is_refused_at_its_line(tmp_path: Path) -> None:
    store, items = store_with_run(tmp_path / "s.db", n_items=1)
    with store:
        build_review_items(store, "run-1")
        line = {
            "item_id": items[0], "case_id": store.case_ids_by_item()[items[0]], "reviewer": "ana", "scores": FULL,
            "note": "n" * (MAX_NOTE_CHARS + 1), "rubric_version": "1", "revision": 1,
            "created_at": "2026-01-01T00:00:00Z",
        }  # fmt: skip
        path = tmp_path / "ana.jsonl"
        path.write_text(json.dumps(line) + "\n", encoding="utf-8")
        with pytest.raises(InputError) as refused:
            import_labels(store, [path], Config().rubric)
        assert [(p.line, p.field) for p in refused.value.problems] == [(1, "note")]
        assert store.labels() == []
        path.write_text(json.dumps({**line, "note": "n" * MAX_NOTE_CHARS}) + "\n", encoding="utf-8")
        assert import_labels(store, [path], Config().rubric).added == 1


def test_a_review_session_refuses_a_note_too_long_before_writing(tmp_path: Path) -> None:
    store, _ = store_with_run(tmp_path / "s.db", n_items=1)
    with store:
        build_review_items(store, "run-1")
        config = Config.model_validate({"review": {"reviewers": ["ana"], "overlap": 1}})
        from qaeval_tui.core.review.queue import assign

        assign(store, ["ana"], 1, seed=1)
        session = ReviewSession(store, config, "ana")
        view = session.next_item()
        assert view is not None
        with pytest.raises(InvalidScoresError, match=f"at most {MAX_NOTE_CHARS}"):
            session.submit(view.item_id, dict(FULL), "n" * (MAX_NOTE_CHARS + 1), False, 1.0)
        assert store.labels() == []
