"""The team on a PostgreSQL store: one database login per person, in the reviewer or curator group.

`init_team` secures a migrated store (pg_security); `add_member` creates a person's login with a
fresh password and returns the connection URL to hand them, once: the password is sent to the
server only as a SCRAM-SHA-256 verifier (so no server log can hold it) and qaeval keeps no copy;
`members` lists who holds which role. A login is named exactly as the roster spells the person,
so the labels it writes (stored under `session_user`) carry the name agreement and exports use.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal
from urllib.parse import quote, unquote

import psycopg
from psycopg import sql

from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.models.label import reviewer_name_problem
from qaeval_tui.core.store.pg_former_names import former_name
from qaeval_tui.core.store.pg_security import GROUPS, security_statements, side_channel_statements
from qaeval_tui.core.store.postgres.connection import LOCK_TIMEOUT_S
from qaeval_tui.core.store.rubrics import RUBRIC_COLUMNS, StoredRubric, stored_rubric
from qaeval_tui.core.store.urls import (
    HIDDEN,
    is_postgres_url,
    libpq_split,
    redacted,
    refuse_server_options,
    scrubbed,
)

_MAX_NAME_BYTES = 63  # PostgreSQL's identifier length (NAMEDATALEN - 1)
_RESERVED = {"public", "none", "current_user", "session_user", "current_role", *GROUPS.values()}
_OWNERS_OWN = {"user", "password", "sslpassword", "sslkey", "sslcert", "passfile", "service", "servicefile"}
"""URL parameters that are the owner's identity or secrets, never handed on in a member's URL."""
_SCRAM_ITERATIONS = 4096  # PostgreSQL's own default (scram_iterations)
CONNECTION_LIMIT = 10
"""Connections one person's login may hold at once (an app takes one or two): none can use up the server's."""


@dataclass(frozen=True)
class Member:
    """One login of the team: its name and the roles (`reviewer`, `curator`) it holds."""

    name: str
    roles: tuple[str, ...]
    can_login: bool


@dataclass(frozen=True)
class NewMember:
    """A login just created, and the URL to hand its person (holding the password: shown once)."""

    name: str
    roles: tuple[str, ...]
    url: str


def connect(url: str) -> psycopg.Connection[tuple[object, ...]]:
    """A connection to the store at `url`; a one-line UsageError naming it (password masked) if there is none."""
    if not is_postgres_url(url):
        raise UsageError(f"{redacted(url)}: not a PostgreSQL URL (postgresql://USER:PASSWORD@HOST:PORT/DATABASE)")
    refuse_server_options(url)
    try:
        conn = psycopg.connect(url, connect_timeout=10)
        conn.execute(f"SET lock_timeout = '{LOCK_TIMEOUT_S}s'")  # a login's open transaction stalls no command
        conn.commit()
        return conn
    except psycopg.Error as exc:
        reason = scrubbed(" ".join(str(exc).split()), url)
        raise UsageError(f"{redacted(url)}: cannot connect to PostgreSQL: {reason}") from None


def _privileges(conn: psycopg.Connection[tuple[object, ...]]) -> tuple[str, bool, bool]:
    row = conn.execute(
        "SELECT current_user, rolsuper, rolcreaterole FROM pg_catalog.pg_roles WHERE rolname = current_user"
    ).fetchone()
    assert row is not None  # the connected role exists
    return str(row[0]), bool(row[1]), bool(row[2])


def _require_role_admin(conn: psycopg.Connection[tuple[object, ...]], url: str, command: str) -> None:
    user, superuser, createrole = _privileges(conn)
    if not (superuser or createrole):
        raise UsageError(
            f"{redacted(url)}: `qaeval {command}` needs the store owner's login with CREATEROLE (or a superuser); "
            f"{user!r} may not create roles; nothing was changed"
        )


def init_team(url: str) -> str:
    """Secure the (migrated) store at `url`: group roles, grants, row security, triggers. Returns its schema."""
    with connect(url) as conn:
        _require_role_admin(conn, url, "team init")
        database, schema = conn.execute("SELECT current_database(), current_schema()").fetchone()  # type: ignore[misc]
        try:
            with conn.transaction():
                for statement in security_statements(str(database), str(schema)):
                    conn.execute(statement)
                if _privileges(conn)[1]:  # the catalogs' side channels: a superuser's alone to close
                    for closing in side_channel_statements():
                        conn.execute(closing)
        except psycopg.errors.InsufficientPrivilege as exc:
            raise UsageError(
                f"{redacted(url)}: `qaeval team init` must run as the owner of the store's tables (or a superuser): "
                f"{' '.join(str(exc).split())}; nothing was changed"
            ) from None
        except psycopg.errors.LockNotAvailable:
            raise UsageError(
                f"{redacted(url)}: `qaeval team init` waited {LOCK_TIMEOUT_S} s for a table another session holds "
                "(a login with a transaction open); nothing was changed; run it again"
            ) from None
    return str(schema)


def side_channels_open(url: str) -> bool:
    """Whether the store's database still lets any login read row counts from its catalogs or create large
    objects (`team init` closes them when run by a superuser: pg_security.side_channel_statements)."""
    with connect(url) as conn:
        row = conn.execute("SELECT has_function_privilege('public', 'pg_catalog.lo_create(oid)', 'EXECUTE')").fetchone()
    return bool(row and row[0])


def name_problem(name: str) -> str | None:
    """Why `name` cannot be a team login, or None (a reviewer name PostgreSQL can hold as a role)."""
    problem = reviewer_name_problem(name)
    if problem is not None:
        return problem
    if len(name.encode("utf-8")) > _MAX_NAME_BYTES:
        return f"longer than PostgreSQL's {_MAX_NAME_BYTES} bytes for a login name"
    if name.lower().startswith("pg_") or name.lower() in _RESERVED:
        return "a name PostgreSQL or qaeval keeps for itself; choose another name"
    return None


def scram_verifier(password: str, *, salt: bytes | None = None, iterations: int = _SCRAM_ITERATIONS) -> str:
    """The SCRAM-SHA-256 verifier PostgreSQL stores for `password` (RFC 5802/7677; what libpq's
    PQencryptPasswordConn computes). `password` is ASCII, so SASLprep leaves it as it is."""
    salt = salt if salt is not None else os.urandom(16)
    salted = hashlib.pbkdf2_hmac("sha256", password.encode("utf-8"), salt, iterations)
    client_key = hmac.digest(salted, b"Client Key", "sha256")
    server_key = hmac.digest(salted, b"Server Key", "sha256")

    def b64(data: bytes) -> str:
        return base64.b64encode(data).decode("ascii")

    return f"SCRAM-SHA-256${iterations}:{b64(salt)}${b64(hashlib.sha256(client_key).digest())}:{b64(server_key)}"


def member_url(store_url: str, name: str, password: str) -> str:
    """The store's URL with `name` and `password` as its login (host, port, database and options kept;
    the owner's own credentials, client key and certificate, password and service files dropped)."""
    split = libpq_split(store_url)  # as libpq reads it: a `#` in the owner's password is no fragment
    if split is None or redacted(store_url).endswith(HIDDEN):
        raise UsageError(f"{redacted(store_url)}: a store URL libpq may read otherwise; encode its password")
    scheme, _, rest = split
    location, _, query = rest.partition("?")
    kept = [item for item in query.split("&") if item and unquote(item.partition("=")[0]).lower() not in _OWNERS_OWN]
    login = f"{quote(name, safe='')}:{quote(password, safe='')}@"
    return f"{scheme}{login}{location}" + (f"?{'&'.join(kept)}" if kept else "")


