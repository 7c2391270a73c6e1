"""Submit to the next item in the review TUI, timed in process, and its floor (bench_tui.py, bench_serve.py).

Keys go in as the terminal driver sends them (Key events), not through Pilot.press, whose
wait-for-idle would be measured instead of the app. The floor is a bare Textual app answering
the same key by changing one static line, timed the same way.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from benchmarks import Figure
from qaeval_tui.core.config import Config

MEASURED = 200


@contextmanager
def recomputing(dashboard: Callable[[], object] | None) -> Iterator[list[int]]:
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


async def latencies(
    db: str | Path, golden: Path, reviewer: str, *, busy: bool = False, measured: int = MEASURED
) -> list[float]:
    """Seconds from enter to the next item on screen, `measured` times; `busy`: the dashboard recomputes meanwhile."""
    from textual import events

    from qaeval_tui.tui.app import create_app
    from tests.tui.scenes.review import idle, review_ready, wait_until

    app = create_app(Config(), db_path=db, data_paths=[golden], reviewer=reviewer, deterministic=True)
    seconds: list[float] = []
    async with app.run_test(size=(100, 32)) as pilot:
        await wait_until(pilot, lambda: idle(app), timeout=60)
        services = app.context.services
        with recomputing(services.dashboard if busy else None) as recomputed:
            for _ in range(measured):
                before = getattr(app.screen, "item", None)
                for key in ("2", "1", "2"):
                    app.post_message(events.Key(key, key))
                await pilot.pause()
                started = time.perf_counter()
                app.post_message(events.Key("enter", None))
                while not (review_ready(app) and getattr(app.screen, "item", None) is not before):
                    await asyncio.sleep(0.0005)
                seconds.append(time.perf_counter() - started)
                await wait_until(pilot, lambda: idle(app))  # progress follows the item; let it land
        if busy and recomputed[0] == 0:
            raise RuntimeError("the dashboard never finished a recomputation while the items were measured")
        if busy:
            print(
                f"   (the dashboard recomputed {recomputed[0]} times while the {measured} items were measured)",
                flush=True,
            )
    app.context.services.close()
    return seconds


async def floor_latencies(measured: int = MEASURED) -> list[float]:
    """A bare Textual app answering enter by changing one static line, timed as `latencies` times the app."""
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
    seconds: list[float] = []
    async with app.run_test(size=(100, 32)) as pilot:
        for _ in range(measured):
            before = app.shown
            await pilot.pause()
            started = time.perf_counter()
            app.post_message(events.Key("enter", None))
            while app.shown == before:
                await asyncio.sleep(0.0005)
            seconds.append(time.perf_counter() - started)
    return seconds


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, int(0.95 * len(ordered)) - 1)]


def latency_figure(title: str, seconds: list[float], target_ms: float, floor_ms: float) -> Figure:
    value = 1000 * p95(seconds)
    missed = "" if value <= target_ms else f" (misses by {value / target_ms - 1:.0%})"
    return Figure(f"{title} (floor {floor_ms:.1f} ms)", value, "ms", f"<= {target_ms:g} ms{missed}", value <= target_ms)
