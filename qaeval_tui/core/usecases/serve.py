"""Get `qaeval serve` ready to sign people in: the store's kind, the tokens issued, the check of a sign-in.

On a team store (a `postgresql://` URL) each person signs in with their own login: its address is
checked before anything listens (readable as libpq reads it, and holding no password: the server
keeps none), and token options are refused. On a SQLite store each member of `[review] roster`
signs in with a token: the tokens still missing (and those `--new-token` renews) are issued here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from qaeval_tui.core.config import Config
from qaeval_tui.core.errors import UsageError

if TYPE_CHECKING:
    from qaeval_tui.core.review.views import Role
    from qaeval_tui.core.signin.people import Person

SignInCheck = Callable[[str, str, "Role"], "Person"]
"""Checks a sign-in (name, secret, app) and returns the person, or raises `SignInRefused`; blocking."""


@dataclass(frozen=True)
class ServeReady:
    """What `qaeval serve` serves with: the store's kind, the tokens just issued, the sign-in check."""

    team: bool
    sign_in: SignInCheck
    issued: dict[str, str] = field(default_factory=dict)
    """Roster name -> the token issued now (shown once: only its hash is kept)."""
    roles: dict[str, str] = field(default_factory=dict)
    """Roster name -> its roles, as shown beside a token."""
    token_file: Path | None = None
    """Where a SQLite store's token hashes are kept (None: a team store)."""


def prepare_serve(
    config: Config, target: str | Path, *, new_token: Sequence[str] = (), tokens_only: bool = False
) -> ServeReady:
    """The team store's address checked, or the roster's missing tokens (and `new_token`'s) issued;
    UsageError (exit 2) for token options on a team store, an unusable team address, no roster for a
    SQLite store, or a `new_token` name not on it."""
    from qaeval_tui.core.store.opening import is_postgres_url

    if is_postgres_url(target):
        if new_token or tokens_only:
            raise UsageError("--new-token, --tokens-only: a team store signs people in with their own login; no tokens")
        check_team_address(str(target))
        return ServeReady(True, team_sign_in(str(target)))
    store = Path(target)
    issued, roles, path = issue_roster_tokens(config, store, new_token)
    return ServeReady(False, roster_sign_in(config, store), issued, roles, path)


def issue_roster_tokens(
    config: Config, store: Path, renew: Sequence[str]
) -> tuple[dict[str, str], dict[str, str], Path]:
    """The tokens issued to roster members who have none (and to `renew`), each member's roles, and the token file."""
    from qaeval_tui.core.review.roster import member
    from qaeval_tui.core.signin.tokens import issue_tokens, token_file

    if not config.review.roster:
        raise UsageError(
            "review.roster: qaeval serve on a SQLite store signs in the members of [review] roster; "
            "add the team there (or serve a team store)"
        )
    renewed = []
    for name in renew:
        found = member(config, name)
        if found is None:
            team = ", ".join(m.name for m in config.review.roster)
            raise UsageError(f"--new-token {name!r}: not on the team; the roster: {team}")
        renewed.append(found.name)
    path = token_file(store)
    issued = issue_tokens(path, [m.name for m in config.review.roster], renew=renewed)
    return issued, {m.name: ", ".join(m.roles) for m in config.review.roster}, path


def roster_sign_in(config: Config, store: Path) -> SignInCheck:
    """A roster member with their token, opening a role's app on the SQLite store at `store`."""
    from qaeval_tui.core.signin.people import roster_sign_in as check_token
    from qaeval_tui.core.signin.tokens import token_file

    tokens = token_file(store)

    def check(name: str, secret: str, role: Role) -> Person:
        return check_token(config, tokens, store, name, secret, role)

    return check


def check_team_address(url: str) -> None:
    """A UsageError (exit 2, the URL masked) before anything listens, unless `url` is a team store's address
    the sign-in can connect people through: readable as libpq reads it, and holding no password (each person
    signs in with their own; the server keeps none)."""
    import psycopg

    from qaeval_tui.core.store.urls import redacted, refuse_server_options

    refuse_server_options(url)
    try:
        parts = psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.Error:
        raise UsageError(f"{redacted(url)}: not a PostgreSQL URL libpq can read") from None
    if parts.get("password") or parts.get("sslpassword"):
        raise UsageError(
            f"{redacted(url)}: qaeval serve takes the team store's address only "
            "(postgresql://HOST:PORT/DATABASE): leave the password out, each person signs in with their own"
        )


def team_sign_in(url: str) -> SignInCheck:
    """A login with its password, opening a role's app on the team store at `url`."""
    from qaeval_tui.core.signin.people import team_sign_in as check_login

    def check(name: str, secret: str, role: Role) -> Person:
        return check_login(url, name, secret, role)

    return check