def members(url: str) -> list[Member]:
    """Every login in a qaeval group that may connect to this store, by name, with its roles."""
    with connect(url) as conn:
        return _members(conn)


def _members(conn: psycopg.Connection[tuple[object, ...]]) -> list[Member]:
    rows = conn.execute(
        """SELECT r.rolname, array_agg(g.rolname ORDER BY g.rolname), r.rolcanlogin
           FROM pg_catalog.pg_roles r
           JOIN pg_catalog.pg_auth_members m ON m.member = r.oid
           JOIN pg_catalog.pg_roles g ON g.oid = m.roleid
           WHERE g.rolname = ANY(%s) AND has_database_privilege(r.oid, current_database(), 'CONNECT')
           GROUP BY r.rolname, r.rolcanlogin ORDER BY r.rolname""",
        (list(GROUPS.values()),),
    ).fetchall()
    role_of = {group: role for role, group in GROUPS.items()}
    return [Member(str(name), tuple(role_of[g] for g in groups), bool(login)) for name, groups, login in rows]  # type: ignore[attr-defined]


def add_member(url: str, name: str, roles: Iterable[str]) -> NewMember:
    """Create `name`'s login in the groups of `roles`, with a new random password; the URL to hand them.

    Refused (UsageError, nothing created): a name that cannot be a login, an unknown role, a login
    that exists already (names are case-insensitive, as on the roster), a store `team init` has not
    secured, a login that may not create roles.
    """
    wanted = tuple(dict.fromkeys(roles))
    unknown = [role for role in wanted if role not in GROUPS]
    if unknown or not wanted:
        raise UsageError(f"--role: {', '.join(unknown) or '(none)'}: choose reviewer and/or curator")
    problem = name_problem(name)
    if problem is not None:
        raise UsageError(f"name {name!r}: {problem}")
    with connect(url) as conn:
        _require_role_admin(conn, url, "team add")
        secured = conn.execute("SELECT to_regprocedure('qaeval_submitted(text)') IS NOT NULL").fetchone()
        if not (secured and secured[0]):
            raise UsageError(f"{redacted(url)}: this store has no team yet; run `qaeval team init --db URL` first")
        taken = [
            str(row[0])
            for row in conn.execute("SELECT rolname FROM pg_catalog.pg_roles WHERE lower(rolname) = lower(%s)", (name,))
        ]
        if taken:
            raise UsageError(f"name {name!r}: a login {taken[0]!r} exists already on this server; nothing was changed")
        former = former_name(conn, name)
        if former is not None:  # the labels under it are the renamed person's
            raise UsageError(
                f"name {name!r}: {former[0]!r} is a former name of {former[1]!r}, whose labels it holds; "
                "choose another name; nothing was changed"
            )
        known = _store_spelling(conn, name)
        if known is not None and known != name:  # `Ana` beside the store's `ana`: two people to agreement
            raise UsageError(
                f"name {name!r}: this store holds labels or a queue of {known!r}; add {known!r} so the login and "
                "its labels are one person; nothing was changed"
            )
        password = secrets.token_urlsafe(24)
        groups = sql.SQL(", ").join(sql.Identifier(GROUPS[role]) for role in wanted)
        try:
            with conn.transaction():
                conn.execute(
                    sql.SQL("CREATE ROLE {} LOGIN PASSWORD {} CONNECTION LIMIT {} IN ROLE {}").format(
                        sql.Identifier(name),
                        sql.Literal(scram_verifier(password)),
                        sql.Literal(CONNECTION_LIMIT),
                        groups,
                    )
                )
                database = str(conn.execute("SELECT current_database()").fetchone()[0])  # type: ignore[index]
                conn.execute(
                    sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(sql.Identifier(database), sql.Identifier(name))
                )
        except psycopg.errors.DuplicateObject:  # created by someone else since the check above
            raise UsageError(f"name {name!r}: a login {name!r} exists already on this server") from None
    return NewMember(name, wanted, member_url(url, name, password))


