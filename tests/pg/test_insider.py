"""The team store against a determined reviewer with psql: plain SQL over their own login (DESIGN §4).

Each test is a hole that was open: a reveal rolled back (or undone with a savepoint) opened the judge
and others' labels; a login holding both roles read its own queue's judge before labelling; the whole
case (gold answer, readable id) was readable before the gold lock; the database took any scores, any
note and any `created_at`; an advisory lock any login could take stalled everyone's submits; the
catalogs counted the rows row security hides.
"""

from __future__ import annotations

import json
import threading
import time
from datetime import UTC, datetime

import psycopg
import pytest

from tests.pg.team_helpers import TeamStore, insert_label, label_row, seed

Conn = psycopg.Connection[tuple[object, ...]]


@pytest.fixture
def seeded(team_store: TeamStore) -> tuple[TeamStore, str, str]:
    """ana (reviewer: i1, i2) and ben (i1, i2, i3; labelled i1) on three items with verdicts; i1 adjudicated."""
    ana_url = team_store.login("ana")
    team_store.login("ben")
    seed(team_store, team_store.name("ana"), team_store.name("ben"))
    return team_store, ana_url, team_store.name("ana")


def as_login(url: str) -> Conn:
    return psycopg.connect(url, autocommit=True)


def hidden_rows(conn: Conn, item: str = "i1") -> list[int]:
    """What a reveal opens, counted: judge verdicts, others' labels and adjudications of `item`."""
    return [
        int(conn.execute(query, (item,)).fetchone()[0])  # type: ignore[index, call-overload]
        for query in (
            "SELECT count(*) FROM judge_verdicts WHERE item_id = %s",
            "SELECT count(*) FROM labels WHERE item_id = %s AND reviewer <> session_user",
            "SELECT count(*) FROM adjudications WHERE item_id = %s",
        )
    ]


REVEAL = "INSERT INTO reveals (item_id, reviewer, revealed_at) VALUES ('i1', 'x', '2026-12-01T10:00:00Z')"
HONEST = (*label_row("i1", "x", revision=2)[:9], 1, *label_row("i1", "x")[10:])


# -- 1. a reveal opens rows only once durably on record -----------------------------------------------


def test_a_reveal_inside_a_transaction_rolled_back_opens_nothing(seeded: tuple[TeamStore, str, str]) -> None:
    store, ana_url, ana = seeded
    with as_login(ana_url) as conn:
        with conn.transaction(force_rollback=True):
            insert_label(conn, label_row("i1", ana))
            conn.execute(REVEAL)
            assert hidden_rows(conn) == [0, 0, 0]  # the reveal is not on record until it commits
        assert hidden_rows(conn) == [0, 0, 0]
        insert_label(conn, label_row("i1", ana))  # revealed = 0: blind, as nothing was ever opened
    with store.owner() as owner:
        assert owner.execute("SELECT count(*) FROM reveals").fetchone() == (0,)


def test_a_reveal_in_a_savepoint_opens_nothing_until_its_transaction_commits(
    seeded: tuple[TeamStore, str, str],
) -> None:
    _, ana_url, ana = seeded
    with as_login(ana_url) as conn:
        insert_label(conn, label_row("i1", ana))
        with conn.transaction():
            with conn.transaction(force_rollback=True):  # SAVEPOINT ... ROLLBACK TO SAVEPOINT
                conn.execute(REVEAL)
                assert hidden_rows(conn) == [0, 0, 0]
            with conn.transaction():  # SAVEPOINT ... RELEASE SAVEPOINT: still this transaction's
                conn.execute(REVEAL)
            assert hidden_rows(conn) == [0, 0, 0]
        assert hidden_rows(conn) == [1, 1, 1]  # committed: on record, so it opens
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
            insert_label(conn, label_row("i1", ana, revision=2))  # after it, no revision may claim blind
        insert_label(conn, HONEST)


