"""The aiohttp server of `qaeval serve`: sign-in, sessions, the app page, the websocket, headers.

Routes: `/` the sign-in form, `POST /sign-in`, `/app` the app page (signed in), `/ws` the app's
websocket (signed in, same origin), `POST /sign-out`, `/status` who is signed in (curators),
`/static/` textual-serve's client files, `/assets/` ours. Every response carries the security
headers; nothing is loaded from another host.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import textual_serve
from aiohttp import WSMsgType, web

from qaeval_tui.core.review.views import Role
from qaeval_tui.core.signin.limits import FailureLimit
from qaeval_tui.core.signin.people import STORE_ENV, Person, SignInRefused
from qaeval_tui.core.signin.sessions import Session, SessionBook, same_token
from qaeval_tui.web.app_process import AppProcess
from qaeval_tui.web.pages import app_page, refused_page, sign_in_page, status_page

if TYPE_CHECKING:  # the status page's rows; the use case is imported when the page is asked for
    from qaeval_tui.core.usecases.prepare import QueueStanding

SESSION_COOKIE = "qaeval_session"
CSRF_COOKIE = "qaeval_signin"
CLIENT_FILES = Path(textual_serve.__file__).parent / "static"
OUR_ASSETS = Path(__file__).parent / "assets"
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
        "font-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",  # no-referrer would make a form post's Origin "null"
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}
"""Sent with every response. `style-src 'unsafe-inline'`: xterm.js sizes its grid through inline
style elements; no inline script runs."""
SWEEP_S = 15.0
SignIn = Callable[[str, str, Role], Person]
"""Checks a sign-in (name, secret, app) and returns the person, or raises `SignInRefused`; blocking."""


@dataclass
class ServeSettings:
    """What the server runs, and how it treats cookies and addresses."""

    app_argv: Callable[[Role], list[str]]
    """The command of a person's app process (`python -m qaeval_tui review ...`)."""
    cwd: Path
    team: bool
    secure_cookies: bool = False
    forwarded_for: bool = False
    font_size: int = 16
    session_hours: float = 8.0
    limit: FailureLimit = field(default_factory=FailureLimit)


