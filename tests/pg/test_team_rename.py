"""`qaeval team rename OLD NEW` against a real server: the login answers to its new name with its own password,
its queue follows it, the rename is on record, and no one takes a name that is (or was) someone else's."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest
from psycopg import sql

from tests.pg.server import PgServer
from tests.pg.team_helpers import TeamStore, insert_label, label_row, qaeval, seed

pytestmark = pytest.mark.usefixtures("no_stray_config")


def renamed_url(url: str, name: str) -> str:
    """The person's own URL with the user name changed: what they do with theirs after a rename."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(netloc=f"{name}:{parts.password}@{parts.hostname}:{parts.port}"))


def rename(store: TeamStore, old: str, new: str) -> tuple[int, str, str]:
    code, out, err = qaeval("team", "rename", old, new, "--db", store.owner_url)
    if code == 0:
        store.made.append(new)  # dropped when the test ends
    return code, out, err


def renames(store: TeamStore) -> list[tuple[str, str]]:
    with store.owner() as owner:
        return [(str(a), str(b)) for a, b in owner.execute("SELECT old_name, new_name FROM renames ORDER BY id")]


def test_a_renamed_login_connects_with_its_own_password_under_the_new_name_and_keeps_its_queue(
    team_store: TeamStore,
) -> None:
    ana, anna = team_store.name("ana"), team_store.name("anna")
    ana_url = team_store.login("ana")
    ben = team_store.name("ben")
    team_store.login("ben")
    seed(team_store, ana, ben)  # ana's queue: i1, i2
    code, out, err = rename(team_store, ana.upper(), anna)
    assert code == 0, err
    password = str(urlsplit(ana_url).password)
    assert password not in out + err  # qaeval never held it, and shows none
    assert out.strip() == renamed_url(ana_url, anna).replace(password, "***")
    assert f"renamed {ana} to {anna} (reviewer)" in err and "password is unchanged" in err
    with psycopg.connect(renamed_url(ana_url, anna)) as conn:
        assert conn.execute("SELECT session_user").fetchone() == (anna,)
        queue = conn.execute("SELECT item_id FROM assignments WHERE reviewer = session_user ORDER BY position")
        assert [row[0] for row in queue] == ["i1", "i2"]  # in order, as before
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(ana_url)  # no login of the old name any more
    assert renames(team_store) == [(ana, anna)]
    code, out, _ = qaeval("team", "list", "--json", "--db", team_store.owner_url)
    assert code == 0 and {m["name"] for m in json.loads(out)} == {anna, ben}


def test_the_review_app_opens_as_the_new_name_on_the_queue_that_followed_it(team_store: TeamStore) -> None:
    from qaeval_tui.core.store.pg_team import reviewer_for_login

    ana, anna = team_store.name("ana"), team_store.name("anna")
    ana_url = team_store.login("ana")
    seed(team_store, ana, team_store.name("ben"))
    assert rename(team_store, ana, anna)[0] == 0
    assert reviewer_for_login(renamed_url(ana_url, anna), None) == anna


def test_renaming_back_is_the_same_persons_and_a_former_name_is_no_one_elses(team_store: TeamStore) -> None:
    ana, anna, ben = team_store.name("ana"), team_store.name("anna"), team_store.name("ben")
    ana_url = team_store.login("ana")
    team_store.login("ben")
    assert rename(team_store, ana, anna)[0] == 0
    # `ana` is anna's former name now: another person may neither be added under it nor renamed to it.
    code, out, err = qaeval("team", "add", ana.upper(), "--role", "reviewer", "--db", team_store.owner_url)
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [
        f"error: name {ana.upper()!r}: {ana!r} is a former name of {anna!r}, whose labels it holds; "
        "choose another name; nothing was changed"
    ]
    code, out, err = rename(team_store, ben, ana)
    assert code == 2 and out == "" and f"records of {ana!r}" in err
    # anna herself may take it back: it was hers.
    code, _, err = rename(team_store, anna, ana)
    assert code == 0, err
    with psycopg.connect(ana_url) as conn:  # her first URL works again, as it was
        assert conn.execute("SELECT session_user").fetchone() == (ana,)
    assert renames(team_store) == [(ana, anna), (anna, ana)]
    # Now `anna` is the former name, and `ana` the current one of a login that exists.
    code, _, err = qaeval("team", "add", anna, "--role", "reviewer", "--db", team_store.owner_url)
    assert code == 2 and f"{anna!r} is a former name of {ana!r}" in err