@pytest.mark.parametrize("isolation", ["REPEATABLE READ", "SERIALIZABLE"])
def test_a_transaction_older_than_a_committed_reveal_cannot_label_blind_after_it(
    seeded: tuple[TeamStore, str, str], isolation: str
) -> None:
    """A second session's snapshot, taken before the reveal committed, would not see it: its write fails."""
    _, ana_url, ana = seeded
    with as_login(ana_url) as conn, as_login(ana_url) as older:
        insert_label(conn, label_row("i1", ana))
        older.execute(f"BEGIN ISOLATION LEVEL {isolation}")
        older.execute("SELECT count(*) FROM labels")  # its snapshot: no reveal yet
        conn.execute(REVEAL)
        assert hidden_rows(conn) == [1, 1, 1]  # on record: the judge is read
        with pytest.raises(psycopg.errors.SerializationFailure):
            insert_label(older, label_row("i1", ana, revision=2))  # revealed = 0, after the peek
        older.execute("ROLLBACK")
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
            insert_label(older, label_row("i1", ana, revision=2))  # a fresh snapshot sees the reveal


def test_a_reveal_recorded_before_the_store_kept_its_transaction_is_on_record(
    seeded: tuple[TeamStore, str, str],
) -> None:
    """A store upgraded to this schema holds reveals with no transaction noted: committed long ago."""
    store, ana_url, ana = seeded
    with as_login(ana_url) as conn:
        insert_label(conn, label_row("i1", ana))
    with store.owner() as owner:
        owner.execute("ALTER TABLE reveals DISABLE TRIGGER reveals_recorded_in")
        owner.execute("INSERT INTO reveals VALUES ('i1', %s, '2026-12-01T10:00:00Z')", (ana,))
        owner.execute("ALTER TABLE reveals ENABLE TRIGGER reveals_recorded_in")
        assert owner.execute("SELECT recorded_in FROM reveals").fetchall() == [(None,)]
    with as_login(ana_url) as conn:
        assert hidden_rows(conn) == [1, 1, 1]  # a read-only session
        with conn.transaction():
            insert_label(conn, HONEST)  # a session that has written in this transaction
            assert hidden_rows(conn) == [1, 1, 1]


# -- 2. a login holding both roles is a reviewer for its own items ---------------------------------------


@pytest.fixture
def dual(team_store: TeamStore) -> tuple[TeamStore, str, str]:
    """dana holds both roles and has ana's queue (i1, i2); ben labelled i1; a curator ruled on i1."""
    dana_url = team_store.login("dana", "reviewer", "curator")
    team_store.login("ben")
    seed(team_store, team_store.name("dana"), team_store.name("ben"))
    return team_store, dana_url, team_store.name("dana")


def test_a_reviewer_and_curator_reads_nothing_hidden_of_its_own_items_before_its_reveal(
    dual: tuple[TeamStore, str, str],
) -> None:
    _, dana_url, dana = dual
    with as_login(dana_url) as conn:
        assert hidden_rows(conn, "i1") == [0, 0, 0]
        assert hidden_rows(conn, "i3") == [1, 0, 0]  # not theirs: a curator's whole view
        for query in (
            "SELECT count(*) FROM cases WHERE case_id = 'c1'",
            "SELECT count(*) FROM run_outputs WHERE case_id = 'c1'",
            "SELECT count(*) FROM review_items WHERE item_id = 'i1'",  # its run would name the system
        ):
            assert conn.execute(query).fetchone() == (0,), query
        assert conn.execute("SELECT count(*) FROM cases WHERE case_id = 'c3'").fetchone() == (1,)
        insert_label(conn, label_row("i1", dana))
        assert hidden_rows(conn, "i1") == [0, 0, 0]  # submitted, not revealed
        conn.execute(REVEAL)
        assert hidden_rows(conn, "i1") == [1, 1, 1]
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
            insert_label(conn, label_row("i1", dana, revision=2))  # a post-reveal revision must say so


def test_a_reviewer_and_curator_never_rules_on_its_own_items(dual: tuple[TeamStore, str, str]) -> None:
    store, dana_url, dana = dual
    ruling = """INSERT INTO adjudications (item_id, axis, score, reason, adjudicator, created_at)
                VALUES (%s, 'faithfulness', 1, 'r', 'x', '2026-12-01T10:00:00Z')"""
    with as_login(dana_url) as conn:
        insert_label(conn, label_row("i1", dana))
        conn.execute(REVEAL)
        for item in ("i1", "i2"):  # labelled; queued
            with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
                conn.execute(ruling, (item,))
        conn.execute(ruling, ("i3",))  # ben's alone: theirs to rule on
    with store.owner() as owner:
        assert owner.execute("SELECT item_id, adjudicator FROM adjudications ORDER BY id").fetchall() == [
            ("i1", "cara"),
            ("i3", dana),
        ]


