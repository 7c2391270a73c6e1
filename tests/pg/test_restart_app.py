"""The review app itself (Pilot) on a PostgreSQL store whose server restarts under it: the reviewer
is told the store is unavailable, the item stays on screen with its scores, and once the server is
back the label is saved, the app says so, and the next item comes."""

from __future__ import annotations

from pathlib import Path

from qaeval_tui.core.config import Config
from qaeval_tui.core.store.copy import copy_store
from qaeval_tui.core.store.opening import open_store
from qaeval_tui.core.store.sqlite import Store
from tests.conftest import DEMO_GOLDEN
from tests.pg.server import PgServer
from tests.tui.conftest import make_app, open_review, screen_text
from tests.tui.scenes.review import build_demo_store, wait_until


async def test_the_app_says_the_store_is_unavailable_keeps_the_item_and_saves_it_once_back(
    pg_server: PgServer, pg_url: str, tmp_path: Path
) -> None:
    build_demo_store(tmp_path / "demo.db", DEMO_GOLDEN, Config())
    with Store.open(tmp_path / "demo.db") as source, open_store(pg_url) as target:
        copy_store(source, target)
    app = make_app(pg_url)  # type: ignore[arg-type]  # a URL names a store as well as a path
    async with app.run_test(size=(110, 36), notifications=True) as pilot:
        screen = await open_review(pilot)
        first = screen.item
        assert first is not None
        await pilot.press("2", "1", "0")
        pg_server.stop()
        try:
            await pilot.press("enter")
            await wait_until(pilot, lambda: "Store unavailable" in screen_text(app))
            assert "retried until it is back" in screen_text(app)  # the toast wraps the rest of its line
            await pilot.pause(0.5)
            assert screen.item == first  # still on screen, scores kept, not dropped as failed
            assert screen.draft is not None and screen.draft.scores == {
                "faithfulness": 2,
                "citation_correctness": 1,
                "answer_correctness": 0,
            }
        finally:
            pg_server.start()
        await wait_until(pilot, lambda: screen.item is not None and screen.item.item_id != first.item_id, 60)
        await wait_until(pilot, lambda: "the store is back" in screen_text(app))
    with open_store(pg_url) as store:
        [row] = store.labels(reviewer="ana")
    assert row.label.item_id == first.item_id and row.label.revision == 1
    assert row.label.scores == {"faithfulness": 2, "citation_correctness": 1, "answer_correctness": 0}
