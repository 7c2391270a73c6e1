"""Issues 5, 21 and 26: the review TUI on a store with 10,000 cases and 50,000 labels (tui_store.py).

- cold start: a fresh `python` process builds the app through the CLI's factory and runs it
  headless; measured from spawning the process to the first item rendered on screen, beside a bare
  Textual app showing one static screen timed the same way, interleaved (target: at most 2x it).
- submit-to-next: in process, over 200 items, from pressing enter to the next item on screen; for
  the benchmarked reviewer (10,000 labels of their own; p95 target 10 ms on SQLite, 20 ms on
  PostgreSQL), for a newcomer (none yet), and while the dashboard recomputes on the reader
  connection without pause (p95 target 50 ms on both backends). The floor beside them is a bare
  Textual app answering the same key events by changing one static line, timed the same way.

PostgreSQL runs on a throwaway server (tests/pg/server.py) holding a copy of the SQLite store;
without the server binaries those figures are skipped with the reason printed.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from benchmarks import Figure
from benchmarks.tui_store import LABELS, NEWCOMER, OTHERS, REVIEWER, build_store
from qaeval_tui.core.config import Config
from qaeval_tui.core.store.opening import StoreTarget, open_store

MEASURED = 200

_COLD_START = """
import asyncio, sys, time
from pathlib import Path
from qaeval_tui.core.config import Config
from qaeval_tui.tui.app import create_app

app = create_app(Config(), db_path=Path(sys.argv[1]), data_paths=[Path(sys.argv[2])], reviewer=sys.argv[3])

def review_ready():  # as tests/tui/scenes/review.py has it, without that module's imports
    screen = app.screen
    shown = type(screen).__name__ == "ReviewScreen" and screen.item is not None
    return shown and not screen.busy and not screen.pending

async def first_item(pilot):
    while not review_ready():
        await asyncio.sleep(0.002)
    await pilot.pause()
    print(time.time(), flush=True)
    app.exit()

app.run(headless=True, auto_pilot=first_item, size=(100, 32))
app.context.services.close()
"""

_BARE_START = """
import time
from textual.app import App
from textual.widgets import Static

class Bare(App[None]):
    def compose(self):
        yield Static("one static screen")

async def shown(pilot):
    await pilot.pause()
    print(time.time(), flush=True)
    pilot.app.exit()

Bare().run(headless=True, auto_pilot=shown, size=(100, 32))
"""
"""The floor of a cold start: a bare Textual app showing one static screen, timed the same way."""


def bare_start() -> float:
    started = time.time()
    result = subprocess.run([sys.executable, "-c", _BARE_START], capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"bare start failed: {result.stderr}")
    return float(result.stdout.split()[0]) - started


def cold_start(db: Path, golden: Path) -> float:
    started = time.time()
    result = subprocess.run(
        [sys.executable, "-c", _COLD_START, str(db), str(golden), REVIEWER], capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        raise RuntimeError(f"cold start failed: {result.stderr}")
    return float(result.stdout.split()[0]) - started


@contextmanager
def _recomputing(dashboard: Callable[[], object] | None) -> Iterator[list[int]]:
    """Recompute the dashboard without pause on another thread while the block runs; yields the count."""
    done, stop = [0], threading.Event()

    def loop() -> None:
        while dashboard is not None and not stop.is_set():
            dashboard()
            done[0] += 1

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield done
    finally:
        stop.set()
        thread.join()


async def _latencies(
    db: StoreTarget, golden: Path, reviewer: str, *, busy: bool = False, measured: int = MEASURED
) -> list[float]:
    """Keys go in as the terminal driver sends them (Key events), not through Pilot.press, whose
    wait-for-idle would be measured instead of the app. `busy`: the dashboard recomputes meanwhile."""
    from textual import events

    from qaeval_tui.tui.app import create_app
    from tests.tui.scenes.review import idle, review_ready, wait_until

    app = create_app(Config(), db_path=db, data_paths=[golden], reviewer=reviewer, deterministic=True)
    latencies: list[float] = []
    async with app.run_test(size=(100, 32)) as pilot:
        await wait_until(pilot, lambda: idle(app), timeout=60)
        services = app.context.services
        with _recomputing(services.dashboard if busy else None) as recomputed:
            for _ in range(measured):
                before = getattr(app.screen, "item", None)
                for key in ("2", "1", "2"):
                    app.post_message(events.Key(key, key))
                await pilot.pause()
                started = time.perf_counter()
                app.post_message(events.Key("enter", None))
                while not (review_ready(app) and getattr(app.screen, "item", None) is not before):
                    await asyncio.sleep(0.0005)
                latencies.append(time.perf_counter() - started)
                await wait_until(pilot, lambda: idle(app))  # progress follows the item; let it land
        if busy and recomputed[0] == 0:
            raise RuntimeError("the dashboard never finished a recomputation while the items were measured")
    app.context.services.close()
    return latencies


async def _floor_latencies(measured: int = MEASURED) -> list[float]:
    """A bare Textual app answering enter by changing one static line, timed as `_latencies` times the app."""
    from textual import events
    from textual.app import App, ComposeResult
    from textual.widgets import Static

    class Bare(App[None]):
        shown = 0

        def compose(self) -> ComposeResult:
            yield Static("item 0", id="item")

        def on_key(self, event: events.Key) -> None:
            if event.key == "enter":
                self.shown += 1
                self.query_one("#item", Static).update(f"item {self.shown}")

    app = Bare()
    latencies: list[float] = []
    async with app.run_test(size=(100, 32)) as pilot:
        for _ in range(measured):
            before = app.shown
            await pilot.pause()
            started = time.perf_counter()
            app.post_message(events.Key("enter", None))
            while app.shown == before:
                await asyncio.sleep(0.0005)
            latencies.append(time.perf_counter() - started)
    return latencies


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, int(0.95 * len(ordered)) - 1)]


def compile_bytecode() -> None:
    """Write the package's bytecode, as an installed wheel has it, before timing cold starts.

    Textual's bytecode is in site-packages already; without ours (PYTHONDONTWRITEBYTECODE, a fresh
    checkout) every start would compile a hundred modules from source and the ratio would measure that.
    """
    import compileall

    import qaeval_tui

    compileall.compile_dir(Path(qaeval_tui.__file__).parent, quiet=1)


def _target(value_ms: float, target_ms: float) -> str:
    return f"<= {target_ms:g} ms" + ("" if value_ms <= target_ms else f" (misses by {value_ms / target_ms - 1:.0%})")


def _latency_figure(title: str, latencies: list[float], target_ms: float, floor_ms: float) -> Figure:
    p95 = 1000 * _p95(latencies)
    return Figure(f"{title} (floor {floor_ms:.1f} ms)", p95, "ms", _target(p95, target_ms), p95 <= target_ms)


def _postgres_figures(db: Path, golden: Path, floor_ms: float) -> list[Figure]:
    """The deep reviewer's submit-to-next on PostgreSQL, quiet and beside the dashboard; skipped without a server."""
    from qaeval_tui.core.store.copy import copy_store
    from tests.pg.server import PgServer, PgServerError

    try:
        server = PgServer()
        server.start()
    except PgServerError as exc:
        print(f"   (PostgreSQL figures skipped: {exc})", flush=True)
        return []
    try:
        server.make_template()
        pristine = server.new_database()
        with open_store(db) as source, open_store(pristine) as target:
            copy_store(source, target)
        name = pristine.rsplit("/", 1)[1]
        quiet = asyncio.run(_latencies(server.new_database(template=name), golden, REVIEWER))
        busy = asyncio.run(_latencies(server.new_database(template=name), golden, REVIEWER, busy=True))
    finally:
        server.remove()
    return [
        _latency_figure(f"PostgreSQL: submit to next, p95 of {MEASURED}, 10,000-label history", quiet, 20, floor_ms),
        _latency_figure("PostgreSQL: the same while the dashboard recomputes", busy, 50, floor_ms),
    ]