def test_only_the_case_of_a_name_may_change(team_store: TeamStore) -> None:
    ana = team_store.name("ana")
    team_store.login("ana")
    code, _, err = rename(team_store, ana, ana.capitalize())
    assert code == 0, err
    assert renames(team_store) == [(ana, ana.capitalize())]


@pytest.mark.parametrize("case", ["another login", "another login in another case", "the same name"])
def test_a_new_name_another_login_holds_is_refused(team_store: TeamStore, case: str) -> None:
    ana, ben = team_store.name("ana"), team_store.name("ben")
    team_store.login("ana")
    team_store.login("ben")
    new = {"another login": ben, "another login in another case": ben.upper(), "the same name": ana}[case]
    code, out, err = rename(team_store, ana, new)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert ("exists already" if new != ana else "is called") in err and "nothing was changed" in err
    assert renames(team_store) == []


def test_a_name_the_store_holds_labels_of_is_refused_so_no_one_takes_anothers_labels(team_store: TeamStore) -> None:
    """A removed colleague's labels stay under their name: a rename to it would make them the renamed login's."""
    gone = team_store.name("gone")
    with team_store.owner() as owner:
        insert_label(owner, label_row("i1", gone))
    ana = team_store.name("ana")
    team_store.login("ana")
    for spelling in (gone, gone.upper()):
        code, out, err = rename(team_store, ana, spelling)
        assert code == 2 and out == "" and f"this store holds labels, a queue or records of {gone!r}" in err
    with team_store.owner() as owner:
        assert owner.execute("SELECT count(*) FROM pg_roles WHERE rolname = %s", (ana,)).fetchone() == (1,)


def labelled_then_renamed(store: TeamStore) -> tuple[str, str, str]:
    """ana labels i1 and i2 (ben labelled both too), reveals i1, is shown the gold answer of i2 (locking her
    faithfulness 2), and is renamed anna: (anna's URL, ana, anna)."""
    ana, anna, ben = store.name("ana"), store.name("anna"), store.name("ben")
    ana_url = store.login("ana")
    store.login("ben")
    seed(store, ana, ben)  # ben labelled i1
    with store.owner() as owner:
        insert_label(owner, label_row("i2", ben))
    with psycopg.connect(ana_url, autocommit=True) as conn:
        insert_label(conn, label_row("i1", ana))
        conn.execute("INSERT INTO reveals (item_id, reviewer, revealed_at) VALUES ('i1', %s, 't')", (ana,))
        conn.execute(
            """INSERT INTO gold_shown (item_id, reviewer, blind_scores_json, shown_at)
               VALUES ('i2', %s, '{"faithfulness": 2}', 't')""",
            (ana,),
        )
        insert_label(conn, label_row("i2", ana))
    code, _, err = rename(store, ana, anna)
    assert code == 0, err
    return renamed_url(ana_url, anna), ana, anna


def column(conn: psycopg.Connection[tuple[object, ...]], query: str) -> list[object]:
    return [row[0] for row in conn.execute(query)]


def test_after_a_rename_the_login_reads_exactly_its_own_history_under_both_names(team_store: TeamStore) -> None:
    anna_url, ana, anna = labelled_then_renamed(team_store)
    ben = team_store.name("ben")
    with psycopg.connect(anna_url, autocommit=True) as conn:
        # Her labels (written as ana), and ben's on i1 only: her reveal of i1 (as ana) still opens it.
        rows = conn.execute("SELECT item_id, reviewer FROM labels ORDER BY item_id, reviewer").fetchall()
        assert rows == [("i1", ana), ("i1", ben), ("i2", ana)]
        assert column(conn, "SELECT item_id FROM judge_verdicts") == ["i1"]
        assert column(conn, "SELECT item_id FROM reveals") == ["i1"]
        assert column(conn, "SELECT item_id FROM review_items ORDER BY item_id") == ["i1", "i2"]
        # A new revision of i1 is after her reveal: it must say so, under her name now.
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            insert_label(conn, label_row("i1", anna, revision=2))
        assert insert_label(conn, (*label_row("i1", anna, revision=2)[:9], 1, *label_row("i1", anna)[10:])) == anna
        # The gold answer she was shown as ana locked her blind faithfulness on i2.
        changed = (*label_row("i2", anna, revision=2)[:4], '{"faithfulness": 1}', *label_row("i2", anna)[5:])
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            insert_label(conn, changed)
    with psycopg.connect(team_store.login("cara"), autocommit=True) as other:  # another reviewer sees none of it
        assert column(other, "SELECT count(*) FROM labels") == [0]


