"""`qaeval team init|add|list` against a real server: logins that work, a password shown once, clear refusals."""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from urllib.parse import urlsplit

import psycopg
import pytest

from qaeval_tui.core.store.pg_team import init_team, member_url, scram_verifier
from tests.pg.server import PgServer
from tests.pg.team_helpers import TeamStore, insert_label, label_row, migrate, qaeval

pytestmark = pytest.mark.usefixtures("no_stray_config")


def test_init_runs_again_without_harm_and_add_prints_a_url_that_logs_in_as_the_person(
    team_store: TeamStore,
) -> None:
    url = team_store.owner_url
    code, _, err = qaeval("team", "init", "--db", url)  # the fixture ran it once already
    assert code == 0 and "side channel" not in err and "still read" not in err  # a superuser closed them
    name = team_store.name("Ana")
    code, out, err = qaeval("team", "add", name, "--role", "reviewer", "--db", url)
    team_store.made.append(name)
    assert code == 0, err
    handed = out.strip()
    password = urlsplit(handed).password
    assert password and len(password) >= 32
    assert (out + err).count(password) == 1  # shown once, on stdout, and nowhere else
    with psycopg.connect(handed) as conn:
        assert conn.execute("SELECT session_user").fetchone() == (name,)  # the roster's spelling, case kept
    with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
        psycopg.connect(handed.replace(password, password[:-1] + ("x" if password[-1] != "x" else "y")))
    with team_store.owner() as owner:  # the server holds a SCRAM verifier, never the password itself
        (stored,) = owner.execute("SELECT rolpassword FROM pg_authid WHERE rolname = %s", (name,)).fetchone()  # type: ignore[misc]
    assert str(stored).startswith("SCRAM-SHA-256$") and password not in str(stored)


def test_adding_a_name_twice_is_refused_in_any_case(team_store: TeamStore) -> None:
    url = team_store.owner_url
    team_store.login("ben")
    for spelling in (team_store.name("ben"), team_store.name("BEN")):
        code, out, err = qaeval("team", "add", spelling, "--role", "curator", "--db", url)
        assert code == 2 and out == ""
        assert err.strip().splitlines() == [
            f"error: name {spelling!r}: a login {team_store.name('ben')!r} exists already on this server; "
            "nothing was changed"
        ]


@pytest.mark.parametrize(
    ("name", "problem"),
    [("ana; DROP ROLE postgres", "letters, digits"), ("pg_monitor2", "keeps for itself"), ("x" * 64, "63 bytes")],
)
def test_a_name_that_cannot_be_a_login_is_refused(team_store: TeamStore, name: str, problem: str) -> None:
    code, out, err = qaeval("team", "add", name, "--role", "reviewer", "--db", team_store.owner_url)
    assert code == 2 and out == "" and problem in err and len(err.strip().splitlines()) == 1
    with team_store.owner() as owner:
        assert owner.execute("SELECT count(*) FROM pg_roles WHERE rolname = %s", (name,)).fetchone() == (0,)


def test_a_reviewer_login_may_neither_secure_the_store_nor_add_people(team_store: TeamStore) -> None:
    ana_url = team_store.login("ana")
    for args in (("team", "init"), ("team", "add", team_store.name("eve"), "--role", "curator")):
        code, out, err = qaeval(*args, "--db", ana_url)
        assert code == 2 and out == ""
        assert "may not create roles" in err and len(err.strip().splitlines()) == 1
        assert str(urlsplit(ana_url).password) not in err  # a message never shows a password


def test_list_shows_each_person_with_their_roles(team_store: TeamStore) -> None:
    team_store.login("ana")
    team_store.login("ben", "reviewer", "curator")
    code, out, _ = qaeval("team", "list", "--json", "--db", team_store.owner_url)
    assert code == 0
    listed = {m["name"]: m["roles"] for m in json.loads(out)}
    assert listed[team_store.name("ana")] == ["reviewer"]
    assert listed[team_store.name("ben")] == ["curator", "reviewer"]


def test_a_sqlite_store_or_an_unreachable_server_is_one_line_and_exit_2(tmp_path: Path) -> None:
    code, _, err = qaeval("team", "list", "--db", str(tmp_path / "s.db"))
    assert code == 2 and "need a PostgreSQL store" in err
    code, _, err = qaeval("team", "list", "--db", "postgresql://x:secret@127.0.0.1:1/nowhere")
    assert code == 2 and "cannot connect to PostgreSQL" in err and "secret" not in err
    assert len(err.strip().splitlines()) == 1


