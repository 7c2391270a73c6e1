"""A PostgreSQL store whose server goes away says so (naming the store, never its password) and comes back with it."""

from __future__ import annotations

import pytest

from qaeval_tui.core.store.postgres.store import PgStore
from qaeval_tui.core.store.rows import CaseRecord, StoreUnavailableError
from tests.pg.server import PgServer


def test_a_restarted_server_is_unavailable_meanwhile_and_the_store_reconnects_after(
    pg_server: PgServer, pg_url: str
) -> None:
    with PgStore.open(pg_url) as store:
        store.upsert_cases([CaseRecord("h1", "c1", "frozen", {"id": "c1"})])
        pg_server.stop()
        try:
            with pytest.raises(StoreUnavailableError) as caught:
                store.upsert_cases([CaseRecord("h2", "c2", "frozen", {"id": "c2"})])
            message = str(caught.value)
            assert "the store is unavailable" in message or "cannot connect" in message
            assert pg_server.password not in message and "postgresql://postgres:***@" in message
        finally:
            pg_server.start()
        assert [case.case_id for case in store.case_rows()] == ["c1"]  # nothing of the failed write
        store.upsert_cases([CaseRecord("h2", "c2", "frozen", {"id": "c2"})])
        assert store.count("cases") == 2