def _store_spelling(conn: psycopg.Connection[tuple[object, ...]], name: str) -> str | None:
    """How the store already spells `name` (case-insensitively) in its labels or queues, or None."""
    row = conn.execute(
        """SELECT reviewer FROM labels WHERE lower(reviewer) = lower(%s)
           UNION SELECT reviewer FROM assignments WHERE lower(reviewer) = lower(%s) LIMIT 1""",
        (name, name),
    ).fetchone()
    return None if row is None else str(row[0])


def _team_login(conn: psycopg.Connection[tuple[object, ...]], url: str, name: str) -> str:
    """The team login `name` names (case-insensitively); UsageError when there is none (the owner, a
    superuser or a login outside the qaeval groups is no team member and is never touched)."""
    row = conn.execute(
        """SELECT r.rolname FROM pg_catalog.pg_roles r
           JOIN pg_catalog.pg_auth_members m ON m.member = r.oid
           JOIN pg_catalog.pg_roles g ON g.oid = m.roleid
           WHERE lower(r.rolname) = lower(%s) AND g.rolname = ANY(%s) AND NOT r.rolsuper
             AND has_database_privilege(r.oid, current_database(), 'CONNECT') LIMIT 1""",
        (name, list(GROUPS.values())),
    ).fetchone()
    if row is None:
        raise UsageError(
            f"name {name!r}: no team login of that name on {redacted(url)} (`qaeval team list` shows them); "
            "nothing was changed"
        )
    return str(row[0])


def remove_member(url: str, name: str) -> str:
    """Drop the team login `name` (case-insensitively); returns its name. What it wrote stays, under
    its name (labels are history); its queue stays for a curator to hand on (`qaeval queue`)."""
    with connect(url) as conn:
        _require_role_admin(conn, url, "team remove")
        login = _team_login(conn, url, name)
        database = str(conn.execute("SELECT current_database()").fetchone()[0])  # type: ignore[index]
        try:
            with conn.transaction():
                conn.execute(
                    sql.SQL("REVOKE CONNECT ON DATABASE {} FROM {}").format(
                        sql.Identifier(database), sql.Identifier(login)
                    )
                )
                conn.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(login)))
        except psycopg.errors.DependentObjectsStillExist as exc:
            raise UsageError(
                f"name {login!r}: the login still holds rights elsewhere on this server, so it cannot be dropped: "
                f"{' '.join(str(exc).split())}; nothing was changed"
            ) from None
    return login


