"""Row-level security on the team store, tried as a person would with psql: plain SQL over their own login.

What the review app would never show a reviewer, the database refuses them too (DESIGN §4): other
reviewers' labels, the judge's verdicts and adjudications before their own submit, the runs (which
name the system), the inbox; and no label goes in under another name, nor changes afterwards.
"""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest

from tests.pg.server import PgServer
from tests.pg.team_helpers import TeamStore, insert_label, label_row, secured_store, seed

STORE_TABLES = (
    "cases",
    "runs",
    "run_outputs",
    "judge_verdicts",
    "review_items",
    "assignments",
    "labels",
    "reveals",
    "adjudications",
    "inbox",
    "inbox_decisions",
    "exposures",
    "flag_resolutions",
    "gold_shown",
    "judge_cache",
    "label_quarantine",
    "rubrics",
    "run_ends",
    "renames",
)


@pytest.fixture
def team_store(pg_server: PgServer, pg_url: str) -> Iterator[TeamStore]:
    yield from secured_store(pg_server, pg_url)


@pytest.fixture
def seeded(team_store: TeamStore) -> tuple[TeamStore, str, str, str]:
    """ana and ben (reviewers) and cara (curator) on a store holding three items, a run and an inbox miss."""
    ana_url, ben_url = team_store.login("ana"), team_store.login("ben")
    cara_url = team_store.login("cara", "curator")
    seed(team_store, team_store.name("ana"), team_store.name("ben"))
    del ben_url
    return team_store, ana_url, cara_url, team_store.name("ana")


def as_login(url: str) -> psycopg.Connection[tuple[object, ...]]:
    return psycopg.connect(url, autocommit=True)


def column(conn: psycopg.Connection[tuple[object, ...]], query: str) -> list[object]:
    return [row[0] for row in conn.execute(query).fetchall()]


def test_a_reviewer_reads_their_own_queue_items_cases_and_outputs_only(seeded: tuple[TeamStore, str, str, str]) -> None:
    """Cases and outputs only through `qaeval_review_item`, for the items of their queue; runs not at all."""
    _, ana_url, _, ana = seeded
    with as_login(ana_url) as conn:
        assert column(conn, "SELECT item_id FROM review_items ORDER BY item_id") == ["i1", "i2"]
        assert column(conn, "SELECT DISTINCT reviewer FROM assignments") == [ana]
        outputs = [conn.execute("SELECT output_json FROM qaeval_review_item(%s)", (i,)).fetchall() for i in CASES]
        assert outputs == [[('{"answer": "ten years"}',)]] * 2 + [[]]  # i3 is in ben's queue only
        assert column(conn, "SELECT count(*) FROM runs") == [0]  # a run names the system that answered
        for hidden in ("SELECT result_json FROM run_outputs", "SELECT output_json FROM run_outputs",
                       "SELECT case_json FROM cases", "SELECT run_id FROM review_items"):  # fmt: skip
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(hidden)


CASES = ("i1", "i2", "i3")


def test_a_reviewer_cannot_read_another_reviewers_labels_before_their_own_submit(
    seeded: tuple[TeamStore, str, str, str],
) -> None:
    store, ana_url, _, _ = seeded
    with as_login(ana_url) as conn:
        assert column(conn, "SELECT count(*) FROM labels") == [0]
        assert column(conn, "SELECT count(*) FROM labels WHERE reviewer = " + repr(store.name("ben"))) == [0]
    with store.owner() as owner:
        assert column(owner, "SELECT count(*) FROM labels") == [1]  # ben's label on i1 is there


def test_the_judge_other_labels_and_adjudications_open_after_the_own_submit_and_reveal_only(
    seeded: tuple[TeamStore, str, str, str],
) -> None:
    """A reveal needs a submit, and what it opens is read only once it is recorded: a reviewer who read the
    judge over psql without one could otherwise write a later revision that still claims to be blind."""
    store, ana_url, _, ana = seeded
    with as_login(ana_url) as conn:
        assert column(conn, "SELECT count(*) FROM judge_verdicts") == [0]
        assert column(conn, "SELECT count(*) FROM adjudications") == [0]
        insert_label(conn, label_row("i1", ana, skipped=1))  # a skip is no submit: still blind
        assert column(conn, "SELECT count(*) FROM judge_verdicts") == [0]
        assert column(conn, "SELECT reviewer FROM labels") == [ana]
        insert_label(conn, label_row("i1", ana, revision=2))
        assert column(conn, "SELECT count(*) FROM judge_verdicts") == [0]  # submitted, not revealed yet
        assert column(conn, "SELECT reviewer FROM labels") == [ana, ana]
        conn.execute("INSERT INTO reveals (item_id, reviewer, revealed_at) VALUES ('i1', %s, 't')", (ana,))
        assert column(conn, "SELECT item_id FROM judge_verdicts") == ["i1"]  # i1 only, not i2
        others = column(conn, "SELECT reviewer FROM labels WHERE revision = 1 AND skipped = 0 ORDER BY reviewer")
        assert others == [store.name("ben")]
        assert column(conn, "SELECT item_id FROM adjudications") == ["i1"]


