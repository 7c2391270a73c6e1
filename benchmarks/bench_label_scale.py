"""Issue 26: agreement + calibration grow linearly in labels, from 100,000 to 1,000,000.

The path `qaeval agreement` / `qaeval calibrate` take once the revisions are read: `label_input`
(the latest blind revision per item and reviewer, then the label table), `VerdictTable.from_verdicts`,
`agreement_report` (200 bootstrap replicates) and `calibrate`. Five reviewers label every item, one
label in ten has an earlier revision it supersedes; the labels arrive in commit order (reviewer by
reviewer, items shuffled) and are shaped as the store's `label_revisions` returns them (a fresh item
id string per row, ids shaped as `item_id_for` makes them, one shared scores mapping per distinct
scores text).

Each size is timed twice, interleaved, and the best kept; the growth is printed in CPU time (the
work, which other processes on a shared machine disturb little) and in wall time. The 1,000,000-label figure runs with
QAEVAL_BENCH_BIG=1 (about a minute and ~520 MB here); without it, 30,000 and 100,000 labels are
timed and the ratio is reported for that step of 3.3x instead.
The floor of each ratio is linear growth: the ratio of the label counts; the target is 5% over it
(timings on a shared machine wobble, and what is left over linear is memory: past the processor's
cache every object visit waits on it).
"""

from __future__ import annotations

import gc
import os
import resource
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

import numpy as np

from benchmarks import Figure
from qaeval_tui.core.config import Config
from qaeval_tui.core.statistics.agreement import agreement_report
from qaeval_tui.core.statistics.calibration import calibrate
from qaeval_tui.core.statistics.sources import label_input
from qaeval_tui.core.statistics.verdict_table import VerdictTable

REVIEWERS, REPLICATES = 5, 200
ROUNDS = 2
SLACK = 1.05
"""How far over linear a ratio may go: item ids are numbered by one sort (n log n), and timings wobble."""


@dataclass(frozen=True, slots=True)
class _Label:
    item_id: str
    case_id: str
    reviewer: str
    revision: int
    skipped: bool
    rubric_version: str
    revealed: bool
    scores: Mapping[str, int | None]


@dataclass(frozen=True, slots=True)
class _Verdict:
    item_id: str
    judge: Mapping[str, str | float | int]
    status: str
    scores: Mapping[str, int | None]


def synthetic(labels: int, config: Config, seed: int = 0) -> tuple[list[_Label], list[_Verdict]]:
    items = labels * 10 // 11 // REVIEWERS  # one label in ten supersedes an earlier revision
    axes = config.rubric.axis_names
    version = config.rubric.version
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, size=(items, len(axes)))
    # Shaped as `item_id_for` makes them: a case hash and an output hash, 16 hex digits each.
    halves = rng.integers(0, 2**63, size=(items, 2)).tolist()
    names = [f"{case:016x}.{output:016x}" for case, output in halves]
    rows: list[_Label] = []
    shared: dict[tuple[int, ...], Mapping[str, int | None]] = {}
    for reviewer in range(REVIEWERS):
        order = rng.permutation(items)
        noisy = rng.random((items, len(axes))) < 0.2
        given = np.where(noisy, rng.integers(0, 3, size=(items, len(axes))), truth)
        revised = rng.random(items) < 0.1 * 11 / 10
        for index in order.tolist():
            # As `label_revisions` hands them out: a fresh id string per row, one scores mapping per
            # distinct scores text.
            values = tuple(given[index].tolist())
            scores = shared.get(values)
            if scores is None:
                scores = shared[values] = MappingProxyType(dict(zip(axes, values, strict=True)))
            item_id = f"{halves[index][0]:016x}.{halves[index][1]:016x}"
            label = _Label(item_id, item_id, f"reviewer-{reviewer}", 1, False, version, False, scores)
            rows.append(label)
            if revised[index] and len(rows) < labels:
                again = f"{halves[index][0]:016x}.{halves[index][1]:016x}"
                rows.append(_Label(again, again, f"reviewer-{reviewer}", 2, False, version, False, scores))
    judge = {"name": "bench", "config_hash": "bench", "rubric_version": version}
    verdicts = [
        _Verdict(name, judge, "ok", {axis: int(truth[i, a]) for a, axis in enumerate(axes)})
        for i, name in enumerate(names)
    ]
    return rows[:labels], verdicts


def timed(labels: int) -> tuple[float, float]:
    """(wall, CPU) seconds of the statistics on `labels` synthetic labels."""
    config = Config()
    rows, verdicts = synthetic(labels, config)
    gc.collect()
    started, cpu = time.perf_counter(), time.process_time()
    chosen = label_input(rows, config.rubric, "bench")
    judged = VerdictTable.from_verdicts(verdicts, config.rubric)
    report = agreement_report(chosen.table, config.rubric, replicates=REPLICATES, seed=0)
    calibration = calibrate(chosen.table, judged, config.rubric, config.calibration)
    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu
    assert all(axis.alpha.ci is not None for axis in report.axes.values())
    assert all(axis.n > 0 for axis in calibration.axes.values())
    return seconds, cpu_seconds


def run(workdir: Path) -> list[Figure]:
    del workdir  # everything is in memory
    big = os.environ.get("QAEVAL_BENCH_BIG") == "1"
    small, large = (100_000, 1_000_000) if big else (30_000, 100_000)
    # best of a few, interleaved, so a busy moment of the machine does not decide the ratio
    small_runs: list[tuple[float, float]] = []
    large_runs: list[tuple[float, float]] = []
    for _ in range(ROUNDS):
        small_runs.append(timed(small))
        large_runs.append(timed(large))
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    floor = large / small
    figures = [
        Figure(f"agreement + calibration, {n:,} labels (wall; CPU {cpu:.2f} s)", wall, "s", "reported", True)
        for n, (wall, cpu) in ((small, _best(small_runs, 0)), (large, _best(large_runs, 0)))
    ]
    for index, clock in ((1, "CPU"), (0, "wall")):
        ratio = _best(large_runs, index)[index] / _best(small_runs, index)[index]
        figures.append(
            Figure(
                f"  growth {small:,} -> {large:,} labels, {clock} (linear floor {floor:.1f}x)",
                ratio,
                "x",
                f"<= {floor * SLACK:.1f} ({ratio / floor:.2f}x linear)"
                + ("" if ratio <= floor * SLACK else f" (misses by {ratio / (floor * SLACK) - 1:.0%})"),
                ratio <= floor * SLACK,
            )
        )
    figures.append(Figure("  peak memory of the process (max RSS)", peak_mb, "MB", "reported", True))
    if not big:
        print("   (QAEVAL_BENCH_BIG=1 times 100,000 -> 1,000,000 labels)", flush=True)
    return figures


def _best(runs: list[tuple[float, float]], index: int) -> tuple[float, float]:
    return min(runs, key=lambda run: run[index])