def test_the_scram_verifier_matches_the_rfc_7677_worked_example() -> None:
    """RFC 7677 section 3: user "user", password "pencil", salt W22ZaJ0SNY7soEsUEjb6gQ==, 4096 iterations,
    whose exchange implies StoredKey/ServerKey; PostgreSQL stores exactly these (src/common/scram-common.c)."""
    import base64

    verifier = scram_verifier("pencil", salt=base64.b64decode("W22ZaJ0SNY7soEsUEjb6gQ=="), iterations=4096)
    assert verifier == (
        "SCRAM-SHA-256$4096:W22ZaJ0SNY7soEsUEjb6gQ==$WG5d8oPm3OtcPnkdi4Uo7BkeZkBFzpcXkuLmtbsT4qY=:"
        "wfPLwcE6nTWhTAmQ7tl2KeoiWGPlZqQxSrmfPwDl2dU="
    )


def test_a_database_owner_who_may_create_roles_sets_up_the_team_without_being_a_superuser(
    pg_server: PgServer,
) -> None:
    """The documented setup on a server one does not administer: a database owned by a CREATEROLE login."""
    from psycopg import sql

    owner, password = f"owner_{secrets.token_hex(3)}", secrets.token_hex(12)
    reviewer = f"rita_{secrets.token_hex(3)}"
    database = pg_server.new_database(template=None)
    name = database.rsplit("/", 1)[1]
    with pg_server.admin() as admin:
        admin.execute(sql.SQL("CREATE ROLE {} LOGIN CREATEROLE PASSWORD {}").format(sql.Identifier(owner), password))
        admin.execute(sql.SQL("ALTER DATABASE {} OWNER TO {}").format(sql.Identifier(name), sql.Identifier(owner)))
    owner_url = pg_server.url(name, user=owner, password=password)
    try:
        code, _, err = qaeval("team", "init", "--db", owner_url)
        assert code == 0 and "run `qaeval team init` once as a superuser to close them" in err  # said, not hidden
        code, out, err = qaeval("team", "add", reviewer, "--role", "reviewer", "--db", owner_url)
        assert code == 0, err
        with psycopg.connect(out.strip()) as conn:
            assert conn.execute("SELECT count(*) FROM labels").fetchone() == (0,)
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute("SELECT * FROM inbox")
    finally:
        pg_server.drop_database(database)
        with pg_server.admin() as admin:
            for role in (reviewer, owner):
                admin.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(role)))


def test_with_a_roster_only_its_members_get_a_login_spelled_as_the_roster_spells_them(
    team_store: TeamStore, tmp_path: Path
) -> None:
    name = team_store.name("Ana")
    (tmp_path / "qaeval.toml").write_text(f'[review]\nroster = [{{name = "{name}"}}]\n', encoding="utf-8")
    code, _, err = qaeval("team", "add", team_store.name("zed"), "--role", "reviewer", "--db", team_store.owner_url)
    assert code == 2 and "not on the team" in err and name in err
    code, out, _ = qaeval("team", "add", name.lower(), "--role", "reviewer", "--db", team_store.owner_url)
    team_store.made.append(name)
    assert code == 0 and urlsplit(out.strip()).username == name


def test_a_login_of_one_team_store_cannot_connect_to_another_on_the_same_server(
    pg_server: PgServer, team_store: TeamStore
) -> None:
    """The two groups are the server's: were any login in them let in everywhere, a curator of one
    store would read every other qaeval store on the server."""
    other = pg_server.new_database()
    try:
        migrate(other)
        init_team(other)
        cara_url = team_store.login("cara", "curator")
        database = other.rsplit("/", 1)[1]
        elsewhere = cara_url.rsplit("/", 1)[0] + "/" + database
        with pytest.raises(psycopg.OperationalError, match="permission denied for database"):
            psycopg.connect(elsewhere)
        code, out, _ = qaeval("team", "list", "--json", "--db", other)
        assert code == 0 and json.loads(out) == []  # cara is not of this store's team
    finally:
        pg_server.drop_database(other)


def test_the_url_handed_to_a_person_keeps_the_servers_settings_but_none_of_the_owners_secrets() -> None:
    """The owner's URL may carry their client key, its passphrase or their password file: the URL given
    to a reviewer keeps where and how to connect (host, port, database, sslmode), none of those."""
    from urllib.parse import parse_qs

    owner = (
        "postgresql://owner:own-pw@db.example:5433/qaeval?sslmode=verify-full&sslpassword=key-pass"
        "&sslkey=/home/owner/owner.key&sslcert=/home/owner/owner.crt&passfile=/home/owner/.pgpass&password=x"
    )
    url = member_url(owner, "ana", "her-pw")
    parts = urlsplit(url)
    assert (parts.username, parts.password, parts.hostname, parts.port, parts.path) == (
        "ana", "her-pw", "db.example", 5433, "/qaeval",
    )  # fmt: skip
    assert parse_qs(parts.query) == {"sslmode": ["verify-full"]}
    assert "owner" not in url and "key-pass" not in url


def test_a_curator_is_handed_the_curator_app_and_a_reviewer_the_review_app(team_store: TeamStore) -> None:
    url = team_store.owner_url
    for base, roles, app_line in (
        ("cura", ["--role", "curator"], "(`qaeval curate --db URL` or"),
        ("revi", ["--role", "reviewer"], "(`qaeval review --db URL` or"),
    ):
        name = team_store.name(base)
        code, _, err = qaeval("team", "add", name, *roles, "--db", url)
        team_store.made.append(name)
        assert code == 0 and app_line in err, err


