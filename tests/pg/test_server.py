"""The throwaway PostgreSQL server the PostgreSQL tests run against: real, not root, password-checked, restartable."""

from __future__ import annotations

import glob
import os
from pathlib import Path

import psycopg
import pytest

from tests.pg import server as pg
from tests.pg.server import PgServer, PgServerError


def test_the_server_runs_as_a_non_root_user_and_each_test_gets_its_own_database(
    pg_server: PgServer, pg_url: str
) -> None:
    with psycopg.connect(pg_url) as conn:
        (pid,) = conn.execute("SELECT pg_backend_pid()").fetchone()  # type: ignore[misc]
        (database,) = conn.execute("SELECT current_database()").fetchone()  # type: ignore[misc]
        # Read while connected: the backend process ends with its connection.
        assert os.stat(f"/proc/{pid}").st_uid != 0  # the server refuses root; the fixture ran it as another user
    other = pg_server.new_database()
    assert other != pg_url and pg_url.endswith(f"/{database}")


def test_a_wrong_password_is_refused_over_tcp(pg_server: PgServer, pg_url: str) -> None:
    with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
        psycopg.connect(pg_url.replace(pg_server.password, "wrong"))


def test_a_restart_keeps_what_was_committed(pg_server: PgServer, pg_url: str) -> None:
    with psycopg.connect(pg_url) as conn:
        conn.execute("CREATE TABLE kept (n INTEGER)")
        conn.execute("INSERT INTO kept VALUES (7)")
    pg_server.stop()
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(pg_url, connect_timeout=2)
    pg_server.start()
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT n FROM kept").fetchall() == [(7,)]


def test_no_server_binaries_is_an_error_that_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(glob, "glob", lambda pattern: [])
    with pytest.raises(PgServerError, match=r"no PostgreSQL server binaries found .*apt-get install postgresql"):
        pg.pg_bindir()