def test_a_reviewer_and_curator_cannot_change_its_own_queue(dual: tuple[TeamStore, str, str]) -> None:
    """Dropping i1 from its queue would open i1's judge; re-adding it afterwards would label it as if blind."""
    store, dana_url, dana = dual
    with as_login(dana_url) as conn:
        conn.execute("DELETE FROM assignments WHERE item_id = 'i1'")  # ben's row goes; its own stays
        assert hidden_rows(conn, "i1") == [0, 0, 0]
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
            conn.execute("INSERT INTO assignments VALUES (%s, 'i3', 9, 7, 't')", (dana,))
        conn.execute("INSERT INTO assignments VALUES ('zed', 'i3', 9, 7, 't')")  # another person's queue: yes
    with store.owner() as owner:
        rows = owner.execute("SELECT reviewer, item_id FROM assignments WHERE item_id IN ('i1', 'i3')").fetchall()
    assert sorted(rows) == sorted([(dana, "i1"), (store.name("ben"), "i3"), ("zed", "i3")])


# -- 3. the case record before the gold lock --------------------------------------------------------------


def case_of(conn: Conn, item: str) -> tuple[dict[str, object], tuple[object, ...]]:
    row = conn.execute("SELECT case_json, case_id, case_hash, run_id FROM qaeval_review_item(%s)", (item,)).fetchone()
    assert row is not None
    return json.loads(str(row[0])), tuple(row[1:])


def test_a_reviewer_reads_the_case_redacted_until_the_gold_lock_then_whole_after_the_reveal(
    team_store: TeamStore,
) -> None:
    ana_url = team_store.login("ana")
    team_store.login("ben")
    ana = team_store.name("ana")
    seed(team_store, ana, team_store.name("ben"))
    whole = {
        "id": "c1", "question": "Q?", "sources": [{"id": "s1", "text": "t"}], "expected_behavior": "answer",
        "gold_answer": "ten", "gold_source_ids": ["s1"], "adversarial": "decoy", "difficulty": "single_hop",
    }  # fmt: skip
    with team_store.owner() as owner:
        owner.execute("UPDATE cases SET case_json = %s WHERE case_hash = 'h1'", (json.dumps(whole),))
    lock = "INSERT INTO gold_shown (item_id, reviewer, blind_scores_json, shown_at) VALUES ('i1', 'x', '{}', 'x')"
    with as_login(ana_url) as conn:
        blind = {"id": "i1", "question": "Q?", "sources": [{"id": "s1", "text": "t"}]}  # the opaque id only
        assert case_of(conn, "i1") == (blind, ("", "", ""))
        with conn.transaction(force_rollback=True):
            conn.execute(lock)
            assert case_of(conn, "i1")[0] == blind  # not on record until committed
        conn.execute(lock)
        gold = {**blind, "expected_behavior": "answer", "gold_answer": "ten", "gold_source_ids": ["s1"]}
        assert case_of(conn, "i1") == (gold, ("", "", ""))
        insert_label(conn, label_row("i1", ana))
        conn.execute(REVEAL)
        assert case_of(conn, "i1") == (whole, ("c1", "h1", ""))  # never the run
        assert conn.execute("SELECT count(*) FROM qaeval_review_item('i3')").fetchone() == (0,)


def test_a_case_the_redacting_read_cannot_parse_is_a_located_error_for_the_reviewer(
    seeded: tuple[TeamStore, str, str],
) -> None:
    from qaeval_tui.core.store.postgres.store import PgStore
    from qaeval_tui.core.store.rows import CorruptRowError

    store, ana_url, _ = seeded
    with store.owner() as owner:
        owner.execute("UPDATE cases SET case_json = 'not json' WHERE case_hash = 'h1'")  # a hand edit
    with PgStore.open(ana_url) as ana_store:
        with pytest.raises(CorruptRowError, match="cases row of item i1: case_json: not JSON"):
            ana_store.review_item("i1")
        assert ana_store.review_item("i2") is not None  # the others still read


