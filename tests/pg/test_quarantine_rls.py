"""The quarantine of bad label rows on the team store, tried over each person's own login with plain SQL.

Curators record and read quarantines (under their own login, append-only); reviewers can neither
read nor write them, and their review reads go on without them (nothing is left out for them).
"""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest

from qaeval_tui.core.store.postgres.store import PgStore
from tests.pg.server import PgServer
from tests.pg.team_helpers import TeamStore, insert_label, label_row, secured_store, seed


@pytest.fixture
def team(pg_server: PgServer, pg_url: str) -> Iterator[tuple[TeamStore, str, str, int]]:
    """ana (reviewer) with a label of her own on i1, cara (curator); ben's label on i1 is row `bad`."""
    for store in secured_store(pg_server, pg_url):
        ana_url, cara_url = store.login("ana"), store.login("cara", "curator")
        store.login("ben")
        seed(store, store.name("ana"), store.name("ben"))
        with psycopg.connect(ana_url, autocommit=True) as conn:
            insert_label(conn, label_row("i1", store.name("ana")))
        with store.owner() as owner:
            row = owner.execute("SELECT id FROM labels WHERE reviewer = %s", (store.name("ben"),)).fetchone()
        assert row is not None
        yield store, ana_url, cara_url, int(row[0])


def test_a_reviewer_can_neither_read_nor_write_a_quarantine(team: tuple[TeamStore, str, str, int]) -> None:
    _, ana_url, _, bad = team
    with psycopg.connect(ana_url, autocommit=True) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT count(*) FROM label_quarantine")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(
                "INSERT INTO label_quarantine (label_id, reason, curator, quarantined_at) VALUES (%s, 'x', 'x', 't')",
                (bad,),
            )


def test_a_curator_records_one_under_their_login_and_it_is_never_changed(
    team: tuple[TeamStore, str, str, int],
) -> None:
    store, _, cara_url, bad = team
    with psycopg.connect(cara_url, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO label_quarantine (label_id, reason, curator, quarantined_at) VALUES (%s, 'bad', 'ben', 't')",
            (bad,),
        )
        assert conn.execute("SELECT label_id, curator FROM label_quarantine").fetchall() == [(bad, store.name("cara"))]
        for statement in ("UPDATE label_quarantine SET reason = 'x'", "DELETE FROM label_quarantine"):
            with pytest.raises((psycopg.errors.InsufficientPrivilege, psycopg.errors.RaiseException)):
                conn.execute(statement)


def test_the_stores_reads_leave_a_quarantined_row_out_for_a_curator_and_go_on_for_a_reviewer(
    team: tuple[TeamStore, str, str, int],
) -> None:
    store, ana_url, cara_url, bad = team
    with PgStore.open(cara_url) as curator:
        assert curator.quarantine_label(bad, "typed by hand", "whoever") is not None
        assert bad not in {row.id for row in curator.labels()}
        assert bad not in {row.id for row in curator.label_revisions()}
        assert [(q.label_id, q.curator) for q in curator.quarantines()] == [(bad, store.name("cara"))]
    with PgStore.open(ana_url) as reviewer:
        own = reviewer.labels(reviewer=store.name("ana"))
        assert [row.label.item_id for row in own] == ["i1"]
        assert [mark.item_id for mark in reviewer.label_marks(store.name("ana"))] == ["i1"]
        assert reviewer.quarantines() == []  # nothing to read, and nothing left out of what it reads
