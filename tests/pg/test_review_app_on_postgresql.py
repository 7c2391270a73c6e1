"""The review app works against a PostgreSQL store as against a SQLite file: prepared, labelled, stored."""

from __future__ import annotations

from qaeval_tui.core.config import Config
from qaeval_tui.core.store.opening import open_store
from qaeval_tui.tui.app import create_app
from tests.conftest import DEMO_GOLDEN
from tests.tui.conftest import open_review, settle
from tests.tui.scenes.review import FixedClock


async def test_a_fresh_postgresql_store_is_prepared_and_a_label_lands_in_it(pg_url: str) -> None:
    clock = FixedClock()
    app = create_app(
        Config(), db_path=pg_url, data_paths=[DEMO_GOLDEN], reviewer="ana", clock=clock, deterministic=True
    )
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_review(pilot)
        first = screen.item
        assert first is not None and first.position == 1 and first.total == 26
        await pilot.press("2", "1", "0")
        clock.advance(42)
        await settle(pilot, "enter")
        assert screen.item is not None and screen.item.item_id != first.item_id
        assert screen.progress is not None and screen.progress.done == 1
    with open_store(pg_url) as store:
        assert len(store.review_items()) == 39 and len(store.assignments("ana")) == 26
        [label] = [row.label for row in store.labels(reviewer="ana")]
    assert label.item_id == first.item_id and label.seconds_spent == 42
    assert label.scores == {"faithfulness": 2, "citation_correctness": 1, "answer_correctness": 0}
