"""The store's bulk reads for statistics return exactly what the row-by-row reads return.

One store holds what the fast path must get right: several revisions, post-reveal revisions,
skips, a label under an old rubric version, can't-judge scores, and two judge configs (a re-scored
verdict, an error verdict, a verdict under another rubric version). Every figure computed from the
bulk reads is compared with the same figure computed from validated `Label` / `JudgeVerdict` models.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from qaeval_tui.core.config import Config
from qaeval_tui.core.models.label import Label
from qaeval_tui.core.models.run import JudgeVerdict
from qaeval_tui.core.review.session import assign, build_review_items
from qaeval_tui.core.statistics.agreement import agreement_report
from qaeval_tui.core.statistics.calibration import calibrate
from qaeval_tui.core.statistics.label_table import LabelTable, select_labels
from qaeval_tui.core.statistics.sources import (
    agreement_from_store,
    calibration_from_store,
    labels_from_store,
    verdicts_from_store,
)
from qaeval_tui.core.statistics.verdict_table import VerdictTable
from qaeval_tui.core.store.rows import LabelDraft, RunRecord, VerdictRecord
from qaeval_tui.core.store.sqlite import Store, StoredLabel, StoredVerdict
from qaeval_tui.core.usecases.dashboard import compute_dashboard, progress_from_revisions, reviewer_progress
from tests.core.review_fixtures import JUDGE_HASH, JUDGE_NAME, store_with_run

CONFIG = Config()
RUBRIC = CONFIG.rubric
LATER_JUDGE = "judgehash0002"


def label(item: str, reviewer: str, revision: int, scores: dict[str, int | None], **fields: Any) -> Label:
    return Label(
        item_id=item, case_id="c", reviewer=reviewer, revision=revision, scores=scores, note="",
        flagged=fields.get("flagged", False), skipped=fields.get("skipped", False),
        rubric_version=fields.get("rubric_version", "1"), revealed=fields.get("revealed", False),
        created_at="2026-01-02T00:00:00Z", seconds_spent=fields.get("seconds", 12.5),
    )  # fmt: skip


def later_verdict(item: str, scores: dict[str, int | None], **judge: str) -> VerdictRecord:
    status = "error" if not scores else "ok"
    verdict = {
        "item_id": item, "case_id": "c", "status": status, "scores": scores, "created_at": "2026-02-01T00:00:00Z",
        "judge": {"name": "stricter-judge", "model": "m", "config_hash": LATER_JUDGE, "rubric_version": "1"} | judge,
        "evidence": {"faithfulness": "a long quote the bulk read never parses"},
    }  # fmt: skip
    return VerdictRecord(
        item_id=item, case_id="c", judge_name="stricter-judge", config_hash=LATER_JUDGE,
        status=status, verdict=JudgeVerdict.model_validate(verdict), created_at="2026-02-01T00:00:00Z",
    )  # fmt: skip


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    store, items = store_with_run(tmp_path / "bulk.db", n_items=5)
    i0, i1, i2, i3, i4 = items
    full: dict[str, int | None] = {"faithfulness": 2, "citation_correctness": 1, "answer_correctness": 0}
    build_review_items(store, "run-1")
    assign(store, ("ana", "ben"), 2, seed=3)
    store.insert_labels(
        [
            label(i0, "ana", 1, full), label(i0, "ana", 2, full | {"faithfulness": 1}, flagged=True),
            label(i0, "ben", 1, {"faithfulness": None, "citation_correctness": 1}),
            label(i1, "ana", 1, {}, skipped=True), label(i1, "ana", 2, full),
            label(i1, "ben", 1, full, rubric_version="0"), label(i1, "ben", 2, full | {"answer_correctness": 2}),
            label(i2, "ana", 1, full), label(i2, "ben", 1, {}, skipped=True, seconds=3.0),
            label(i3, "ben", 1, full | {"citation_correctness": None}), label(i3, "ana", 1, full),
            label(i4, "zoe", 1, full),  # imported, never queued
        ],
        origin="test",
    )  # fmt: skip
    # Changed minds after seeing the judge: kept, and left out unless post-reveal revisions are read.
    for item, reviewer in ((i0, "ben"), (i2, "ana")):
        store.record_reveal(item, reviewer)
        # The store numbers the revision and marks it revealed from the reveals table.
        store.append_label(
            LabelDraft(item, "c", reviewer, full | {"faithfulness": 0}, "1", created_at="2026-01-02T00:00:00Z",
                       seconds_spent=12.5)
        )  # fmt: skip
    store.insert_run(
        RunRecord(
            run_id="run-2", suite_hash="suite", adapter="a", judge_name="stricter-judge",
            judge_config_hash=LATER_JUDGE, code_version="0.1.0", started_at="2026-02-01T00:00:00Z",
            finished_at="2026-02-01T00:00:01Z", n_cases=5, data={}, metrics={},
        ),
        [],
        [
            later_verdict(i0, {"faithfulness": 0, "citation_correctness": 1, "answer_correctness": 2}),
            later_verdict(i0, {"faithfulness": 1, "citation_correctness": None, "answer_correctness": 2}),
            later_verdict(i1, {}),
            later_verdict(i2, {"faithfulness": 2, "citation_correctness": 0}),
            later_verdict(i3, full, rubric_version="0"),
        ],
    )  # fmt: skip
    yield store
    store.close()


def test_bulk_reads_return_the_rows_the_row_by_row_reads_return(store: Store) -> None:
    revisions = store.label_revisions()
    assert revisions == [
        StoredLabel._make([*(getattr(row.label, name) for name in StoredLabel._fields[:-1]), row.id])
        for row in store.labels()
    ]
    assert {type(r.skipped) for r in revisions} == {type(r.revealed) for r in revisions} == {bool}
    assert sum(r.revealed for r in revisions) == 2
    for config_hash in (None, JUDGE_HASH, LATER_JUDGE):
        expected = [
            StoredVerdict(v.verdict.item_id, v.verdict.status, v.verdict.judge, v.verdict.scores)
            for v in store.verdicts(config_hash=config_hash)
        ]
        assert store.verdict_scores(config_hash=config_hash) == expected
    reviewers = {entry.reviewer for entry in store.assignments()}
    assert store.queued_items() == {name: frozenset(store.queue_item_ids(name)) for name in reviewers}


@pytest.mark.parametrize("include_post_reveal", [False, True])
def test_labels_from_store_selects_what_validated_labels_select(store: Store, include_post_reveal: bool) -> None:
    fast = labels_from_store(store, RUBRIC, include_post_reveal=include_post_reveal)
    models = [row.label for row in store.labels()]
    slow = select_labels(models, RUBRIC.version, include_post_reveal=include_post_reveal)
    assert fast.selection.counts() == slow.counts()
    assert fast.selection.counts()["skips"] == 2 and fast.selection.counts()["other_rubric_version"] == 1
    assert [(x.item_id, x.reviewer, x.revision, dict(x.scores)) for x in fast.selection.labels] == [
        (x.item_id, x.reviewer, x.revision, x.scores) for x in slow.labels
    ]
    table = LabelTable.from_labels(slow.labels, RUBRIC)
    for name in ("items", "reviewers", "axes"):
        assert getattr(fast.table, name) == getattr(table, name)
    for name in ("item_codes", "reviewer_codes", "scores", "cant_judge"):
        np.testing.assert_array_equal(getattr(fast.table, name), getattr(table, name))


@pytest.mark.parametrize("config_hash", [None, JUDGE_HASH, LATER_JUDGE])
def test_verdicts_from_store_reads_what_validated_verdicts_give(store: Store, config_hash: str | None) -> None:
    fast = verdicts_from_store(store, RUBRIC, config_hash)
    picked = config_hash or LATER_JUDGE  # by default, the latest run's judge
    models = [v.verdict for v in store.verdicts(config_hash=picked)]
    slow = VerdictTable.from_verdicts(models, RUBRIC, picked)
    assert (fast.items, fast.config_hash, fast.judge_name, fast.counts) == (
        slow.items, slow.config_hash, slow.judge_name, slow.counts,
    )  # fmt: skip
    np.testing.assert_array_equal(fast.scores, slow.scores)


def test_without_the_latest_judges_verdicts_the_only_judge_is_used(tmp_path: Path) -> None:
    store, _ = store_with_run(tmp_path / "one-judge.db", n_items=2)
    with store:
        run = store.get_run("run-1")
        assert run is not None
        store.insert_run(replace(run, run_id="run-2", judge_config_hash=None, started_at="2026-03-01"), [], [])
        table = verdicts_from_store(store, RUBRIC)
    assert (table.config_hash, table.judge_name, table.counts["used"]) == (JUDGE_HASH, JUDGE_NAME, 2)


def test_agreement_calibration_and_progress_match_the_validated_path(store: Store) -> None:
    models = [row.label for row in store.labels()]
    selection = select_labels(models, RUBRIC.version)
    table = LabelTable.from_labels(selection.labels, RUBRIC)
    verdicts = VerdictTable.from_verdicts(
        [v.verdict for v in store.verdicts(config_hash=LATER_JUDGE)], RUBRIC, LATER_JUDGE
    )
    cal, source = CONFIG.calibration, f"store {store.path}"
    agreement = agreement_report(
        table, RUBRIC, replicates=cal.bootstrap_replicates, seed=cal.seed, selection=selection, source=source
    )
    calibration = calibrate(
        table, verdicts, RUBRIC, cal, adjudicated=store.adjudications(), selection=selection, source=source
    )
    assert agreement_from_store(store, CONFIG).to_json() == agreement.to_json()
    assert calibration_from_store(store, CONFIG).to_json() == calibration.to_json()
    dashboard = compute_dashboard(store, CONFIG)
    assert dashboard.agreement is not None and dashboard.agreement.to_json() == agreement.to_json()
    assert dashboard.calibration is not None and dashboard.calibration.to_json() == calibration.to_json()
    assert list(dashboard.reviewers) == reviewer_progress(store.labels(), store.assignments())
    assert progress_from_revisions(store.label_revisions(), store.queued_items()) == list(dashboard.reviewers)
    ana, ben, zoe = dashboard.reviewers
    assert (ana.assigned, ana.done, ana.skipped, ana.flagged, ana.labeled, ana.post_reveal) == (5, 4, 0, 1, 4, 1)
    assert (ben.assigned, ben.done, ben.skipped, ben.flagged, ben.labeled, ben.post_reveal) == (5, 3, 1, 0, 3, 1)
    assert (ana.seconds_spent, ben.seconds_spent) == (7 * 12.5, 5 * 12.5 + 3.0)
    assert (zoe.reviewer, zoe.assigned, zoe.labeled) == ("zoe", 0, 1)
