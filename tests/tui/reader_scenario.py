"""The writer and the reader connection of the TUI's services, exercised the same way on both backends.

A dashboard recomputation is held open on the reader (its progress callback waits on an event):
the reviewer's submit and next item must complete meanwhile, the held dashboard must then count
the label submitted before it read (reads after one's own write see it), and the label must be in
the store after the app closes (a label shown as saved is never lost).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from qaeval_tui.core.config import Config
from qaeval_tui.core.store.opening import open_store
from qaeval_tui.tui.services import Services

WAIT_S = 30.0
T = TypeVar("T")


def submit_beside_a_held_dashboard(config: Config, target: str | Path, services: Services, reviewer: str) -> None:
    services.prepare(reviewer, lambda _step: None)
    before = services.dashboard().labels_read
    reading, release = threading.Event(), threading.Event()
    held: list[int] = []  # the labels the held recomputation read

    def hold(index: int, _text: str) -> None:
        if index == 0:  # before the labels are read: the submit below lands first
            reading.set()
            release.wait(WAIT_S)

    def recompute() -> None:
        held.append(services.dashboard(step=hold).labels_read)

    dashboard = threading.Thread(target=recompute)
    dashboard.start()
    try:
        assert reading.wait(WAIT_S), "the dashboard never started"
        item = services.next_item()
        assert item is not None
        scores: dict[str, int | None] = {axis.name: axis.scale[-1] for axis in config.rubric.axes}
        saved = _within(lambda: services.submit(item.item_id, scores, "beside the dashboard", False, 2.0))
        following = _within(services.next_item)
        assert dashboard.is_alive() and not held  # the dashboard was still recomputing all along
        assert following is None or following.item_id != item.item_id
    finally:
        release.set()
        dashboard.join(WAIT_S)
    assert held == [before + 1]  # the recomputation sees the label saved before it read
    services.close()
    with open_store(target) as store:
        stored = [row.label for row in store.labels(reviewer=reviewer) if row.label.item_id == saved.item_id]
    assert [label.note for label in stored] == ["beside the dashboard"]


def _within(call: Callable[[], T]) -> T:
    """`call`'s result, failing if it takes longer than a dashboard could be held (it queued behind it)."""
    results: list[T] = []
    worker = threading.Thread(target=lambda: results.append(call()))
    worker.start()
    worker.join(5.0)
    assert results, "the call waited behind the dashboard"
    return results[0]