def test_a_renamed_curator_who_labels_is_still_a_reviewer_for_the_items_labelled_under_the_old_name(
    team_store: TeamStore,
) -> None:
    """A login holding both roles reads its own items' hidden rows only after its reveal, and never rules on
    them: its items under the former name are its own too."""
    dual, duo, ben = team_store.name("dual"), team_store.name("duo"), team_store.name("ben")
    dual_url = team_store.login("dual", "reviewer", "curator")
    team_store.login("ben")
    seed(team_store, team_store.name("ana"), ben)  # ben labelled i1
    with team_store.owner() as owner:
        owner.execute("INSERT INTO assignments VALUES (%s, 'i1', 1, 7, 't')", (dual,))
    with psycopg.connect(dual_url, autocommit=True) as conn:
        insert_label(conn, label_row("i1", dual))
    assert rename(team_store, dual, duo)[0] == 0
    with psycopg.connect(renamed_url(dual_url, duo), autocommit=True) as conn:
        assert column(conn, "SELECT item_id FROM judge_verdicts ORDER BY item_id") == ["i2", "i3"]  # not i1
        assert column(conn, "SELECT reviewer FROM labels WHERE item_id = 'i1'") == [dual]  # not ben's
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(
                """INSERT INTO adjudications (item_id, axis, score, reason, adjudicator, created_at)
                   VALUES ('i1', 'faithfulness', 2, 'mine', 'x', 't')"""
            )


def test_the_store_hands_out_a_renamed_persons_labels_under_one_name_and_goes_on_counting(
    team_store: TeamStore,
) -> None:
    from qaeval_tui.core.store.postgres.store import PgStore
    from qaeval_tui.core.store.rows import LabelDraft

    anna_url, ana, anna = labelled_then_renamed(team_store)
    ben = team_store.name("ben")
    with PgStore.open(anna_url) as store:
        assert [(r.label.item_id, r.label.reviewer) for r in store.labels(reviewer=anna)] == [
            ("i1", anna),
            ("i2", anna),
        ]
        assert store.queue_item_ids(anna) == ["i1", "i2"] and store.has_revealed("i1", anna)
        assert store.gold_shown("i2", anna) == {"faithfulness": 2}
        draft = LabelDraft(item_id="i1", case_id="", reviewer=anna, scores={"faithfulness": 1}, rubric_version="1")
        stored = store.append_label(draft)
        assert (stored.label.reviewer, stored.label.revision, stored.label.revealed) == (anna, 2, True)
    with PgStore.open(team_store.owner_url) as store:  # the whole store: one person, one name
        assert {label.reviewer for label in store.label_revisions()} == {anna, ben}
        assert store.label_reviewers() == sorted([anna, ben])
        assert {a.reviewer for a in store.assignments()} == {anna, ben}
        assert store.not_blind_reasons(reviewer=ana).keys() == {("i1", anna, 2)}


def test_agreement_counts_a_renamed_reviewer_as_one_person(team_store: TeamStore) -> None:
    _, _, anna = labelled_then_renamed(team_store)
    code, out, err = qaeval("agreement", "--db", team_store.owner_url, "--json")
    assert code == 0, err
    (pair,) = json.loads(out)["pairwise"]["faithfulness"]  # ana's labels are anna's: two reviewers, not three
    assert (sorted(pair["reviewers"]), pair["n_common"]) == (sorted([anna, team_store.name("ben")]), 2)


def test_the_owner_an_unknown_login_and_a_bad_name_are_refused(team_store: TeamStore) -> None:
    owner = urlsplit(team_store.owner_url).username or ""
    team_store.login("ana")
    for old, new, problem in (
        (owner, team_store.name("boss"), "no team login of that name"),
        (team_store.name("nobody"), team_store.name("somebody"), "no team login of that name"),
        (team_store.name("ana"), "ana; DROP ROLE postgres", "letters, digits"),
        (team_store.name("ana"), "pg_monitor2", "keeps for itself"),
    ):
        code, out, err = rename(team_store, old, new)
        assert code == 2 and out == "" and problem in err and len(err.strip().splitlines()) == 1
    assert renames(team_store) == []


def test_with_a_roster_the_new_name_is_on_it_as_the_roster_spells_it(team_store: TeamStore, tmp_path: Path) -> None:
    ana, anna = team_store.name("ana"), team_store.name("Anna")
    team_store.login("ana")
    (tmp_path / "qaeval.toml").write_text(f'[review]\nroster = [{{name = "{anna}"}}]\n', encoding="utf-8")
    code, _, err = rename(team_store, ana, team_store.name("zed"))
    assert code == 2 and "not on the team" in err
    code, _, err = rename(team_store, ana, anna.lower())
    assert code == 0, err
    assert renames(team_store) == [(ana, anna)]  # the roster's spelling