def test_the_blind_scores_a_gold_lock_holds_cannot_change_afterwards(seeded: tuple[TeamStore, str, str]) -> None:
    store, ana_url, ana = seeded
    with as_login(ana_url) as conn:
        conn.execute(
            "INSERT INTO gold_shown (item_id, reviewer, blind_scores_json, shown_at) "
            """VALUES ('i2', 'x', '{"faithfulness": 1, "citation_correctness": null}', 'x')"""
        )
        for changed in ('{"faithfulness": 2, "citation_correctness": null}', '{"faithfulness": 1}'):
            with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
                insert_label(conn, (*label_row("i2", ana)[:4], changed, *label_row("i2", ana)[5:]))
        kept = '{"faithfulness": 1, "citation_correctness": null, "answer_correctness": 0}'
        insert_label(conn, (*label_row("i2", ana)[:4], kept, *label_row("i2", ana)[5:]))
        insert_label(conn, label_row("i2", ana, skipped=1, revision=2))  # a skip carries no scores
    with store.owner() as owner:
        assert owner.execute("SELECT count(*) FROM labels WHERE reviewer = %s", (ana,)).fetchone() == (2,)


def test_a_reviewer_reads_no_case_id_of_a_label_and_the_database_fills_it_in(
    seeded: tuple[TeamStore, str, str],
) -> None:
    """A skip is no submit: its row must not show the readable id (`abstain-0006` says what is expected)."""
    store, ana_url, ana = seeded
    with as_login(ana_url) as conn:
        insert_label(conn, (*label_row("i2", ana, skipped=1)[:1], "made-up", *label_row("i2", ana, skipped=1)[2:]))
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT case_id FROM labels")
    with store.owner() as owner:
        assert owner.execute("SELECT case_id FROM labels WHERE reviewer = %s", (ana,)).fetchall() == [("c2",)]


# -- 4 and 5. values the database accepts, times the server assigns ----------------------------------------


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("scores_json", '{"faithfulness": 2.5}'),
        ("scores_json", '{"faithfulness": "2"}'),
        ("scores_json", '{"faithfulness": 10000}'),
        ("scores_json", '{"faithfulness": 1, "faithfulness": 2}'),
        ("scores_json", '{"faithfulness": true}'),
        ("scores_json", "[2]"),
        ("scores_json", "not json"),
        ("scores_json", json.dumps({f"axis{n}": 1 for n in range(65)})),
        ("note", "x" * 10_001),
        ("rubric_version", "v" * 201),
    ],
    ids=[
        "fraction",
        "text",
        "off-scale",
        "repeated-axis",
        "boolean",
        "array",
        "not-json",
        "65-axes",
        "long-note",
        "long-version",
    ],
)
def test_a_reviewer_cannot_store_a_label_the_tools_could_not_read(
    seeded: tuple[TeamStore, str, str], field: str, value: str
) -> None:
    _, ana_url, ana = seeded
    row = list(label_row("i2", ana))
    row[["item_id", "case_id", "reviewer", "revision", "scores_json", "note", "flagged", "skipped",
         "rubric_version"].index(field)] = value  # fmt: skip
    with as_login(ana_url) as conn, pytest.raises(psycopg.errors.CheckViolation):
        insert_label(conn, tuple(row))


def test_the_scores_a_rubric_can_hold_are_accepted(seeded: tuple[TeamStore, str, str]) -> None:
    _, ana_url, ana = seeded
    with as_login(ana_url) as conn:
        scores = '{"faithfulness": 0, "answer_correctness": null, "a 1..5 axis": 5, "signed": -9999}'
        insert_label(conn, (*label_row("i2", ana)[:4], scores, "n" * 10_000, *label_row("i2", ana)[6:]))


def test_the_server_dates_what_a_reviewer_writes_whatever_the_client_sent(seeded: tuple[TeamStore, str, str]) -> None:
    store, ana_url, ana = seeded
    before = datetime.now(UTC)
    with as_login(ana_url) as conn:
        backdated = (*label_row("i1", ana)[:10], "1999-01-01T00:00:00Z", *label_row("i1", ana)[11:])
        insert_label(conn, backdated)
        conn.execute(REVEAL.replace("2026-12-01T10:00:00Z", "not a date"))
    with store.owner() as owner:
        label_at = str(owner.execute("SELECT created_at FROM labels WHERE reviewer = %s", (ana,)).fetchone()[0])  # type: ignore[index]
        reveal_at = str(owner.execute("SELECT revealed_at FROM reveals").fetchone()[0])  # type: ignore[index]
    for stamp in (label_at, reveal_at):
        assert stamp.endswith("Z") and datetime.fromisoformat(stamp) >= before.replace(microsecond=0), stamp