def test_a_label_claiming_another_reviewer_is_stored_under_the_login_that_wrote_it(
    seeded: tuple[TeamStore, str, str, str],
) -> None:
    store, ana_url, _, ana = seeded
    with as_login(ana_url) as conn:
        stored = insert_label(conn, label_row("i2", store.name("ben")))
    assert stored == ana
    with store.owner() as owner:
        rows = owner.execute("SELECT reviewer FROM labels WHERE item_id = 'i2'").fetchall()
    assert rows == [(ana,)]


def test_a_reviewer_cannot_label_an_item_outside_their_queue(seeded: tuple[TeamStore, str, str, str]) -> None:
    _, ana_url, _, ana = seeded
    with as_login(ana_url) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
        insert_label(conn, label_row("i3", ana))  # i3 is in ben's queue only


def test_a_reviewer_sees_no_counters_of_others_work_and_cannot_choose_a_label_id(
    seeded: tuple[TeamStore, str, str, str],
) -> None:
    """The identity sequences count every verdict, label and adjudication (an adjudication means the
    reviewers disagreed); a reviewer reads none of them, and a label id they chose could take the one
    another reviewer's next submit is about to get, so the database numbers their labels itself."""
    store, ana_url, _, ana = seeded
    with as_login(ana_url) as conn:
        assert column(conn, "SELECT count(last_value) FROM pg_sequences") == [0]
        for sequence in ("judge_verdicts_id_seq", "adjudications_id_seq", "labels_id_seq"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(f"SELECT currval('{sequence}'), nextval('{sequence}')")
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="labels"):
            conn.execute(
                "INSERT INTO labels (id, item_id, case_id, reviewer, revision, scores_json, note, flagged, skipped, "
                "rubric_version, revealed, created_at, seconds_spent, origin) "
                "VALUES (2, 'i2', 'c2', 'x', 1, '{}', '', 0, 0, '1', 0, 't', 1, 'review')"
            )
        assert insert_label(conn, label_row("i2", ana)) == ana  # numbered by the database: still allowed
    with store.owner() as owner:
        assert column(owner, "SELECT id FROM labels ORDER BY id") == [1, 2]


