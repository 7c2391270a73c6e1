"""Reviewers as separate OS processes labelling one team store at once, for the concurrency tests
and `make bench` (benchmarks/bench_team.py).

`team_store` fills a store (a SQLite path or a postgresql:// URL) with a run and an overlap-k
queue; `reviewer` is one process's whole session: it waits for the start signal, then takes its
next item and submits it, again and again, through the same `ReviewSession` the review app uses,
writing each acknowledged label (submit returned: committed) as one line to its own file before
asking for the next item. `check_team` reads the store back and says what is wrong, if anything.
"""

from __future__ import annotations

import json
import multiprocessing
import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.synchronize import Event
from pathlib import Path

from qaeval_tui.core.config import Config
from qaeval_tui.core.review.queue import assign, build_review_items
from qaeval_tui.core.review.session import ReviewSession
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.copy import copy_store
from qaeval_tui.core.store.sqlite import Store
from tests.core.review_fixtures import FULL, store_with_run

OVERLAP = 3


def reviewer_names(count: int) -> list[str]:
    return [f"rev{index:02d}" for index in range(count)]


def team_store(opener: Callable[[], StoreBackend], workdir: Path, items: int, reviewers: int) -> None:
    """A run of `items` cases with verdicts, and review items queued to `reviewers` with overlap 3.

    Made in a SQLite file and moved into the target with `store copy` (the target must be empty)."""
    scratch = workdir / "team-seed.db"
    store, _ = store_with_run(scratch, n_items=items)
    with store:
        build_review_items(store, "run-1", None)
        assign(store, reviewer_names(reviewers), OVERLAP, seed=7)
        target = opener()
        try:
            copy_store(store, target)
        finally:
            target.close()
    scratch.unlink()


def reviewer(opener: Callable[[], StoreBackend], name: str, acks: Path, go: Event, think_seconds: float = 0.0) -> None:
    """Label `name`'s whole queue, one acknowledged label per line in `acks`, written as soon as
    submit returns; then, in `<acks>.ms`, the milliseconds from each submit to the next item on screen.

    `think_seconds`: the mean time spent reading an item before submitting it (0: flat out, a
    stress test; a pause drawn uniformly from half to one and a half times it, seeded by name)."""
    rng = random.Random(name)
    store = opener()
    session = ReviewSession(store, Config(), name)  # type: ignore[arg-type]  # any StoreBackend serves
    view = session.next_item()
    go.wait()
    latencies: list[float] = []
    with acks.open("a", encoding="utf-8", buffering=1) as out:  # line-buffered: each ack is written at once
        while view is not None:
            if think_seconds:
                time.sleep(think_seconds * rng.uniform(0.5, 1.5))
            started = time.perf_counter()
            label = session.submit(view.item_id, dict(FULL), "", False, 1.0)
            out.write(json.dumps({"item": label.item_id, "revision": label.revision}) + "\n")
            view = session.next_item()
            latencies.append((time.perf_counter() - started) * 1000)
    acks.with_suffix(".ms").write_text(json.dumps(latencies), encoding="utf-8")
    store.close()


@dataclass(frozen=True)
class TeamOutcome:
    acknowledged: int
    stored: int
    lost: list[str]
    problems: list[str]
    latencies_ms: list[float]

    def p95(self) -> float:
        ordered = sorted(self.latencies_ms)
        return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] if ordered else 0.0


def run_team(
    opener: Callable[[], StoreBackend],
    workdir: Path,
    reviewers: int,
    *,
    think_seconds: float = 0.0,
    timeout: float = 300.0,
) -> TeamOutcome:
    """Start `reviewers` processes at once on the store `opener` reaches; wait for them; check the store."""
    context = multiprocessing.get_context("spawn")
    go = context.Event()
    processes = []
    for name in reviewer_names(reviewers):
        acks = workdir / f"{name}.acks"
        acks.unlink(missing_ok=True)
        acks.with_suffix(".ms").unlink(missing_ok=True)
        process = context.Process(target=reviewer, args=(opener, name, acks, go, think_seconds), name=name)
        process.start()
        processes.append(process)
    go.set()
    deadline = time.monotonic() + timeout
    for process in processes:
        process.join(max(0.1, deadline - time.monotonic()))
    stuck = [p.name for p in processes if p.is_alive()]
    for process in processes:
        if process.is_alive():
            process.kill()
            process.join()
    failed = [f"{p.name} exited {p.exitcode}" for p in processes if p.exitcode != 0]
    store = opener()
    try:
        outcome = check_team(store, workdir, reviewer_names(reviewers))
    finally:
        store.close()
    extra = [f"{name} did not finish in {timeout:.0f} s" for name in stuck] + failed
    return TeamOutcome(
        outcome.acknowledged, outcome.stored, outcome.lost, extra + outcome.problems, outcome.latencies_ms
    )


def read_acks(path: Path) -> list[dict[str, object]]:
    """The acknowledged labels a reviewer wrote; a last line cut short by a kill is not an ack."""
    if not path.exists():
        return []
    return [
        json.loads(line) for line in path.read_text(encoding="utf-8").splitlines(keepends=True) if line.endswith("\n")
    ]


def check_team(store: StoreBackend, workdir: Path, names: list[str], *, in_flight: int = 0) -> TeamOutcome:
    """Acknowledged labels against the store: none lost, each item labelled by exactly its assigned
    reviewers (when every queue was finished), no revision twice. `in_flight`: labels each reviewer
    may have committed without acknowledging (a process killed between the commit and its line)."""
    acknowledged: set[tuple[str, str, int]] = set()
    latencies: list[float] = []
    for name in names:
        for ack in read_acks(workdir / f"{name}.acks"):
            acknowledged.add((str(ack["item"]), name, int(ack["revision"])))  # type: ignore[call-overload]
        timings = workdir / f"{name}.ms"
        if timings.exists():
            latencies += json.loads(timings.read_text(encoding="utf-8"))
    rows = store.labels()
    stored = Counter((row.label.item_id, row.label.reviewer, row.label.revision) for row in rows)
    problems = [f"{key} stored {count} times" for key, count in stored.items() if count > 1]
    lost = sorted(f"{item} by {who} revision {revision}" for item, who, revision in acknowledged - stored.keys())
    unacked = Counter(who for _, who, _ in stored.keys() - acknowledged)
    problems += [
        f"{who}: {n} label(s) stored that were never acknowledged" for who, n in unacked.items() if n > in_flight
    ]
    assigned: dict[str, set[str]] = {}
    for entry in store.assignments():
        assigned.setdefault(entry.item_id, set()).add(entry.reviewer)
    labelled: dict[str, set[str]] = {}
    for item, who, _ in stored:
        labelled.setdefault(item, set()).add(who)
    if not in_flight:
        problems += [
            f"{item}: labelled by {sorted(labelled.get(item, set()))}, assigned to {sorted(wanted)}"
            for item, wanted in assigned.items()
            if labelled.get(item, set()) != wanted
        ]
    problems += [f"{item}: more than one revision per reviewer" for (item, _, rev) in stored if rev != 1]
    return TeamOutcome(len(acknowledged), sum(stored.values()), lost, problems, latencies)


class SqliteOpener:
    """Opens one SQLite store: a picklable `opener` for the reviewer processes."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __call__(self) -> StoreBackend:
        return Store.open(self.path)


class PgOpener:
    """Opens one PostgreSQL store by URL: a picklable `opener` for the reviewer processes."""

    def __init__(self, url: str) -> None:
        self.url = url

    def __call__(self) -> StoreBackend:
        from qaeval_tui.core.store.postgres.store import PgStore

        return PgStore.open(self.url)
