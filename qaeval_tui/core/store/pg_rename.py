"""`qaeval team rename`: a team login takes a new name (a typo at `team add`, a name change).

The rename is one transaction of the store's owner: it records the rename in `renames` (the owner's
table alone: no group may write it), moves the person's queue to the new name and renames the login
(`ALTER ROLE ... RENAME TO`). PostgreSQL keeps a SCRAM-SHA-256 verifier across a rename (it has no
salt from the name), so the person's password stays and their URL works with the new user name; a
password stored as MD5 (salted with the old name) is cleared by the server, and then the login gets
a new random password, handed on once as `team add` does.

What a person wrote keeps the name it was written under (labels are append-only history); the record
says whose it is. Row security counts every name of the session's login as its own
(`qaeval_my_names`: its history, queue, reveals, exposures and gold locks), and the store's reads
hand out a person's rows under their current name (`renames.PersonNames`), so agreement, calibration,
the dashboard and exports count one person once, and their revisions go on from their last.

The names in one chain of renames are one person's: a former name is never taken by someone else
(`team add` and `team rename` refuse it), and renaming back to it (A to B to A) is the same person's.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

import psycopg
from psycopg import sql

from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.store.pg_former_names import has_renames, person_names
from qaeval_tui.core.store.pg_security import PERSON_COLUMN
from qaeval_tui.core.store.pg_team import (
    _members,
    _require_role_admin,
    _team_login,
    connect,
    member_url,
    name_problem,
    scram_verifier,
)
from qaeval_tui.core.store.postgres.connection import LOCK_TIMEOUT_S
from qaeval_tui.core.store.urls import redacted

Connection = psycopg.Connection[tuple[object, ...]]

_MD5_CLEARED = "MD5 password cleared"  # the server's notice when a rename drops a password salted with the name


@dataclass(frozen=True)
class Renamed:
    """A login renamed: its old and new names, roles, and the URL to hand its person (`url`, holding a
    new password, when the server had to clear theirs; else `shown_url`, their own with the password masked)."""

    old: str
    new: str
    roles: tuple[str, ...]
    shown_url: str
    url: str | None


def rename_member(url: str, old: str, new: str) -> Renamed:
    """Rename the team login `old` (any case) to `new` (a reviewer name, spelled as given).

    Refused (UsageError, nothing changed): a name that cannot be a login; no team login `old` (the owner
    and superusers are never touched); `new` held by another login, or by labels, a queue or records of
    someone else, or once someone else's name; a login that may not create roles; a store not upgraded
    (`team init`).
    """
    problem = name_problem(new)
    if problem is not None:
        raise UsageError(f"name {new!r}: {problem}")
    with connect(url) as conn:
        _require_role_admin(conn, url, "team rename")
        secured = conn.execute("SELECT to_regprocedure('qaeval_my_names()') IS NOT NULL").fetchone()
        if not (has_renames(conn) and secured and secured[0]):  # row security must know a person's former names
            raise UsageError(f"{redacted(url)}: this store predates renames; run `qaeval team init --db URL` first")
        login = _team_login(conn, url, old)
        if new == login:
            raise UsageError(f"name {new!r}: the login is called {login!r} already; nothing was changed")
        notices: list[str] = []
        conn.add_notice_handler(lambda diagnostic: notices.append(str(diagnostic.message_primary)))
        try:
            with conn.transaction():
                # No one writes a row under `login` while it is renamed: it would fall between the two names.
                locked = sql.SQL(", ").join(map(sql.Identifier, (*PERSON_COLUMN, "assignments", "renames")))
                conn.execute(sql.SQL("LOCK TABLE {} IN SHARE MODE").format(locked))
                _check_new_name(conn, login, new)
                conn.execute("UPDATE assignments SET reviewer = %s WHERE reviewer = %s", (new, login))
                conn.execute(
                    """INSERT INTO renames (old_name, new_name, renamed_by, renamed_at)
                       VALUES (%s, %s, current_user, to_char(statement_timestamp() AT TIME ZONE 'UTC',
                               'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))""",
                    (login, new),
                )
                conn.execute(sql.SQL("ALTER ROLE {} RENAME TO {}").format(sql.Identifier(login), sql.Identifier(new)))
                password = None
                if any(_MD5_CLEARED in notice for notice in notices) or _no_password(conn, new):
                    password = secrets.token_urlsafe(24)
                    conn.execute(
                        sql.SQL("ALTER ROLE {} PASSWORD {}").format(
                            sql.Identifier(new), sql.Literal(scram_verifier(password))
                        )
                    )
        except psycopg.errors.LockNotAvailable:
            raise UsageError(
                f"{redacted(url)}: `qaeval team rename` waited {LOCK_TIMEOUT_S} s for a table another session holds "
                "(a login with a transaction open); nothing was changed; run it again"
            ) from None
        except psycopg.errors.DuplicateObject:  # created by someone else since the check
            raise UsageError(
                f"name {new!r}: a login {new!r} exists already on this server; nothing was changed"
            ) from None
        except psycopg.errors.FeatureNotSupported as exc:  # the login running the command renames itself
            raise UsageError(
                f"name {login!r}: {' '.join(str(exc).split())}; run it with another login; nothing was changed"
            ) from None
        except psycopg.errors.InsufficientPrivilege as exc:
            raise UsageError(
                f"{redacted(url)}: `qaeval team rename` must run as the owner of the store's tables who may administer "
                f"{login!r} (or a superuser): {' '.join(str(exc).split())}; nothing was changed"
            ) from None
        roles = next((m.roles for m in _members(conn) if m.name == new), ())
    handed = member_url(url, new, password) if password is not None else None
    return Renamed(login, new, roles, redacted(member_url(url, new, "password")), handed)


def _no_password(conn: Connection, login: str) -> bool:
    """Whether `login` is left without a password (a superuser reads the verifiers; the notice above is
    the server's word to anyone else, in the server's language)."""
    superuser = conn.execute("SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user").fetchone()
    if not (superuser and superuser[0]):  # pg_authid is a superuser's alone to read
        return False
    row = conn.execute("SELECT rolpassword IS NULL FROM pg_catalog.pg_authid WHERE rolname = %s", (login,)).fetchone()
    return bool(row and row[0])


def _check_new_name(conn: Connection, login: str, new: str) -> None:
    """UsageError when `new` (any case) is another login's, or a name the store holds of someone else."""
    taken = conn.execute(
        "SELECT rolname FROM pg_catalog.pg_roles WHERE lower(rolname) = lower(%s) AND rolname <> %s LIMIT 1",
        (new, login),
    ).fetchone()
    if taken is not None:
        raise UsageError(f"name {new!r}: a login {str(taken[0])!r} exists already on this server; nothing was changed")
    own = person_names(conn, login)
    sources = [
        sql.SQL("SELECT {} AS name FROM {}").format(sql.Identifier(column), sql.Identifier(table))
        for table, column in (
            *PERSON_COLUMN.items(),
            ("assignments", "reviewer"),
            ("renames", "old_name"),
            ("renames", "new_name"),
        )
    ]
    held = conn.execute(
        sql.SQL("SELECT DISTINCT name FROM ({}) AS names WHERE lower(name) = lower(%s)").format(
            sql.SQL(" UNION ").join(sources)
        ),
        (new,),
    ).fetchall()
    others = sorted(str(row[0]) for row in held if str(row[0]) not in own)
    if others:
        raise UsageError(
            f"name {new!r}: this store holds labels, a queue or records of {others[0]!r} (another person's name, "
            "now or before); choose another name; nothing was changed"
        )