def test_a_reviewer_login_may_not_rename(team_store: TeamStore) -> None:
    ana_url = team_store.login("ana")
    team_store.login("ben")
    code, out, err = qaeval("team", "rename", team_store.name("ben"), team_store.name("bob"), "--db", ana_url)
    assert code == 2 and out == "" and "may not create roles" in err


def test_a_password_the_server_clears_on_rename_is_replaced_and_handed_on_once(
    team_store: TeamStore, pg_server: PgServer
) -> None:
    """MD5 verifiers are salted with the login's name: PostgreSQL drops one on rename, so the person gets
    a new password (a SCRAM verifier) and the whole URL, as `team add` prints it."""
    ana, anna = team_store.name("ana"), team_store.name("anna")
    team_store.login("ana")
    with pg_server.admin() as admin:
        admin.execute("SET password_encryption = 'md5'")
        admin.execute(sql.SQL("ALTER ROLE {} PASSWORD 'old-md5-password'").format(sql.Identifier(ana)))
    code, out, err = rename(team_store, ana, anna)
    assert code == 0, err
    handed = out.strip()
    password = str(urlsplit(handed).password)
    assert len(password) >= 32 and (out + err).count(password) == 1 and "cleared their old password" in err
    with psycopg.connect(handed) as conn:
        assert conn.execute("SELECT session_user").fetchone() == (anna,)


# -- as an insider: plain SQL over a person's own login ---------------------------------------------------------


@pytest.mark.parametrize("role", ["reviewer", "curator"])
def test_no_login_of_the_team_writes_the_renames_nor_renames_a_login(team_store: TeamStore, role: str) -> None:
    """Were a reviewer able to record a rename, or to rename itself to a name holding labels, it would take
    over another person's labels."""
    ana, ben = team_store.name("ana"), team_store.name("ben")
    ana_url = team_store.login("ana", role)
    team_store.login("ben")
    assert rename(team_store, ben, team_store.name("bob"))[0] == 0  # a record for the UPDATE to aim at
    refused = psycopg.errors.InsufficientPrivilege
    attempts = (
        ("INSERT INTO renames (old_name, new_name, renamed_by, renamed_at) VALUES (%s, %s, %s, 't')", (ben, ana, ana)),
        ("UPDATE renames SET new_name = %s", (ana,)),
        ("DELETE FROM renames", ()),
        (
            sql.SQL("ALTER ROLE {} RENAME TO {}").format(
                sql.Identifier(team_store.name("bob")), sql.Identifier(team_store.name("eve"))
            ),
            (),
        ),
        (sql.SQL("ALTER ROLE {} RENAME TO {}").format(sql.Identifier(ana), sql.Identifier(ben)), ()),
    )
    for statement, params in attempts:
        with psycopg.connect(ana_url, autocommit=True) as conn, pytest.raises(psycopg.Error) as raised:
            conn.execute(statement, params)
        # Renaming itself: the server refuses any session's own login before it asks for the right to.
        assert isinstance(raised.value, refused) or "session user cannot be renamed" in str(raised.value)
    assert renames(team_store) == [(ben, team_store.name("bob"))]
    with team_store.owner() as owner:
        assert owner.execute("SELECT count(*) FROM pg_roles WHERE rolname = %s", (ana,)).fetchone() == (1,)


def test_a_reviewer_reads_its_own_renames_only_and_a_curator_reads_them_all(team_store: TeamStore) -> None:
    """Which names in the store are theirs is a reviewer's to know (the store's reads take them all); whom
    else the team renamed is not."""
    ana_url = team_store.login("ana")
    cara_url = team_store.login("cara", "curator")
    ben, bob = team_store.name("ben"), team_store.name("bob")
    ben_url = team_store.login("ben")
    assert rename(team_store, ben, bob)[0] == 0
    with psycopg.connect(ana_url) as conn:
        assert conn.execute("SELECT count(*) FROM renames").fetchone() == (0,)
        assert conn.execute("SELECT pg_catalog.array_agg(n) FROM unnest(qaeval_my_names()) n").fetchone() == (
            [team_store.name("ana")],
        )
    with psycopg.connect(renamed_url(ben_url, bob)) as conn:
        assert conn.execute("SELECT old_name, new_name FROM renames").fetchall() == [(ben, bob)]
    with psycopg.connect(cara_url) as conn:
        assert conn.execute("SELECT count(*) FROM renames").fetchone() == (1,)


