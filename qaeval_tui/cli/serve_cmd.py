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
    from qaeval_tui.core.review.views import Role
    from qaeval_tui.core.usecases.serve import ServeReady, SignInCheck
    from qaeval_tui.web.server import ServeSettings

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
    from qaeval_tui.core.usecases.serve import prepare_serve

    target = store_path(ctx, db)
    ready = prepare_serve(config_from(ctx), target, new_token=new_token, tokens_only=tokens_only)
    _print_new_tokens(ready)
    if tokens_only:
        return
    config_path = ctx.find_root().params.get("config")
    settings = _settings(config_path, data or [], ready.team, secure_cookies, forwarded_for, session_hours)
    _serve_until_stopped(settings, ready.sign_in, str(target), host, port)


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


def _serve_until_stopped(settings: ServeSettings, sign_in: SignInCheck, target: str, host: str, port: int) -> None:
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


def _print_new_tokens(ready: ServeReady) -> None:
    for name, token in ready.issued.items():
        stdout.print(f"{name} ({ready.roles[name]}): {token}")
    if ready.issued:
        kept = f"{ready.token_file} keeps their hashes (`--new-token NAME` replaces one)"
        stderr.print(f"each token is shown only this once; {kept}")


def register(app: typer.Typer) -> None:
    app.command()(serve)
