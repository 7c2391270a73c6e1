"""Issue 4: agreement (1,000 bootstrap replicates) and calibration on 100,000 items x 5 reviewers x 3 axes.

Synthetic in-memory labels, built as numpy columns and measured through the public functions
`agreement_report` and `calibrate` (the same ones `qaeval agreement` / `qaeval calibrate` call).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from benchmarks import Figure
from qaeval_tui.core.config import Config
from qaeval_tui.core.statistics.agreement import agreement_report
from qaeval_tui.core.statistics.calibration import calibrate
from qaeval_tui.core.statistics.label_table import LabelTable
from qaeval_tui.core.statistics.verdict_table import VerdictTable

ITEMS, REVIEWERS, REPLICATES = 100_000, 5, 1_000


def synthetic(seed: int = 0) -> tuple[LabelTable, VerdictTable, Config]:
    """Every reviewer labels every item: a latent score per item and axis, 20% reviewer noise,
    2% can't judge; the judge matches the latent score 80% of the time."""
    config = Config()
    axes = config.rubric.axis_names
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, size=(ITEMS, len(axes))).astype(np.float64)
    item_codes = np.repeat(np.arange(ITEMS), REVIEWERS)
    reviewer_codes = np.tile(np.arange(REVIEWERS), ITEMS)
    scores = truth[item_codes].copy()
    noisy = rng.random(scores.shape) < 0.2
    scores[noisy] = rng.integers(0, 3, size=int(noisy.sum()))
    cant_judge = rng.random(scores.shape) < 0.02
    scores[cant_judge] = np.nan
    items = tuple(f"item-{i:06d}" for i in range(ITEMS))
    table = LabelTable(
        items=items,
        reviewers=tuple(f"reviewer-{r}" for r in range(REVIEWERS)),
        axes=axes,
        item_codes=item_codes,
        reviewer_codes=reviewer_codes,
        scores=scores,
        cant_judge=cant_judge,
    )
    judge = truth.copy()
    wrong = rng.random(judge.shape) < 0.2
    judge[wrong] = rng.integers(0, 3, size=int(wrong.sum()))
    verdicts = VerdictTable(items=items, axes=axes, scores=judge, config_hash="bench", judge_name="bench")
    return table, verdicts, config


def run(workdir: Path) -> list[Figure]:
    del workdir  # everything is in memory
    table, verdicts, config = synthetic()
    started = time.perf_counter()
    report = agreement_report(table, config.rubric, replicates=REPLICATES, seed=0)
    agreement_seconds = time.perf_counter() - started
    assert all(axis.alpha.ci is not None for axis in report.axes.values())

    started = time.perf_counter()
    calibration = calibrate(table, verdicts, config.rubric, config.calibration)
    calibration_seconds = time.perf_counter() - started
    assert all(axis.n > 0 for axis in calibration.axes.values())
    size = f"{ITEMS:,} items x {REVIEWERS} reviewers x {len(config.rubric.axes)} axes"
    return [
        Figure(
            f"agreement, {REPLICATES:,} replicates, {size}", agreement_seconds, "s", "<= 5 s", agreement_seconds <= 5.0
        ),
        Figure(f"calibration, {size}", calibration_seconds, "s", "<= 2 s", calibration_seconds <= 2.0),
    ]