def run(workdir: Path) -> list[Figure]:
    db, golden = build_store(workdir)
    pristine = workdir / "pristine.db"
    shutil.copyfile(db, pristine)
    busy_db = workdir / "busy.db"
    shutil.copyfile(db, busy_db)
    compile_bytecode()
    starts: list[float] = []
    bares: list[float] = []
    for _ in range(3):  # interleaved, so both see the same machine
        starts.append(cold_start(db, golden))
        bares.append(bare_start())
    floor_ms = 1000 * _p95(asyncio.run(_floor_latencies()))
    deep = asyncio.run(_latencies(db, golden, REVIEWER))
    fresh = asyncio.run(_latencies(db, golden, NEWCOMER))  # joins the queue on start, no history yet
    busy = asyncio.run(_latencies(busy_db, golden, REVIEWER, busy=True))
    with open_store(db) as store:
        saved = len(store.labels(reviewer=REVIEWER)) - (LABELS - len(OTHERS) * 10_000)
        if saved != MEASURED or len(store.labels(reviewer=NEWCOMER)) != MEASURED:
            raise RuntimeError(f"expected {MEASURED} new labels per measured reviewer")
    medians = {name: 1000 * statistics.median(values) for name, values in (("deep_ms", deep), ("newcomer_ms", fresh))}
    print(json.dumps({"cold_start_s": starts, "bare_start_s": bares, "latency_median": medians}), flush=True)
    start, bare = statistics.median(starts), statistics.median(bares)
    ratio = start / bare
    return [
        Figure("review TUI: cold start to first item (median of 3)", start, "s", "<= 1.5 s", start <= 1.5),
        Figure(
            f"  as a ratio to a bare Textual app's first screen ({bare:.2f} s)",
            ratio,
            "x",
            "<= 2" + ("" if ratio <= 2 else f" (misses by {ratio / 2 - 1:.0%})"),
            ratio <= 2,
        ),
        _latency_figure(
            f"review TUI: submit to next item, p95 of {MEASURED}, 10,000-label history", deep, 10, floor_ms
        ),
        _latency_figure(f"review TUI: submit to next item, p95 of {MEASURED}, new reviewer", fresh, 50, floor_ms),
        _latency_figure("review TUI: submit to next while the dashboard recomputes", busy, 50, floor_ms),
        *_postgres_figures(pristine, golden, floor_ms),
    ]
