"""Issue 6: the calibration dashboard's whole computation on a store holding 100,000 labels.

50,000 items x 2 reviewers, 3 axes, judge verdicts for every item and the reviewers' queues, all
written to a real SQLite store; timed is `compute_dashboard` (what the dashboard's worker runs):
reading the labels, agreement with 1,000 bootstrap replicates, calibration with confusion cells,
and reviewer progress.
"""

from __future__ import annotations

import gc
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import Figure
from qaeval_tui.core.config import Config
from qaeval_tui.core.models.label import Label
from qaeval_tui.core.models.run import JudgeVerdict
from qaeval_tui.core.store.rows import QueueEntry, ReviewItemRecord, RunRecord, VerdictRecord
from qaeval_tui.core.store.sqlite import Store
from qaeval_tui.core.usecases.dashboard import compute_dashboard

ITEMS, REVIEWERS = 50_000, ("rev-a", "rev-b")
CREATED = "2026-10-01T09:00:00.000Z"


def fill_store(path: Path, config: Config, seed: int = 0) -> int:
    """A store with ITEMS x len(REVIEWERS) blind labels and one judge verdict per item; returns the label count."""
    axes = config.rubric.axis_names
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, size=(ITEMS, len(axes)))
    items = [f"item-{i:06d}" for i in range(ITEMS)]
    labels: list[dict[str, Any]] = []
    for r, reviewer in enumerate(REVIEWERS):
        noisy = rng.random(truth.shape) < 0.2
        scores = np.where(noisy, rng.integers(0, 3, size=truth.shape), truth)
        labels.extend(
            {
                "item_id": item, "case_id": f"case-{i:06d}", "reviewer": reviewer,
                "scores": dict(zip(axes, (int(v) for v in scores[i]), strict=True)), "note": "", "flagged": False,
                "skipped": False, "rubric_version": config.rubric.version, "revealed": False, "revision": 1,
                "created_at": CREATED, "seconds_spent": 30.0 + r,
            }
            for i, item in enumerate(items)
        )  # fmt: skip
    judge = np.where(rng.random(truth.shape) < 0.2, rng.integers(0, 3, size=truth.shape), truth)
    verdicts = [
        {
            "item_id": item, "case_id": f"case-{i:06d}", "judge_name": "bench", "config_hash": "bench-judge",
            "status": "ok", "created_at": CREATED,
            "verdict": {
                "item_id": item, "case_id": f"case-{i:06d}", "status": "ok", "created_at": CREATED,
                "judge": {"name": "bench", "model": "bench", "config_hash": "bench-judge"},
                "scores": dict(zip(axes, (int(v) for v in judge[i]), strict=True)), "evidence": {},
            },
        }
        for i, item in enumerate(items)
    ]  # fmt: skip
    run = {
        "run_id": "bench-run", "suite_hash": "bench", "adapter": "bench", "judge_name": "bench",
        "judge_config_hash": "bench-judge", "code_version": "bench", "started_at": CREATED, "finished_at": CREATED,
        "n_cases": ITEMS, "data": {}, "metrics": {},
    }  # fmt: skip
    with Store.open(path) as store:
        store.insert_run(
            RunRecord(**run),
            [],
            [VerdictRecord(**v | {"verdict": JudgeVerdict.model_validate(v["verdict"])}) for v in verdicts],
        )
        store.insert_labels((Label.model_construct(**label) for label in labels), origin="bench")
        store.insert_review_items(
            ReviewItemRecord(item, f"case-{i:06d}", "c", "o", "bench-run") for i, item in enumerate(items)
        )
        store.write_assignments(
            (
                QueueEntry(reviewer, item, position, 0)
                for reviewer in REVIEWERS
                for position, item in enumerate(items, 1)
            ),
            replace=True,
        )
    return len(labels)


def run(workdir: Path) -> list[Figure]:
    config = Config()
    n_labels = fill_store(workdir / "dashboard.db", config)
    # The set-up's garbage is collected now, not inside whichever timed call next triggers a full
    # collection (which one that is depends on the set-up's allocations, not on the code measured).
    gc.collect()
    with Store.open(workdir / "dashboard.db") as store:
        started = time.perf_counter()
        dashboard = compute_dashboard(store, config)
        seconds = time.perf_counter() - started
        assert dashboard.calibration is not None and dashboard.agreement is not None
        axis = config.rubric.axes[0].name
        confusion = dashboard.confusion(axis)
        assert confusion is not None
        started = time.perf_counter()
        cell = dashboard.items_in_cell(axis, 2, 1)
        drill = time.perf_counter() - started
        assert len(cell) == confusion.count(1, 2)
        # Where the time goes: the bulk reads the computation itself makes.
        started = time.perf_counter()
        store.label_revisions(), store.verdict_scores(config_hash="bench-judge"), store.queued_items()
        reads = time.perf_counter() - started
    return [
        Figure(f"dashboard computation, {n_labels:,} labels in the store", seconds, "s", "<= 2 s", seconds <= 2.0),
        Figure("  of which: bulk reads of labels, verdicts and queues", reads, "s", "(reference)", True),
        Figure("dashboard drill-down: items behind one confusion cell", drill * 1000, "ms", "<= 100 ms", drill <= 0.1),
    ]