# -- 6. no reviewer can block another's writes -----------------------------------------------------------


def test_no_lock_a_reviewer_can_take_stalls_another_reviewers_submit(seeded: tuple[TeamStore, str, str]) -> None:
    """ana holds, in an open transaction, every lock her login can take; ben's submit still commits at once."""
    from qaeval_tui.core.store.postgres.store import PgStore
    from qaeval_tui.core.store.rows import LabelDraft

    store, ana_url, ana = seeded
    ben_url = _login_url(store, "ben")
    with as_login(ana_url) as conn, conn.transaction():
        for key in (0x71A0_0001, 0x71A0_0002, 0x71A0_0003):  # the advisory keys label and inbox writers held
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (key,))
        conn.execute("SELECT pg_advisory_lock(hashtext('qaeval:prepare'))")
        conn.execute("SELECT qaeval_hold(ARRAY[%s])", (f"labels:{ana}",))  # her own writer lock: hers to hold
        for table in ("judge_verdicts", "reveals", "assignments"):
            conn.execute(f"LOCK TABLE {table} IN ACCESS SHARE MODE")  # all her SELECT right allows: no writer waits
        for refused in (
            f"SELECT qaeval_hold(ARRAY['labels:{store.name('ben')}'])",
            "SELECT qaeval_hold(ARRAY['inbox'])",
            "LOCK TABLE labels IN SHARE MODE",
            "LOCK TABLE labels IN ROW EXCLUSIVE MODE",  # her INSERT right is on columns only
            "LOCK TABLE writer_locks IN ACCESS EXCLUSIVE MODE",
            "SELECT * FROM labels FOR UPDATE",
            "SELECT * FROM writer_locks FOR UPDATE",
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege), conn.transaction():
                conn.execute(refused)
        done: list[int] = []

        def submit() -> None:
            with PgStore.open(ben_url) as ben_store:
                draft = LabelDraft(
                    item_id="i2", case_id="", reviewer=store.name("ben"), scores={"faithfulness": 1},
                    rubric_version="1", note="", flagged=False, skipped=False, revealed=None, seconds_spent=2.0,
                )  # fmt: skip
                done.append(ben_store.append_label(draft).label.revision)

        worker = threading.Thread(target=submit)
        started = time.monotonic()
        worker.start()
        worker.join(timeout=10)
        assert done == [1] and time.monotonic() - started < 10


