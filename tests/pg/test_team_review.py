"""A review session on a team store: the reviewer is the login, and the app works through row security."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest

from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.store.pg_team import reviewer_for_login
from tests.pg.server import PgServer
from tests.pg.team_helpers import TeamStore, secured_store, seed


@pytest.fixture
def team_store(pg_server: PgServer, pg_url: str) -> Iterator[TeamStore]:
    yield from secured_store(pg_server, pg_url)


def test_a_reviewer_login_reviews_as_itself_and_as_no_one_else(team_store: TeamStore) -> None:
    ana_url = team_store.login("Ana")
    team_store.login("ben")
    seed(team_store, team_store.name("Ana"), team_store.name("ben"))
    ana = team_store.name("Ana")
    assert reviewer_for_login(ana_url, None) == ana
    assert reviewer_for_login(ana_url, ana.lower()) == ana  # the login's spelling, as the roster's
    with pytest.raises(UsageError, match=f"this store's login is '{ana}'"):
        reviewer_for_login(ana_url, team_store.name("ben"))


def test_a_curator_login_or_a_reviewer_without_a_queue_is_told_what_to_do(team_store: TeamStore) -> None:
    cara_url = team_store.login("cara", "curator")
    dan_url = team_store.login("dan")
    with pytest.raises(UsageError, match=r"a curator's login .* open `qaeval curate`"):
        reviewer_for_login(cara_url, None)
    with pytest.raises(UsageError, match=r"no review queue .* a curator assigns items") as refused:
        reviewer_for_login(dan_url, None)
    assert "***" in str(refused.value) and str(urlsplit(dan_url).password) not in str(refused.value)


def test_the_owner_reviews_as_chosen_as_on_sqlite(team_store: TeamStore) -> None:
    assert reviewer_for_login(team_store.owner_url, "zoe") == "zoe"
    assert reviewer_for_login(team_store.owner_url, None) is None
