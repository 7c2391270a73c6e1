"""Fixtures of the team-store tests: a secured store, and a working folder with no config of its own."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.pg.server import PgServer
from tests.pg.team_helpers import TeamStore, secured_store


@pytest.fixture
def team_store(pg_server: PgServer, pg_url: str) -> Iterator[TeamStore]:
    """`pg_url` migrated and secured by `team init`; the logins a test makes are dropped after it."""
    yield from secured_store(pg_server, pg_url)


@pytest.fixture
def no_stray_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The commands run from an empty folder with no `QAEVAL_DB`: no config or store of the machine's leaks in."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("QAEVAL_DB", raising=False)