def test_the_owners_one_at_a_time_locks_have_keys_no_reviewer_can_compute(
    seeded: tuple[TeamStore, str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Preparing a store (running the system once) is one process at a time; a reviewer holding the key
    the code would otherwise use stalls nobody, and the secret key is not theirs to learn."""
    from qaeval_tui.core.store.postgres import connection
    from qaeval_tui.core.store.postgres.store import PgStore

    store, ana_url, _ = seeded
    monkeypatch.setattr(connection, "LOCK_TIMEOUT_S", 1)
    with as_login(ana_url) as conn:
        conn.execute("SELECT pg_advisory_lock(hashtext('qaeval:prepare'))")
        assert conn.execute("SELECT qaeval_lock_key('prepare')").fetchone() == (None,)
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT secret FROM writer_locks")
        with PgStore.open(store.owner_url) as owner, owner.exclusive("prepare"):
            pass  # taken at once: before, the owner's `qaeval review` would wait here as long as ana liked


def _login_url(store: TeamStore, base: str) -> str:
    """A fresh URL for `base`'s login (a new password: the one `login` printed is not kept)."""
    from urllib.parse import urlsplit

    from psycopg import sql

    password = "pw-" + store.suffix
    with store.owner() as owner:
        owner.execute(sql.SQL("ALTER ROLE {} PASSWORD {}").format(sql.Identifier(store.name(base)), password))
    parts = urlsplit(store.owner_url)
    return f"postgresql://{store.name(base)}:{password}@{parts.hostname}:{parts.port}{parts.path}"


def test_a_wait_for_a_lock_ends_with_an_error_saying_what_it_waited_for(
    seeded: tuple[TeamStore, str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only ana's own other session (or the owner) can hold her writer lock; her submit then waits a bounded
    time and says so, instead of `saving…` forever."""
    from qaeval_tui.core.store.postgres import connection
    from qaeval_tui.core.store.postgres.store import PgStore
    from qaeval_tui.core.store.rows import LabelDraft

    store, ana_url, ana = seeded
    monkeypatch.setattr(connection, "LOCK_TIMEOUT_S", 1)
    draft = LabelDraft(
        item_id="i2", case_id="", reviewer=ana, scores={"faithfulness": 1}, rubric_version="1", note="",
        flagged=False, skipped=False, revealed=None, seconds_spent=2.0,
    )  # fmt: skip
    with as_login(ana_url) as other, other.transaction(), PgStore.open(ana_url) as ana_store:
        other.execute("SELECT qaeval_hold(ARRAY[%s])", (f"labels:{ana}",))
        started = time.monotonic()
        with pytest.raises(connection.StoreBusyError, match=r"waited 1 s for another session's lock"):
            ana_store.append_label(draft)
        assert time.monotonic() - started < 5
    with store.owner() as owner:
        assert owner.execute("SELECT count(*) FROM labels WHERE reviewer = %s", (ana,)).fetchone() == (0,)


# -- 7. side channels ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "query",
    [
        "SELECT reltuples FROM pg_class WHERE relname = 'labels'",
        "SELECT relpages FROM pg_class WHERE relname = 'labels'",
        "SELECT n_live_tup FROM pg_stat_user_tables WHERE relname = 'labels'",
        "SELECT n_tup_ins FROM pg_stat_all_tables WHERE relname = 'labels'",
        "SELECT n_tup_ins FROM pg_stat_xact_user_tables WHERE relname = 'labels'",
        "SELECT heap_blks_read FROM pg_statio_user_tables WHERE relname = 'labels'",
        "SELECT pg_stat_get_live_tuples('labels'::regclass)",
        "SELECT pg_stat_get_tuples_inserted('adjudications'::regclass)",
        "SELECT pg_relation_size('labels')",
        "SELECT pg_total_relation_size('adjudications')",
        "SELECT count(*) FROM pg_locks WHERE relation = 'labels'::regclass",
        "SELECT usename, xact_start FROM pg_stat_activity",
        "SELECT lo_create(0)",
        "SELECT lo_from_bytea(0, 'x')",
    ],
)
def test_a_reviewer_reads_no_row_count_from_the_catalogs_nor_stores_a_large_object(
    seeded: tuple[TeamStore, str, str], query: str
) -> None:
    _, ana_url, _ = seeded
    with as_login(ana_url) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute(query)


def test_what_a_reviewers_login_still_reads_of_the_catalogs_works(seeded: tuple[TeamStore, str, str]) -> None:
    """Closing the counts leaves the catalogs usable (names, owners; what psql's \\dt lists)."""
    _, ana_url, _ = seeded
    with as_login(ana_url) as conn:
        rows = conn.execute(
            "SELECT relname, pg_get_userbyid(relowner) FROM pg_class WHERE relname = 'labels' AND relkind = 'r'"
        ).fetchall()
        assert len(rows) == 1


def test_a_curator_holds_the_inbox_writer_lock_and_a_reviewer_cannot(seeded: tuple[TeamStore, str, str]) -> None:
    """The inbox's first decision counts: its writers queue on the inbox's lock, a curator's to take."""
    from qaeval_tui.core.store.postgres.store import PgStore
    from qaeval_tui.core.store.rows import InboxDecision, InboxMiss

    store, ana_url, _ = seeded
    cara_url = store.login("cara", "curator")
    with PgStore.open(cara_url) as cara:
        assert cara.add_inbox_misses([InboxMiss("t9", "{}", "f")]).added == ("t9",)
        assert cara.record_inbox_decision("t9", InboxDecision("rejected", None, "dup", "x", "t")) is None
    with as_login(ana_url) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute("SELECT qaeval_hold(ARRAY['inbox'])")


def test_one_login_cannot_take_every_connection_of_the_server(seeded: tuple[TeamStore, str, str]) -> None:
    from qaeval_tui.core.store.pg_team import CONNECTION_LIMIT

    store, ana_url, _ = seeded
    held = [as_login(ana_url) for _ in range(CONNECTION_LIMIT)]
    try:
        with pytest.raises(psycopg.OperationalError, match="too many connections for role"):
            as_login(ana_url)
        with store.owner() as owner:  # everyone else still gets in
            assert owner.execute("SELECT 1").fetchone() == (1,)
    finally:
        for conn in held:
            conn.close()