def test_reset_password_hands_a_new_url_and_the_old_one_stops_working(team_store: TeamStore) -> None:
    old_url = team_store.login("ana")
    code, out, err = qaeval("team", "reset-password", team_store.name("ANA"), "--db", team_store.owner_url)
    assert code == 0, err
    new_url = out.strip()
    with psycopg.connect(new_url) as conn:
        assert conn.execute("SELECT session_user").fetchone() == (team_store.name("ana"),)
    with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
        psycopg.connect(old_url)
    assert str(urlsplit(new_url).password) not in err


def test_remove_drops_the_login_and_keeps_what_it_wrote(team_store: TeamStore) -> None:
    name = team_store.name("ana")
    ana_url = team_store.login("ana")
    with team_store.owner() as owner:  # a label of hers (the database is new for each test)
        insert_label(owner, label_row("i1", name))
    code, out, err = qaeval("team", "remove", name.upper(), "--db", team_store.owner_url)
    assert code == 0 and f"removed the login {name}" in out, err
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(ana_url)
    with team_store.owner() as owner:
        assert owner.execute("SELECT count(*) FROM labels WHERE reviewer = %s", (name,)).fetchone() == (1,)
    code, out, err = qaeval("team", "remove", name, "--db", team_store.owner_url)
    assert code == 2 and out == "" and "no team login of that name" in err


def test_remove_and_reset_touch_no_login_outside_the_team(team_store: TeamStore) -> None:
    owner = urlsplit(team_store.owner_url).username or ""
    for command in ("remove", "reset-password"):
        code, out, err = qaeval("team", command, owner, "--db", team_store.owner_url)
        assert code == 2 and out == "" and "no team login of that name" in err


def test_a_name_the_store_spells_otherwise_is_refused_so_one_person_stays_one(team_store: TeamStore) -> None:
    lower = team_store.name("zed")
    with team_store.owner() as owner:  # the database is new for each test
        insert_label(owner, label_row("i1", lower))
    code, out, err = qaeval("team", "add", lower.upper(), "--role", "reviewer", "--db", team_store.owner_url)
    assert code == 2 and out == "" and f"this store holds labels or a queue of {lower!r}" in err


def test_statistics_refuse_a_reviewers_login_which_sees_only_part_of_the_store(team_store: TeamStore) -> None:
    """Row security shows a reviewer their queue and what they revealed: figures over that would be
    figures over a part, reported as the whole. A curator's login sees it all."""
    reviewer_url = team_store.login("ana")
    curator_url = team_store.login("cora", "curator")
    for command in ("agreement", "calibrate"):
        code, out, err = qaeval(command, "--db", reviewer_url)
        assert code == 2 and out == "", err
        assert "a reviewer's login on " in err and f"`qaeval {command}` would count a part" in err
        assert str(urlsplit(reviewer_url).password) not in err
    code, _, err = qaeval("agreement", "--db", curator_url)
    assert "no labels" in err and "reviewer's login" not in err  # read as the whole store: it is empty


def test_the_readmes_server_step_makes_an_owner_that_sets_up_the_team(pg_server: PgServer) -> None:
    """The README's commands for the owner role and its database, run on a throwaway server (names made
    unique: roles are the server's), then `team init` and `team add` with the owner's URL."""
    import re
    import shlex

    from psycopg import sql

    from tests.test_docs import README

    step = README.split("1. **A server.**", 1)[1].split("2. **Secure it:**", 1)[0]
    commands = [shlex.split(line.strip()) for line in step.splitlines() if line.strip().startswith("sudo -u postgres")]
    (statement,) = [words[-1] for words in commands if words[3] == "psql"]
    (createdb,) = [words for words in commands if words[3] == "createdb"]
    role = re.search(r"CREATE ROLE (\w+) LOGIN CREATEROLE PASSWORD '([^']+)'", statement)
    assert role is not None and createdb[4:6] == ["--owner", role.group(1)]
    suffix = secrets.token_hex(3)
    owner, password, database = f"{role.group(1)}_{suffix}", role.group(2), f"{createdb[6]}_{suffix}"
    reviewer = f"rita_{suffix}"
    with pg_server.admin() as admin:
        admin.execute(statement.replace(role.group(1), owner))
        admin.execute(sql.SQL("CREATE DATABASE {} OWNER {}").format(sql.Identifier(database), sql.Identifier(owner)))
    owner_url = pg_server.url(database, user=owner, password=password)
    try:
        code, _, err = qaeval("team", "init", "--db", owner_url)
        assert code == 0, err
        code, _, err = qaeval("team", "add", reviewer, "--role", "reviewer", "--db", owner_url)
        assert code == 0, err
    finally:
        with pg_server.admin() as admin:
            admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(database)))
            for name in (reviewer, owner):
                admin.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(name)))
