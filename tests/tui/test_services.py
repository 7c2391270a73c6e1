"""The app's store connections (a writer and a reader) each live on a thread of their own: reads
beside submits lose nothing, a dashboard recomputing never holds up a submit, and exit closes both.

Every worker hands its store call to one of the services' store threads; the writer's connection is
pinned to its thread (sqlite3 refuses any other), so a call that slipped past it would fail these
tests instead of racing. "Closed" is checked on the store itself: SQLite folds the write-ahead log
back into the database and deletes the -wal file when the last connection to it closes.
"""

from __future__ import annotations

import sqlite3
import threading
from contextlib import closing
from pathlib import Path

import pytest

from qaeval_tui.core.config import Config
from qaeval_tui.core.errors import UsageError
from qaeval_tui.tui.services import Services
from tests.conftest import DEMO_GOLDEN
from tests.tui.conftest import make_app, open_review, settle
from tests.tui.reader_scenario import submit_beside_a_held_dashboard


def labeled_items(db: Path, reviewer: str) -> list[str]:
    with closing(sqlite3.connect(db)) as connection:
        rows = connection.execute("SELECT item_id FROM labels WHERE reviewer = ? ORDER BY rowid", [reviewer])
        return [str(item_id) for (item_id,) in rows]


def wal(db: Path) -> Path:
    return Path(f"{db}-wal")


def test_readers_on_many_threads_beside_a_submitting_reviewer_lose_no_label(demo_db: Path) -> None:
    config = Config()
    services = Services(config, demo_db, [DEMO_GOLDEN])
    services.prepare("ana", lambda _step: None)
    errors: list[BaseException] = []
    reads = [0]
    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            try:
                services.overview()
                services.progress()
                services.inbox(None, None)
                reads[0] += 1
            except BaseException as exc:  # surfaced below, not lost in the thread
                errors.append(exc)
                return

    readers = [threading.Thread(target=read) for _ in range(4)]
    for reader in readers:
        reader.start()
    submitted = []
    for _ in range(8):
        item = services.next_item()
        assert item is not None
        scores: dict[str, int | None] = {axis.name: axis.scale[-1] for axis in config.rubric.axes}
        submitted.append(services.submit(item.item_id, scores, "", False, 3.0).item_id)
    stop.set()
    for reader in readers:
        reader.join()
    services.close()

    assert errors == [] and reads[0] > 0
    assert labeled_items(demo_db, "ana") == submitted and len(set(submitted)) == 8
    assert not wal(demo_db).exists()  # the one connection is closed
    with pytest.raises(UsageError, match="the store is closed"):
        services.progress()  # never reopened behind the app's back
    services.close()  # twice is harmless


async def test_the_app_submits_beside_background_reads_and_closes_the_store_when_it_exits(demo_db: Path) -> None:
    app = make_app(demo_db)
    async with app.run_test(size=(100, 32)) as pilot:
        screen = await open_review(pilot)
        services = app.context.services
        for _ in range(5):
            for _ in range(3):  # reads in flight on other worker threads while the label is saved
                app.run_core(screen, services.overview, group="test-read", title="Not loaded")
            await pilot.press("2", "1", "2", "enter")
        await settle(pilot)
        on_screen = labeled_items(demo_db, "ana")
        assert len(on_screen) == 5 and len(set(on_screen)) == 5
        assert wal(demo_db).exists()  # open while the app runs (WAL mode)
    assert not wal(demo_db).exists()  # the app closed its store on the way out
    assert len(labeled_items(demo_db, "ana")) == 5
    with pytest.raises(UsageError, match="the store is closed"):
        services.overview()


def test_a_submit_never_waits_behind_a_dashboard_recomputing_and_the_dashboard_sees_it(demo_db: Path) -> None:
    config = Config()
    submit_beside_a_held_dashboard(config, demo_db, Services(config, demo_db, [DEMO_GOLDEN]), "ana")
