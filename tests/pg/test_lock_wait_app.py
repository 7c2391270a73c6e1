"""The review app (Pilot) when a submit waits for a lock: after the bounded wait it says what it waited
for, keeps the item and its scores, and saves once the lock is free (never `saving…` forever)."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from qaeval_tui.core.config import Config
from qaeval_tui.core.store.copy import copy_store
from qaeval_tui.core.store.opening import open_store
from qaeval_tui.core.store.postgres import connection
from qaeval_tui.core.store.sqlite import Store
from tests.conftest import DEMO_GOLDEN
from tests.tui.conftest import make_app, open_review, screen_text
from tests.tui.scenes.review import build_demo_store, wait_until


async def test_a_submit_waiting_for_a_lock_says_so_then_saves_once_it_is_free(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(connection, "LOCK_TIMEOUT_S", 1)
    build_demo_store(tmp_path / "demo.db", DEMO_GOLDEN, Config())
    with Store.open(tmp_path / "demo.db") as source, open_store(pg_url) as target:
        copy_store(source, target)
    app = make_app(pg_url)  # type: ignore[arg-type]  # a URL names a store as well as a path
    async with app.run_test(size=(110, 36), notifications=True) as pilot:
        screen = await open_review(pilot)
        first = screen.item
        assert first is not None
        await pilot.press("2", "1", "0")
        with psycopg.connect(pg_url) as holder:  # another session of ana's (or the owner) writing her labels
            holder.execute("SELECT qaeval_hold(ARRAY['labels:ana'])")
            await pilot.press("enter")
            await wait_until(pilot, lambda: "waited 1 s for another" in " ".join(screen_text(app).split()), 30)
            assert screen.item == first and screen.draft is not None and screen.draft.scores["faithfulness"] == 2
            holder.rollback()
        await wait_until(pilot, lambda: screen.item is not None and screen.item.item_id != first.item_id, 30)
    with open_store(pg_url) as store:
        [row] = store.labels(reviewer="ana")
    assert row.label.item_id == first.item_id and row.label.revision == 1
