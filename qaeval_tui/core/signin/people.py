"""Checking a sign-in to `qaeval serve`, and what the signed-in person's app process is given.

On a SQLite store a person signs in with their name and the token `qaeval serve` issued them; what
they may open comes from `[review] roster`. On a team store (PostgreSQL) they sign in with their
own login and password: the check is a connection made as that login, their roles are that login's
groups, and their app process gets their own URL (in its environment, never its arguments), so it
runs as them and the database's row security applies to everything it reads and writes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

from qaeval_tui.core.config import Config
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.review.roster import member
from qaeval_tui.core.review.views import Role
from qaeval_tui.core.signin.tokens import token_holder
from qaeval_tui.core.store.pg_security import GROUPS
from qaeval_tui.core.store.pg_team import member_url, name_problem, person_for_login
from qaeval_tui.core.text import one_line

STORE_ENV = "QAEVAL_DB"
NAME_ENV = "QAEVAL_REVIEWER"
WRONG = "wrong name or secret"
"""The one answer for an unknown name, a wrong token and a wrong password alike."""
NOT_MEMBER = "{name} is not a member of this team store (`qaeval team add`)"


@dataclass(frozen=True)
class Person:
    """Someone signed in: their name, the app they open, and their app process's environment."""

    name: str
    role: Role
    environment: Mapping[str, str] = field(repr=False)


class SignInRefused(Exception):
    """A sign-in that opens nothing; `failed` when it counts toward the failure limit (a wrong secret)."""

    def __init__(self, reason: str, *, failed: bool) -> None:
        super().__init__(reason)
        self.reason = reason
        self.failed = failed


def _may_open(name: str, roles: set[str], role: Role) -> None:
    if role not in roles:
        app = "review" if role == "reviewer" else "curator"
        raise SignInRefused(f"{name} is not a {role} of this team: the {app} app is not theirs to open", failed=False)


def roster_sign_in(config: Config, tokens: Path, store: Path, name: str, token: str, role: Role) -> Person:
    """`name` with the token issued to them, opening `role`'s app on the SQLite store at `store`."""
    holder = token_holder(tokens, name, token) if name.strip() and token else None
    found = member(config, holder) if holder is not None and config.review.roster else None
    if found is None:
        raise SignInRefused(WRONG, failed=True)
    _may_open(found.name, set(found.roles), role)
    return Person(found.name, role, {STORE_ENV: str(store), NAME_ENV: found.name})


def team_sign_in(store_url: str, login: str, password: str, role: Role) -> Person:
    """`login` with its password, opening `role`'s app on the team store at `store_url` (whose own
    credentials, if any, are not used: the check is a connection as `login`)."""
    if not login.strip() or not password or name_problem(login) is not None:
        raise SignInRefused(WRONG, failed=True)
    url = member_url(store_url, login, password)
    try:
        conn = psycopg.connect(url, connect_timeout=10)
    except psycopg.OperationalError as exc:
        text = " ".join(str(exc).split())
        if "authentication failed" in text or "does not exist" in text or "not permitted to log in" in text:
            raise SignInRefused(WRONG, failed=True) from None
        if "permission denied for database" in text:  # a login of another store on this server
            raise SignInRefused(NOT_MEMBER.format(name=login), failed=False) from None
        raise SignInRefused("the team store cannot be reached now; try again in a moment", failed=False) from None
    with conn:
        row = conn.execute(
            """SELECT session_user, coalesce(array_agg(g.rolname) FILTER (WHERE g.rolname IS NOT NULL), '{}')
               FROM pg_catalog.pg_roles r
               LEFT JOIN pg_catalog.pg_auth_members m ON m.member = r.oid
               LEFT JOIN pg_catalog.pg_roles g ON g.oid = m.roleid AND g.rolname = ANY(%s)
               WHERE r.rolname = session_user GROUP BY r.rolname""",
            (list(GROUPS.values()),),
        ).fetchone()
    assert row is not None  # the session's own role exists
    name, groups = str(row[0]), set(row[1])
    roles = {role_name for role_name, group in GROUPS.items() if group in groups}
    if not roles:  # the owner, a superuser, anyone outside the team: not through the browser
        raise SignInRefused(NOT_MEMBER.format(name=name), failed=False)
    _may_open(name, roles, role)
    try:
        person_for_login(url, name, role)  # the checks `qaeval review` / `curate` make (a queue to label)
    except UsageError as exc:
        raise SignInRefused(one_line(str(exc)), failed=False) from None
    return Person(name, role, {STORE_ENV: url, NAME_ENV: name})