def test_a_reviewer_cannot_change_or_remove_a_label_nor_touch_the_queues(
    seeded: tuple[TeamStore, str, str, str],
) -> None:
    store, ana_url, _, ana = seeded
    with as_login(ana_url) as conn:
        insert_label(conn, label_row("i1", ana))
        for statement in (
            "UPDATE labels SET scores_json = '{}'",
            "DELETE FROM labels",
            "DELETE FROM assignments",
            "INSERT INTO assignments VALUES ('x', 'i3', 9, 7, 't')",
            "INSERT INTO judge_verdicts (item_id, case_id, judge_name, config_hash, status, verdict_json, created_at)"
            " VALUES ('i2', 'c2', 'j', 'c', 'ok', '{}', 't')",
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
    with store.owner() as owner:
        assert column(owner, "SELECT count(*) FROM labels") == [2]
        assert column(owner, "SELECT count(*) FROM assignments") == [5]


@pytest.mark.parametrize("table", ["inbox", "inbox_decisions", "flag_resolutions", "judge_cache"])
def test_a_reviewer_cannot_read_the_curators_tables(seeded: tuple[TeamStore, str, str, str], table: str) -> None:
    _, ana_url, _, _ = seeded
    with as_login(ana_url) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute(f"SELECT * FROM {table}")


def test_a_curator_reads_every_row_of_every_table(seeded: tuple[TeamStore, str, str, str]) -> None:
    store, _, cara_url, _ = seeded
    with store.owner() as owner, as_login(cara_url) as conn:
        for table in STORE_TABLES:
            everything = column(owner, f"SELECT count(*) FROM {table}")
            assert column(conn, f"SELECT count(*) FROM {table}") == everything, table
        assert column(conn, "SELECT adapter FROM runs") == ["secret-system-b"]


def test_a_curators_decision_and_ruling_are_recorded_under_their_login(seeded: tuple[TeamStore, str, str, str]) -> None:
    store, _, cara_url, _ = seeded
    with as_login(cara_url) as conn:
        conn.execute("INSERT INTO inbox (trace_id, miss_json, source, imported_at) VALUES ('t2', '{}', 'f', 't')")
        (curator,) = conn.execute(  # type: ignore[misc]
            """INSERT INTO inbox_decisions (trace_id, decision, case_id, reason, curator, decided_at)
               VALUES ('t2', 'rejected', NULL, 'dup', 'someone-else', 't') RETURNING curator"""
        ).fetchone()
        (adjudicator,) = conn.execute(  # type: ignore[misc]
            """INSERT INTO adjudications (item_id, axis, score, reason, adjudicator, created_at)
               VALUES ('i2', 'faithfulness', 1, 'ruled', 'someone-else', 't') RETURNING adjudicator"""
        ).fetchone()
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # curators decide; they do not label for others
            insert_label(conn, label_row("i2", store.name("ana")))
    assert curator == adjudicator == store.name("cara")


def test_the_security_definer_function_answers_for_the_session_login_only(
    seeded: tuple[TeamStore, str, str, str],
) -> None:
    """`qaeval_submitted` runs as the owner: it must not be callable to learn about someone else, nor be
    steered by a search_path the caller sets."""
    _, ana_url, _, _ = seeded
    with as_login(ana_url) as conn:
        assert column(conn, "SELECT qaeval_submitted('i1')") == [False]  # ben submitted i1; ana did not
        (config,) = conn.execute(  # type: ignore[misc]
            "SELECT proconfig FROM pg_proc WHERE proname = 'qaeval_submitted'"
        ).fetchone()
        assert config == ["search_path=pg_catalog, pg_temp"]
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # PUBLIC may not create there (PostgreSQL 15)
            conn.execute("CREATE TABLE labels_decoy (item_id text)")


def test_a_reveal_is_recorded_only_after_the_own_submit_and_under_the_login(
    seeded: tuple[TeamStore, str, str, str],
) -> None:
    store, ana_url, _, ana = seeded
    reveal = "INSERT INTO reveals (item_id, reviewer, revealed_at) VALUES ('i1', %s, 't') RETURNING reviewer"
    with as_login(ana_url) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
            conn.execute(reveal, (ana,))
        insert_label(conn, label_row("i1", ana))
        assert conn.execute(reveal, (store.name("ben"),)).fetchone() == (ana,)
        assert column(conn, "SELECT count(*) FROM reveals") == [1]
    with store.owner() as owner:
        assert column(owner, "SELECT reviewer FROM reveals") == [ana]


def test_a_revision_after_the_reveal_cannot_claim_to_be_blind(seeded: tuple[TeamStore, str, str, str]) -> None:
    """Agreement and calibration count only blind labels, by the label's `revealed`: a reviewer who saw the
    judge's verdict cannot write a revision that says they did not."""
    store, ana_url, _, ana = seeded
    with as_login(ana_url) as conn:
        insert_label(conn, label_row("i1", ana))
        conn.execute("INSERT INTO reveals (item_id, reviewer, revealed_at) VALUES ('i1', %s, 't')", (ana,))
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
            insert_label(conn, label_row("i1", ana, revision=2))  # revealed = 0
        honest = (*label_row("i1", ana, revision=2)[:9], 1, *label_row("i1", ana)[10:])
        assert insert_label(conn, honest) == ana
        insert_label(conn, label_row("i2", ana))  # no reveal on i2: blind, as before
    with store.owner() as owner:
        query = "SELECT item_id, revision, revealed FROM labels WHERE reviewer = %s ORDER BY id"
        assert owner.execute(query, (ana,)).fetchall() == [("i1", 1, 0), ("i1", 2, 1), ("i2", 1, 0)]


def test_every_table_the_migrations_make_is_under_row_security(team_store: TeamStore) -> None:
    """A table added by a later migration and forgotten by `team init` would be open to every login."""
    from qaeval_tui.core.store.pg_security import TABLES

    with team_store.owner() as owner:
        rows = owner.execute(
            """SELECT c.relname, c.relrowsecurity FROM pg_catalog.pg_class c
               JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
               WHERE c.relkind = 'r' AND n.nspname = current_schema() AND c.relname <> 'schema_version'"""
        ).fetchall()
    assert {name for name, _ in rows} == set(TABLES) == {*STORE_TABLES, "writer_locks"}
    assert [name for name, secured in rows if not secured] == []
