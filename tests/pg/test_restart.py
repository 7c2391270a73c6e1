"""A PostgreSQL server restarting while the review app is open: the app says the store is unavailable,
keeps the label being submitted and retries it; once the server is back the label lands, and the one
acknowledged before the restart is still there."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from qaeval_tui.core.config import Config
from qaeval_tui.core.models.label import Label
from qaeval_tui.tui.services import Services
from tests.core.review_fixtures import FULL
from tests.pg.reviewers import PgOpener, team_store
from tests.pg.server import PgServer


def test_a_label_submitted_while_the_server_restarts_waits_then_lands(
    pg_server: PgServer, pg_url: str, tmp_path: Path
) -> None:
    opener = PgOpener(pg_url)
    team_store(opener, tmp_path, 12, 3)
    told: list[str | None] = []
    went, came_back = threading.Event(), threading.Event()

    def on_unavailable(text: str | None) -> None:
        told.append(text)
        (came_back if text is None else went).set()

    services = Services(Config(base_dir=str(tmp_path)), pg_url)  # type: ignore[arg-type]  # a URL is a store too
    services.on_unavailable = on_unavailable
    try:
        services.prepare("rev00", lambda _step: None)
        first = services.next_item()
        assert first is not None
        services.submit(first.item_id, dict(FULL), "before", False, 1.0)  # acknowledged: committed
        second = services.next_item()
        assert second is not None and second.item_id != first.item_id

        saved: list[Label] = []
        pg_server.stop()
        try:
            submit = threading.Thread(
                target=lambda: saved.append(services.submit(second.item_id, dict(FULL), "during", False, 2.0))
            )
            submit.start()
            assert went.wait(30), "the app never said the store was unavailable"
            time.sleep(1.0)
            assert submit.is_alive() and not saved  # kept and retried, neither dropped nor failed
        finally:
            pg_server.start()
        submit.join(60)
        assert saved and saved[0].item_id == second.item_id and saved[0].note == "during"
        assert came_back.wait(5)
        assert told[0] is not None and "the store is unavailable" in told[0] and told[-1] is None
        third = services.next_item()  # the session goes on where it was
        assert third is not None and third.item_id not in (first.item_id, second.item_id)
    finally:
        services.close()

    store = opener()
    try:
        stored = [(row.label.item_id, row.label.note, row.label.revision) for row in store.labels(reviewer="rev00")]
    finally:
        store.close()
    assert stored == [(first.item_id, "before", 1), (second.item_id, "during", 1)]
