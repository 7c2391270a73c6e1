"""The PostgreSQL schema: versioned migrations recorded in the database, run once, refused when newer."""

from __future__ import annotations

import threading

import psycopg
import pytest

from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.store.opening import open_store
from qaeval_tui.core.store.postgres.store import PgStore
from qaeval_tui.core.store.schema import SCHEMA_VERSION, STEPS
from tests.pg.server import PgServer


def test_an_empty_database_gets_every_migration_recorded_once(pg_server: PgServer) -> None:
    url = pg_server.new_database(template=None)
    opened: list[PgStore] = []

    def open_it() -> None:
        opened.append(PgStore.open(url))

    threads = [threading.Thread(target=open_it) for _ in range(3)]  # three processes opening a new store at once
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(opened) == 3 and {store.schema_version for store in opened} == {SCHEMA_VERSION}
    with psycopg.connect(url) as conn:
        versions = [row[0] for row in conn.execute("SELECT version FROM schema_version ORDER BY version")]
    assert versions == list(range(1, len(STEPS) + 1))
    for store in opened:
        store.close()


def test_the_same_tables_and_columns_as_the_sqlite_schema(pg_url: str, tmp_path: object) -> None:
    import sqlite3
    from pathlib import Path

    with open_store(Path(str(tmp_path)) / "s.db") as sqlite_store:
        assert not isinstance(sqlite_store, PgStore)
    lite = sqlite3.connect(Path(str(tmp_path)) / "s.db")
    tables = [name for (name,) in lite.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    expected = {t: [c[1] for c in lite.execute(f"PRAGMA table_info({t})")] for t in tables if t != "sqlite_sequence"}
    with psycopg.connect(pg_url) as conn:
        for table, columns in expected.items():
            found = [
                name
                for (name,) in conn.execute(
                    """SELECT column_name FROM information_schema.columns
                       WHERE table_name = %s ORDER BY ordinal_position""",
                    (table,),
                )
            ]
            # PostgreSQL's own bookkeeping: the insertion order, and the transaction that recorded a reveal or lock
            assert [name for name in found if name not in ("rowid", "recorded_in")] == columns, table


def test_a_store_newer_than_this_qaeval_is_refused(pg_url: str) -> None:
    with psycopg.connect(pg_url) as conn:
        conn.execute("INSERT INTO schema_version (version, applied_at) VALUES (%s, 'later')", (SCHEMA_VERSION + 1,))
    with pytest.raises(UsageError, match=rf"schema version {SCHEMA_VERSION + 1} is newer than this qaeval"):
        PgStore.open(pg_url)


def test_the_change_token_moves_when_another_connection_commits_not_when_it_reads(pg_url: str) -> None:
    with PgStore.open(pg_url) as mine, PgStore.open(pg_url) as theirs:
        token = mine.change_token()
        theirs.list_runs()
        mine.review_items()
        assert mine.change_token() == token
        theirs.record_reveal("i1", "ana")
        assert mine.change_token() != token