def test_an_upgraded_store_lets_each_person_read_their_renames_before_team_init_runs_again(
    pg_server: PgServer, team_store: TeamStore
) -> None:
    """Every read of a person's labels asks `renames`: the migration that makes it opens it to the team's
    groups (which `team_store` made on this server), so an upgrade alone breaks no one's app."""
    from qaeval_tui.core.store.pg_team import init_team
    from qaeval_tui.core.store.postgres.store import PgStore

    url = pg_server.new_database(template=None)
    reviewer = team_store.name("rita")
    try:
        PgStore.open(url).close()  # every migration, as the owner's next command runs them
        with pg_server.admin() as admin:
            admin.execute(
                sql.SQL("CREATE ROLE {} LOGIN PASSWORD 'pw' IN ROLE qaeval_reviewer").format(sql.Identifier(reviewer))
            )
        with psycopg.connect(url, autocommit=True) as owner:
            owner.execute(
                "INSERT INTO renames (old_name, new_name, renamed_by, renamed_at) VALUES ('x', %s, 'o', 't'), "
                "('y', 'z', 'o', 't')",
                (reviewer,),
            )
        with psycopg.connect(pg_server.url(url.rsplit("/", 1)[1], user=reviewer, password="pw")) as conn:
            assert conn.execute("SELECT old_name FROM renames").fetchall() == [("x",)]  # their own only
        init_team(url)  # its own policies replace the migration's
        with psycopg.connect(url) as owner:
            policies = owner.execute("SELECT count(*) FROM pg_policies WHERE tablename = 'renames'").fetchone()
        assert policies == (2,)
    finally:
        pg_server.drop_database(url)
        with pg_server.admin() as admin:
            admin.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(reviewer)))


def test_a_database_owner_who_may_create_roles_renames_without_being_a_superuser(pg_server: PgServer) -> None:
    """The README's setup on a server one does not administer; the server's notice says when it cleared an
    MD5 password (such an owner cannot read the verifiers), and the person gets a new one."""
    import secrets

    suffix = secrets.token_hex(3)
    owner, password = f"owner_{suffix}", secrets.token_hex(12)
    names = {base: f"{base}_{suffix}" for base in ("rita", "rina", "mona", "mina")}
    database = pg_server.new_database(template=None)
    with pg_server.admin() as admin:
        admin.execute(sql.SQL("CREATE ROLE {} LOGIN CREATEROLE PASSWORD {}").format(sql.Identifier(owner), password))
        admin.execute(
            sql.SQL("ALTER DATABASE {} OWNER TO {}").format(
                sql.Identifier(database.rsplit("/", 1)[1]), sql.Identifier(owner)
            )
        )
    owner_url = pg_server.url(database.rsplit("/", 1)[1], user=owner, password=password)
    try:
        assert qaeval("team", "init", "--db", owner_url)[0] == 0
        code, rita_url, err = qaeval("team", "add", names["rita"], "--role", "reviewer", "--db", owner_url)
        assert code == 0, err
        code, out, err = qaeval("team", "rename", names["rita"], names["rina"], "--db", owner_url)
        assert code == 0 and "password is unchanged" in err, err
        with psycopg.connect(renamed_url(rita_url.strip(), names["rina"])) as conn:
            assert conn.execute("SELECT session_user").fetchone() == (names["rina"],)
        assert qaeval("team", "add", names["mona"], "--role", "reviewer", "--db", owner_url)[0] == 0
        with pg_server.admin() as admin:
            admin.execute("SET password_encryption = 'md5'")
            admin.execute(sql.SQL("ALTER ROLE {} PASSWORD 'md5-one'").format(sql.Identifier(names["mona"])))
        code, out, err = qaeval("team", "rename", names["mona"], names["mina"], "--db", owner_url)
        assert code == 0 and "cleared their old password" in err, err
        with psycopg.connect(out.strip()) as conn:
            assert conn.execute("SELECT session_user").fetchone() == (names["mina"],)
        with pg_server.admin() as admin:  # an owner who curates too is a team login, but never renames itself
            admin.execute(sql.SQL("GRANT qaeval_curator TO {}").format(sql.Identifier(owner)))
        code, out, err = qaeval("team", "rename", owner, f"boss_{suffix}", "--db", owner_url)
        assert code == 2 and out == "" and "session user cannot be renamed" in err and len(err.splitlines()) == 1
    finally:
        pg_server.drop_database(database)
        with pg_server.admin() as admin:
            for role in (*names.values(), owner):
                admin.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(role)))