class ServeApp:
    """The web application: one `SessionBook`, one app process per session at most."""

    def __init__(self, settings: ServeSettings, sign_in: SignIn) -> None:
        self.settings = settings
        self.sign_in = sign_in
        self.sessions = SessionBook(lifetime_s=settings.session_hours * 3600)
        self.apps: dict[str, AppProcess] = {}
        self._sweeper: asyncio.Task[None] | None = None

    def application(self) -> web.Application:
        app = web.Application(client_max_size=64 * 1024)
        app.add_routes(
            [
                web.get("/", self.front),
                web.post("/sign-in", self.sign_in_posted),
                web.get("/app", self.app_page),
                web.get("/ws", self.websocket),
                web.post("/sign-out", self.sign_out),
                web.get("/status", self.status),
                web.static("/static", CLIENT_FILES),
                web.static("/assets", OUR_ASSETS),
            ]
        )
        app.on_response_prepare.append(self._headers)
        app.on_startup.append(self._start_sweeper)
        app.on_shutdown.append(self._stop_everything)
        return app

    # -- plumbing ------------------------------------------------------------------------------

    async def _headers(self, request: web.Request, response: web.StreamResponse) -> None:
        response.headers.update(SECURITY_HEADERS)
        if not request.path.startswith(("/static/", "/assets/")):
            response.headers["Cache-Control"] = "no-store"

    def _session(self, request: web.Request) -> Session | None:
        return self.sessions.get(request.cookies.get(SESSION_COOKIE))

    def _address(self, request: web.Request) -> str:
        forwarded = request.headers.get("X-Forwarded-For", "") if self.settings.forwarded_for else ""
        return forwarded.split(",")[-1].strip() or request.remote or "unknown"

    @staticmethod
    def _same_origin(request: web.Request) -> bool:
        """A browser names the page's origin on a websocket or a form post: it must be this host."""
        origin = request.headers.get("Origin")
        if origin is None:
            return True  # not a browser's cross-site request (browsers always send it on these)
        return urlsplit(origin).netloc == request.host

    def _cookie(self, response: web.StreamResponse, name: str, value: str, max_age: int | None = None) -> None:
        response.set_cookie(
            name,
            value,
            httponly=True,
            samesite="Strict",
            secure=self.settings.secure_cookies,
            path="/",
            max_age=max_age,
        )

    # -- sign-in -------------------------------------------------------------------------------

    def _form(self, request: web.Request, message: str = "", name: str = "", role: str = "reviewer") -> web.Response:
        csrf = request.cookies.get(CSRF_COOKIE) or secrets.token_urlsafe(32)
        status = 200 if not message else 429 if "too many" in message else 403
        page = sign_in_page(csrf, team=self.settings.team, message=message, name=name, role=role)
        response = web.Response(text=page, content_type="text/html", status=status)
        self._cookie(response, CSRF_COOKIE, csrf)
        return response

    async def front(self, request: web.Request) -> web.StreamResponse:
        if self._session(request) is not None:
            return _redirect("/app")
        return self._form(request)

    async def sign_in_posted(self, request: web.Request) -> web.StreamResponse:
        form = await request.post()
        name, secret = str(form.get("name", "")), str(form.get("secret", ""))
        role_field = str(form.get("app", "reviewer"))
        role: Role = "curator" if role_field == "curator" else "reviewer"
        expected = request.cookies.get(CSRF_COOKIE)
        if not self._same_origin(request) or expected is None or not same_token(expected, str(form.get("csrf", ""))):
            return self._form(request, "the form was out of date: sign in again", name, role)
        address = self._address(request)
        wait = self.settings.limit.wait_s(name, address)
        if wait > 0:
            minutes = max(1, round(wait / 60))
            return self._form(request, f"too many failed sign-ins: try again in {minutes} minute(s)", name, role)
        try:
            person = await asyncio.to_thread(self.sign_in, name, secret, role)
        except SignInRefused as refused:
            if refused.failed:
                self.settings.limit.failed(name, address)
            return self._form(request, refused.reason, name, role)
        self.settings.limit.succeeded(name)
        session = self.sessions.open(person.name, person.role, person.environment)
        response = _redirect("/app")
        self._cookie(response, SESSION_COOKIE, session.id, max_age=int(self.settings.session_hours * 3600))
        response.del_cookie(CSRF_COOKIE, path="/")
        sys.stderr.write(f"qaeval serve: {person.name} signed in ({person.role})\n")
        return response

    async def sign_out(self, request: web.Request) -> web.StreamResponse:
        session = self._session(request)
        form = await request.post()
        if session is None:
            return _redirect("/")
        if not self._same_origin(request) or not same_token(session.csrf, str(form.get("csrf", ""))):
            return web.Response(text=refused_page("sign-out refused: the page was out of date"), status=403,
                                content_type="text/html")  # fmt: skip
        self.sessions.end(session.id)
        await self._stop_app(session.id)
        sys.stderr.write(f"qaeval serve: {session.name} signed out\n")
        response = _redirect("/")
        response.del_cookie(SESSION_COOKIE, path="/")
        return response

    # -- the app -------------------------------------------------------------------------------

    async def app_page(self, request: web.Request) -> web.StreamResponse:
        session = self._session(request)
        if session is None:
            return _redirect("/")
        return web.Response(text=app_page(session, self.settings.font_size), content_type="text/html")

    async def status(self, request: web.Request) -> web.StreamResponse:
        session = self._session(request)
        if session is None:
            return _redirect("/")
        if session.role != "curator":
            return web.Response(text=refused_page("this page is for curators"), status=403, content_type="text/html")
        people = [(s, s.id in self.apps and self.apps[s.id].running) for s in self.sessions.signed_in()]
        progress = await asyncio.to_thread(_queue_progress, session)
        return web.Response(text=status_page(session, people, progress), content_type="text/html")

    async def websocket(self, request: web.Request) -> web.StreamResponse:
        session = self._session(request)
        if session is None or not self._same_origin(request):
            raise web.HTTPForbidden(text="sign in first")
        ws = web.WebSocketResponse(heartbeat=15, max_msg_size=256 * 1024)
        await ws.prepare(request)
        await self._stop_app(session.id)  # a second tab, or a reload: the newest connection has the app
        service = AppProcess(
            self.settings.app_argv(session.role),
            session.environment,
            self.settings.cwd,
            write_bytes=ws.send_bytes,
            write_str=ws.send_str,
            close=partial(_close, ws),
        )
        self.apps[session.id] = service
        try:
            await service.start(_cells(request.query.get("width"), 80), _cells(request.query.get("height"), 24))
            await self._relay(ws, service)
        finally:
            await service.stop()
            if self.apps.get(session.id) is service:
                del self.apps[session.id]
        return ws

    @staticmethod
    async def _relay(ws: web.WebSocketResponse, service: AppProcess) -> None:
        """The browser's keys, size and focus to the app (textual-serve's client protocol)."""
        async for message in ws:
            if message.type != WSMsgType.TEXT:
                continue
            try:
                envelope = json.loads(message.data)
            except ValueError:
                continue
            if not isinstance(envelope, list) or not envelope:
                continue
            kind, data = envelope[0], envelope[1] if len(envelope) > 1 else None
            if kind == "stdin" and isinstance(data, str):
                await service.send_bytes(data.encode("utf-8"))
            elif kind == "resize" and isinstance(data, dict):
                await service.set_terminal_size(_cells(data.get("width"), 80), _cells(data.get("height"), 24))
            elif kind == "ping" and isinstance(data, str):
                await ws.send_json(["pong", data])
            elif kind == "blur":
                await service.blur()
            elif kind == "focus":
                await service.focus()

    async def _stop_app(self, session_id: str) -> None:
        service = self.apps.pop(session_id, None)
        if service is not None:
            await service.stop()

    async def _start_sweeper(self, app: web.Application) -> None:
        async def sweep() -> None:
            while True:
                await asyncio.sleep(SWEEP_S)
                for session in self.sessions.expired():
                    await self._stop_app(session.id)

        self._sweeper = asyncio.create_task(sweep())

    async def _stop_everything(self, app: web.Application) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
        await asyncio.gather(*(self._stop_app(session_id) for session_id in list(self.apps)))

    def pids(self) -> Sequence[int]:
        """The app processes running now (tests and benchmarks count them)."""
        return [service.pid for service in self.apps.values() if service.pid is not None and service.running]


