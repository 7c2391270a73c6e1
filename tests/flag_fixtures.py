"""A store where reviewers left flags and notes, for the flags queue's CLI, TUI and exit-code tests."""

from __future__ import annotations

from pathlib import Path

from qaeval_tui.core.store.rows import LabelDraft
from tests.core.review_fixtures import store_with_run


def flagged_store(path: Path) -> list[int]:
    """Three flags: ana's flag with a note, ben's note, ana's bare flag; returns their ids in that order."""
    store, items = store_with_run(path, n_items=4)
    with store:
        case_ids = {item: output.case_id for item, output in zip(items, store.run_outputs("run-1"), strict=True)}

        def label(item: str, reviewer: str, *, note: str = "", flagged: bool = False) -> int:
            draft = LabelDraft(item, case_ids[item], reviewer, {"faithfulness": 1}, "v1", note=note, flagged=flagged)
            return store.append_label(draft).id

        label(items[3], "ana")  # neither flagged nor noted: not a flag
        return [
            label(items[0], "ana", note="gold answer cites the wrong page", flagged=True),
            label(items[1], "ben", note="question is ambiguous"),
            label(items[2], "ana", flagged=True),
        ]
