"""The quarantine of bad label rows on the team store, tried over each person's own login with plain SQL.

Curators record and read quarantines (under their own login, append-only); a reviewer writes none
and reads only the quarantine of a label row it may read (its own, a peer's once revealed), so its
reads leave its quarantined revisions out as a curator's do, and learn nothing of rows it cannot read.
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


def test_a_reviewer_reads_only_the_quarantine_of_a_row_it_may_read_and_writes_none(
    team: tuple[TeamStore, str, str, int],
) -> None:
    """ben's row on i1 is quarantined as well as ana's own: ana (who has not revealed i1) reads only hers."""
    store, ana_url, cara_url, bad = team
    with store.owner() as owner:
        row = owner.execute("SELECT id FROM labels WHERE reviewer = %s", (store.name("ana"),)).fetchone()
    assert row is not None
    own = int(row[0])
    with PgStore.open(cara_url) as curator:
        assert curator.quarantine_label(bad, "typed by hand", "whoever") is not None
        assert curator.quarantine_label(own, "off the scale", "whoever") is not None
    with psycopg.connect(ana_url, autocommit=True) as conn:
        assert conn.execute("SELECT label_id FROM label_quarantine").fetchall() == [(own,)]
        assert conn.execute("SELECT count(*) FROM label_quarantine WHERE label_id = %s", (bad,)).fetchone() == (0,)
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


def test_the_stores_reads_leave_a_quarantined_row_out_for_a_curator_and_for_its_reviewer(
    team: tuple[TeamStore, str, str, int],
) -> None:
    store, ana_url, cara_url, bad = team
    ana = store.name("ana")
    with psycopg.connect(ana_url, autocommit=True) as conn:  # a second revision of ana's on i1
        insert_label(conn, label_row("i1", ana, revision=2))
    with store.owner() as owner:
        latest = owner.execute("SELECT max(id) FROM labels WHERE reviewer = %s", (ana,)).fetchone()
    assert latest is not None
    with PgStore.open(cara_url) as curator:
        assert curator.quarantine_label(bad, "typed by hand", "whoever") is not None
        assert curator.quarantine_label(int(latest[0]), "typed by hand", "whoever") is not None
        assert bad not in {row.id for row in curator.labels()}
        assert bad not in {row.id for row in curator.label_revisions()}
        assert {q.label_id for q in curator.quarantines()} == {bad, int(latest[0])}
    with PgStore.open(ana_url) as reviewer:
        own = reviewer.labels(reviewer=ana)
        assert [(row.label.item_id, row.label.revision) for row in own] == [("i1", 1)]
        assert [mark.item_id for mark in reviewer.label_marks(ana)] == ["i1"]
        assert int(latest[0]) not in {mark.id for mark in reviewer.label_marks(ana)}
        assert [q.label_id for q in reviewer.quarantines()] == [int(latest[0])]  # its own row's only
