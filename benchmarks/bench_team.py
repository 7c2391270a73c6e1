"""Issue 14: a team store on PostgreSQL, against a throwaway local server this module starts and stops.

- 20 reviewers, each a separate process running the review app's `ReviewSession`, label one
  overlap-3 queue at once: the time from submit to the next item on screen (p95 over every submit),
  labels lost (acknowledged but not stored) and queue invariants broken (an item labelled by other
  than its assigned reviewers, a revision stored twice). The target is read with each reviewer
  pausing about 250 ms on an item (20 reviewers then submit some 80 labels a second, far beyond a
  real team); the same flat out, with no pause at all, is printed for reference (it measures how
  the machine's cores are shared among 20 processes and the server more than the store).
- Agreement and calibration (`qaeval agreement` / `qaeval calibrate`'s use cases, 1,000 bootstrap
  replicates) over 100,000 labels read from PostgreSQL, against the same read from SQLite.
- `store copy` of that 100,000-label store from SQLite into PostgreSQL (the figure is reported).

The server is tests/pg/server.py's, the one the PostgreSQL tests start: the same binaries, the same
non-root user when run as root.
"""

from __future__ import annotations

import gc
import time
from pathlib import Path

from benchmarks import Figure
from benchmarks.bench_dashboard import fill_store
from qaeval_tui.core.config import Config
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.copy import copy_store
from qaeval_tui.core.store.sqlite import Store
from qaeval_tui.core.usecases.statistics import agreement_report, calibration_report
from tests.pg.reviewers import PgOpener, run_team, team_store
from tests.pg.server import PgServer

REVIEWERS, ITEMS = 20, 400
P95_MS, RATIO = 50.0, 1.5
THINK_S = 0.25  # a reviewer reading an item for a quarter of a second: faster than any person


def _statistics_seconds(store: StoreBackend, config: Config) -> float:
    """Agreement then calibration, as the commands compute them from a store; best of two."""
    best = float("inf")
    for _ in range(2):
        gc.collect()
        started = time.perf_counter()
        agreement_report(config, store, None)  # type: ignore[arg-type]  # any StoreBackend serves
        calibration_report(config, store, None, None, judge_config_hash="bench-judge")  # type: ignore[arg-type]
        best = min(best, time.perf_counter() - started)
    return best


def run(workdir: Path) -> list[Figure]:
    server = PgServer()
    try:
        server.start()
        server.make_template()
        return _measure(server, workdir)
    finally:
        server.remove()


def _measure(server: PgServer, workdir: Path) -> list[Figure]:
    figures = []
    for think, target in ((THINK_S, f"<= {P95_MS:.0f} ms"), (0.0, "(reference: flat out)")):
        opener = PgOpener(server.new_database())
        team_store(opener, workdir, ITEMS, REVIEWERS)
        outcome = run_team(opener, workdir, REVIEWERS, think_seconds=think)
        p95 = outcome.p95()
        pace = f"{think * 1000:.0f} ms on each item" if think else "no pause between items"
        figures += [
            Figure(f"{REVIEWERS} reviewers, {pace}: submit -> next item, p95", p95, "ms", target,
                   p95 <= P95_MS or not think),
            Figure(f"  labels lost of {outcome.acknowledged} acknowledged", len(outcome.lost), "", "0",
                   not outcome.lost),
            Figure("  queue invariants broken", len(outcome.problems), "", "0", not outcome.problems),
        ]  # fmt: skip

    config = Config()
    n_labels = fill_store(workdir / "big.db", config)
    big_url = server.new_database()
    with Store.open(workdir / "big.db") as source:
        target = PgOpener(big_url)()
        try:
            started = time.perf_counter()
            copy_store(source, target)
            copy_seconds = time.perf_counter() - started
            pg_seconds = _statistics_seconds(target, config)
        finally:
            target.close()
        sqlite_seconds = _statistics_seconds(source, config)
    ratio = pg_seconds / sqlite_seconds
    return [
        *figures,
        Figure(f"store copy SQLite -> PostgreSQL, {n_labels:,} labels", copy_seconds, "s", "(reported)", True),
        Figure(f"agreement + calibration, {n_labels:,} labels from SQLite", sqlite_seconds, "s", "(reference)", True),
        Figure("  the same from PostgreSQL: x the SQLite time", ratio, "x", f"<= {RATIO}", ratio <= RATIO),
    ]
