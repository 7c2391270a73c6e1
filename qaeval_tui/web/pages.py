"""The server's HTML: the sign-in form, the app page around textual-serve's client, the status page.

Every value from a request, the roster or the store is escaped. No inline script or event handler
(the Content-Security-Policy allows scripts from this server only); styles come from assets/.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING

from qaeval_tui.core.signin.sessions import Session

if TYPE_CHECKING:  # the status page's rows; the use case is imported when the page is asked for
    from qaeval_tui.core.usecases.prepare import QueueStanding

APP_TITLES = {"reviewer": "qaeval review", "curator": "qaeval curate"}


def _page(title: str, body: str, *, app: bool = False) -> str:
    client = (
        '<link rel="stylesheet" href="/static/css/xterm.css">\n'
        '<script src="/static/js/textual.js"></script>\n<script src="/assets/serve.js"></script>\n'
        if app
        else ""
    )
    body_class = ' class="app"' if app else ""
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(title)}</title>\n"
        '<link rel="stylesheet" href="/assets/serve.css">\n'
        f"{client}</head>\n<body{body_class}>\n{body}\n</body>\n</html>\n"
    )


def sign_in_page(csrf: str, *, team: bool, message: str = "", name: str = "", role: str = "reviewer") -> str:
    secret = "Password (your team-store login's)" if team else "Token (from whoever runs qaeval serve)"
    who = "Login" if team else "Name"
    notice = f'<p class="notice" role="alert">{escape(message)}</p>\n' if message else ""
    checked = {value: " checked" if value == role else "" for value in ("reviewer", "curator")}
    return _page(
        "qaeval: sign in",
        f"""<main class="sign-in">
<h1>qaeval</h1>
{notice}<form method="post" action="/sign-in">
<input type="hidden" name="csrf" value="{escape(csrf)}">
<label>{who} <input name="name" value="{escape(name)}" autocomplete="username" required autofocus></label>
<label>{secret} <input name="secret" type="password" autocomplete="current-password" required></label>
<fieldset><legend>Open</legend>
<label><input type="radio" name="app" value="reviewer"{checked["reviewer"]}> the review app (label items)</label>
<label><input type="radio" name="app" value="curator"{checked["curator"]}> the curator app</label>
</fieldset>
<button type="submit">Sign in</button>
</form>
</main>""",
    )


def _sign_out(session: Session) -> str:
    return (
        '<form method="post" action="/sign-out" class="sign-out">'
        f'<input type="hidden" name="csrf" value="{escape(session.csrf)}">'
        '<button type="submit" id="sign-out">Sign out</button></form>'
    )


def app_page(session: Session, font_size: int) -> str:
    title = APP_TITLES[session.role]
    status = '<a href="/status">who is signed in</a>' if session.role == "curator" else ""
    return _page(
        f"{title}: {session.name}",
        f"""<header><span class="who">{escape(title)} · {escape(session.name)}</span>{status}
{_sign_out(session)}</header>
<div id="terminal" class="textual-terminal" data-session-websocket-url="/ws" data-font-size="{font_size}"></div>
<div class="ended" role="status"><p>The app has ended: every label you saved is in the store.</p>
<p><a href="/app">Open it again</a> (where you left off) or sign out above.</p></div>""",
        app=True,
    )


def progress_section(progress: Sequence[QueueStanding] | str) -> str:
    """Each reviewer's queue: labelled of assigned; or why it could not be read (a message)."""
    if isinstance(progress, str):
        return f'<h2>Queue progress</h2>\n<p class="notice">queue progress unavailable: {escape(progress)}</p>'
    rows = "\n".join(
        f"<tr><td>{escape(s.name)}</td><td>{s.labelled}</td><td>{s.queued}</td>"
        f"<td>{'done' if s.done else f'{s.queued - s.labelled} left'}</td></tr>"
        for s in progress
    )
    return f"""<h2>Queue progress</h2>
<table id="progress"><thead><tr><th>reviewer</th><th>done</th><th>assigned</th><th></th></tr></thead>
<tbody>
{rows}
</tbody></table>
<p>{len(progress)} reviewer(s) with a queue.</p>"""


def status_page(
    session: Session, people: Sequence[tuple[Session, bool]], progress: Sequence[QueueStanding] | str = ()
) -> str:
    rows = "\n".join(
        f"<tr><td>{escape(s.name)}</td><td>{escape(APP_TITLES[s.role])}</td><td>{escape(s.signed_in_at)}</td>"
        f"<td>{'open' if running else 'not open'}</td></tr>"
        for s, running in people
    )
    return _page(
        "qaeval: who is signed in",
        f"""<header><span class="who">qaeval curate · {escape(session.name)}</span>
<a href="/app">back to the app</a>{_sign_out(session)}</header>
<main class="status"><h1>Signed in now</h1>
<table><thead><tr><th>name</th><th>app</th><th>signed in since (UTC)</th><th>app process</th></tr></thead>
<tbody>
{rows}
</tbody></table>
<p>{len(people)} signed in.</p>
{progress_section(progress)}</main>""",
    )


def refused_page(message: str) -> str:
    return _page(
        "qaeval", f'<main class="sign-in"><p class="notice">{escape(message)}</p><p><a href="/">Sign in</a></p></main>'
    )