def _queue_progress(session: Session) -> Sequence[QueueStanding] | str:
    """Each reviewer's queue progress, read as the signed-in curator (their store, their login); or
    the one-line reason it could not be read."""
    from qaeval_tui.core.errors import QaevalError
    from qaeval_tui.core.usecases.prepare import queue_progress_at

    try:
        return queue_progress_at(session.environment[STORE_ENV])
    except (QaevalError, OSError) as exc:
        return " ".join(str(exc).split())


async def _close(ws: web.WebSocketResponse) -> None:
    await ws.close()


def _redirect(location: str) -> web.Response:
    return web.Response(status=303, headers={"Location": location})


def _cells(value: object, default: int) -> int:
    """A terminal dimension from the browser, within what a screen can hold."""
    try:
        number = int(str(value))
    except ValueError:
        return default
    return min(max(number, 10), 1000)


async def serve_until_stopped(app: web.Application, host: str, port: int, announce: Callable[[str], None]) -> None:
    """Listen on host:port (0: any free port), call `announce` with the URL, and serve until SIGINT or
    SIGTERM; then every app process is asked to quit and waited for (the app's on_shutdown)."""
    import signal

    runner = web.AppRunner(app, handle_signals=False, access_log=None)
    await runner.setup()
    try:
        site = web.TCPSite(runner, host, port)
        await site.start()
        bound = runner.addresses[0]
        shown = f"[{bound[0]}]" if ":" in str(bound[0]) else str(bound[0])
        announce(f"http://{shown}:{bound[1]}/")
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        await stop.wait()
    finally:
        await runner.cleanup()
