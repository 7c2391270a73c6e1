"""`qaeval serve`: the review and curator apps in a browser, each person signed in as themselves.

aiohttp and textual-serve are imported only when this command runs.
"""

from __future__ import annotations

import sys
from pathlib import Path  # typer reads the annotations below, which name it, from this module
from typing import TYPE_CHECKING, Annotated

import typer

from qaeval_tui.cli.common import config_from, guarded, stderr, stdout, store_path
from qaeval_tui.cli.options import Data, Db
from qaeval_tui.core.errors import UsageError

if TYPE_CHECKING:
    from qaeval_tui.core.config import Config
    from qaeval_tui.core.review.views import Role
    from qaeval_tui.core.signin.people import Person
    from qaeval_tui.web.server import ServeSettings, SignIn

__all__ = ["Path", "register", "serve"]

LOOPBACK = {"127.0.0.1", "::1", "localhost"}


Host = Annotated[str, typer.Option("--host", help="Address to listen on (default loopback only).")]
Port = Annotated[int, typer.Option("--port", min=0, max=65535, help="Port to listen on (0: any free port).")]
NewToken = Annotated[
    list[str],
    typer.Option("--new-token", help="SQLite store: issue NAME a new token (the old one stops working); repeatable."),
]
TokensOnly = Annotated[
    bool,
    typer.Option("--tokens-only", help="SQLite store: issue the tokens still missing (and --new-token's), then exit."),
]
SessionHours = Annotated[float, typer.Option("--session-hours", min=0.05, max=168, help="A sign-in lasts this long.")]
SecureCookies = Annotated[
    bool,
    typer.Option("--secure-cookies", help="Mark cookies Secure: for a server reached only through an HTTPS proxy."),
]
ForwardedFor = Annotated[
    bool,
    typer.Option(
        "--forwarded-for", help="Take the client's address from X-Forwarded-For (behind your own proxy only)."
    ),
]


@guarded
def serve(
    ctx: typer.Context,
    host: Host = "127.0.0.1",
    port: Port = 8000,
    db: Db = None,
    data: Data = None,
    new_token: NewToken = [],  # noqa: B006  # typer's default, never mutated
    tokens_only: TokensOnly = False,
    session_hours: SessionHours = 8.0,
    secure_cookies: SecureCookies = False,
    forwarded_for: ForwardedFor = False,
) -> None:
    """Serve the review and curator apps to a browser: each person signs in and gets their own app.

    On a team store (a postgresql:// URL) people sign in with their own login and password and
    their app runs as that login. On a SQLite store each member of `[review] roster` signs in with
    a token, printed once here when issued. Exit 0 when stopped (Ctrl+C), or with --tokens-only once
    the tokens are printed; 2 on a usage error (no roster for a SQLite store, a name not on it, a
    port that cannot be listened on).
    """
    from qaeval_tui.core.store.opening import is_postgres_url

    config = config_from(ctx)
    target = store_path(ctx, db)
    team = is_postgres_url(target)
    if team and (new_token or tokens_only):
        raise UsageError("--new-token, --tokens-only: a team store signs people in with their own login; no tokens")
    if team:
        _check_team_address(str(target))
    if not team:
        _print_new_tokens(config, Path(target), new_token)
        if tokens_only:
            return
    sign_in = _team_sign_in(str(target)) if team else _roster_sign_in(config, Path(target))
    config_path = ctx.find_root().params.get("config")
    settings = _settings(config_path, data or [], team, secure_cookies, forwarded_for, session_hours)
    _serve_until_stopped(settings, sign_in, str(target), host, port)


def _settings(
    config_path: str | None,
    data: list[Path],
    team: bool,
    secure_cookies: bool,
    forwarded_for: bool,
    session_hours: float,
) -> ServeSettings:
    """How the server starts each person's app: this interpreter, the same config and golden data."""
    from qaeval_tui.web.server import ServeSettings

    def app_argv(role: Role) -> list[str]:
        argv = [sys.executable, "-m", "qaeval_tui"]
        argv += ["--config", str(Path(config_path).resolve())] if config_path else []
        argv.append("review" if role == "reviewer" else "curate")
        for path in data:
            argv += ["--data", str(path.resolve())]
        return argv

    return ServeSettings(
        app_argv=app_argv,
        cwd=Path.cwd(),
        team=team,
        secure_cookies=secure_cookies,
        forwarded_for=forwarded_for,
        session_hours=session_hours,
    )


def _serve_until_stopped(settings: ServeSettings, sign_in: SignIn, target: str, host: str, port: int) -> None:
    import asyncio

    from qaeval_tui.core.store.opening import redacted
    from qaeval_tui.web.server import ServeApp, serve_until_stopped

    web_app = ServeApp(settings, sign_in).application()
    shown = redacted(target) if settings.team else target

    def announce(url: str) -> None:
        stderr.print(f"qaeval serve: {url} (store {shown}); Ctrl+C stops")
        if host not in LOOPBACK:
            stderr.print("qaeval serve: listening beyond this machine: put a TLS reverse proxy in front (README)")

    try:
        asyncio.run(serve_until_stopped(web_app, host, port, announce))
    except OSError as exc:
        raise UsageError(f"{host}:{port}: cannot listen: {exc.strerror or exc}") from None


def _print_new_tokens(config: Config, store: Path, renew: list[str]) -> None:
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
    roles = {m.name: ", ".join(m.roles) for m in config.review.roster}
    for name, token in issued.items():
        stdout.print(f"{name} ({roles[name]}): {token}")
    if issued:
        stderr.print(f"each token is shown only this once; {path} keeps their hashes (`--new-token NAME` replaces one)")


def _roster_sign_in(config: Config, store: Path) -> SignIn:
    from qaeval_tui.core.signin.people import roster_sign_in
    from qaeval_tui.core.signin.tokens import token_file

    tokens = token_file(store)

    def check(name: str, secret: str, role: Role) -> Person:
        return roster_sign_in(config, tokens, store, name, secret, role)

    return check


def _check_team_address(url: str) -> None:
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


def _team_sign_in(url: str) -> SignIn:
    from qaeval_tui.core.signin.people import team_sign_in

    def check(name: str, secret: str, role: Role) -> Person:
        return team_sign_in(url, name, secret, role)

    return check


def register(app: typer.Typer) -> None:
    app.command()(serve)