def reset_password(url: str, name: str) -> NewMember:
    """Give the team login `name` a new random password (the old one stops working); the new URL."""
    with connect(url) as conn:
        _require_role_admin(conn, url, "team reset-password")
        login = _team_login(conn, url, name)
        password = secrets.token_urlsafe(24)
        with conn.transaction():
            conn.execute(
                sql.SQL("ALTER ROLE {} PASSWORD {}").format(
                    sql.Identifier(login), sql.Literal(scram_verifier(password))
                )
            )
        roles = next((m.roles for m in _members(conn) if m.name == login), ())
    return NewMember(login, roles, member_url(url, login, password))


def _session_login(conn: psycopg.Connection[tuple[object, ...]]) -> tuple[str, bool, set[str]]:
    """The session's login, whether it is a superuser, and which of qaeval's groups it is in."""
    row = conn.execute(
        """SELECT session_user, r.rolsuper,
              coalesce(array_agg(g.rolname) FILTER (WHERE g.rolname IS NOT NULL), '{}')
           FROM pg_catalog.pg_roles r
           LEFT JOIN pg_catalog.pg_auth_members m ON m.member = r.oid
           LEFT JOIN pg_catalog.pg_roles g ON g.oid = m.roleid AND g.rolname = ANY(%s)
           WHERE r.rolname = session_user GROUP BY r.rolname, r.rolsuper""",
        (list(GROUPS.values()),),
    ).fetchone()
    assert row is not None  # the session's own role exists
    return str(row[0]), bool(row[1]), set(row[2])  # type: ignore[call-overload]


def require_whole_view(url: str, command: str) -> None:
    """UsageError when the login of `url` is a reviewer's and no curator's: row security shows it only
    its own queue and what it revealed, so figures over the store would silently be over a part of it."""
    with connect(url) as conn:
        login, superuser, groups = _session_login(conn)
    if not superuser and GROUPS["reviewer"] in groups and GROUPS["curator"] not in groups:
        raise UsageError(
            f"{login}: a reviewer's login on {redacted(url)} sees only its own queue and the items it revealed, so "
            f"`qaeval {command}` would count a part of the labels as if it were all; run it with a curator's or "
            "the owner's URL"
        )


def published_rubric(url: str) -> StoredRubric | None:
    """The rubric the team store at `url` has on record, or None (none published, or a store from
    before the table existed). Read with the URL's login: every login may read it."""
    import json

    with connect(url) as conn:
        try:
            row = conn.execute(f"SELECT {RUBRIC_COLUMNS} FROM rubrics ORDER BY id DESC LIMIT 1").fetchone()
        except (psycopg.errors.UndefinedTable, psycopg.errors.InsufficientPrivilege):
            return None  # a store from before the table, or not secured since: nothing on record to follow
    if row is None:
        return None

    def parsed(text: object, table: str, row_id: object, field: str) -> object:
        return json.loads(str(text))

    return stored_rubric(tuple(row), parsed)


def reviewer_for_login(url: str, chosen: str | None) -> str | None:
    """The reviewer a review session on the store at `url` labels as (see `person_for_login`)."""
    return person_for_login(url, chosen, "reviewer")


def person_for_login(url: str, chosen: str | None, role: Literal["reviewer", "curator"]) -> str | None:
    """Who an app opened on the store at `url` acts as: a team login acts as itself.

    The database records every row a person writes under the session's login, so a name chosen
    otherwise (`--reviewer` or `--as`, QAEVAL_REVIEWER, `review.reviewer`) must be that login
    (case-insensitively), and the login must hold `role`; a reviewer with no queue yet waits for a
    curator to assign one (their login may not build queues, nor run the system). A login in no
    qaeval group (the owner, a superuser) acts as `chosen`, as on SQLite.
    """
    with connect(url) as conn:
        login, superuser, groups = _session_login(conn)
        if superuser or not groups:
            return chosen
        if GROUPS[role] not in groups:
            other, app = ("curator", "curate") if role == "reviewer" else ("reviewer", "review")
            raise UsageError(
                f"{login}: a {other}'s login on {redacted(url)}, not a {role}'s; open `qaeval {app}` with it"
            )
        if chosen is not None and chosen.casefold() != login.casefold():
            option = "--reviewer" if role == "reviewer" else "--as"
            raise UsageError(
                f"{role} {chosen!r}: this store's login is {login!r}, and all it writes is recorded as {login}'s; "
                f"use your own URL, or leave {option}, QAEVAL_REVIEWER and review.reviewer unset"
            )
        if role == "reviewer":
            queued = conn.execute(  # a queue under a former name of theirs is theirs (`qaeval team rename`)
                "SELECT count(*) FROM assignments WHERE reviewer = ANY (qaeval_my_names())"
            ).fetchone()
            if not queued or not queued[0]:
                raise UsageError(
                    f"{login} has no review queue on {redacted(url)} yet: a curator assigns items (`qaeval queue`)"
                )
    return login
