"""`qaeval serve` over plain HTTP on loopback: what `--secure-cookies` and `--forwarded-for` change.

A real server process (no browser needed: cookies and addresses are HTTP). The store is the demo
queue of ana and ben with a roster and tokens issued, as a SQLite team would run it.
"""

from __future__ import annotations

import http.client
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import pytest

from qaeval_tui.core.config import load_config
from tests.conftest import DEMO_GOLDEN
from tests.tui.scenes.review import build_demo_store
from tests.web.browser import Server
from tests.web.test_serve_sqlite import issue_tokens

ROSTER = """[review]
roster = [
  {name = "ana", roles = ["reviewer"]},
  {name = "ben", roles = ["reviewer"]},
  {name = "cara", roles = ["curator"]},
]
"""
Serve = Callable[..., Server]
"""Starts `qaeval serve` with the flags given."""
PER_ADDRESS = 20
"""Failed sign-ins one address may make in the window (core.signin.limits.FailureLimit.per_address)."""


@dataclass
class Store:
    root: Path
    db: Path
    tokens: dict[str, str]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    root = tmp_path_factory.mktemp("serve-http")
    (root / "qaeval.toml").write_text(ROSTER, encoding="utf-8")
    db = root / "qaeval.db"
    build_demo_store(db, DEMO_GOLDEN, load_config(root / "qaeval.toml"), reviewers=("ana", "ben"))
    return Store(root, db, issue_tokens(root, db))


@pytest.fixture
def serve(store: Store) -> Iterator[Serve]:
    """`serve(*flags)`: a server on loopback with those flags, stopped (exit 0) after the test."""
    started: list[Server] = []

    def start(*flags: str) -> Server:
        server = Server(store.root, ["--db", str(store.db), "--data", str(DEMO_GOLDEN), *flags])
        started.append(server)
        return server

    yield start
    for server in started:
        assert server.stop() == 0


@dataclass
class Reply:
    status: int
    cookies: dict[str, str]
    """Each Set-Cookie by cookie name: the whole header (value and attributes)."""
    body: str


def request(server: Server, method: str, path: str, *, body: str = "", headers: dict[str, str] | None = None) -> Reply:
    where = urlsplit(server.url)
    connection = http.client.HTTPConnection(where.hostname or "", where.port, timeout=30)
    try:
        sent = {"Content-Type": "application/x-www-form-urlencoded", **(headers or {})}
        connection.request(method, path, body=body.encode() if body else None, headers=sent)
        response = connection.getresponse()
        cookies = {value.split("=", 1)[0]: value for value in response.headers.get_all("Set-Cookie") or []}
        return Reply(response.status, cookies, response.read().decode())
    finally:
        connection.close()


def cookie_value(header: str) -> str:
    return header.split("=", 1)[1].split(";", 1)[0]


def sign_in(server: Server, name: str, secret: str, forwarded: str | None = None, app: str = "reviewer") -> Reply:
    """The form fetched (its CSRF cookie and field), then posted as a browser would."""
    extra = {} if forwarded is None else {"X-Forwarded-For": forwarded}
    form = request(server, "GET", "/", headers=extra)
    csrf = cookie_value(form.cookies["qaeval_signin"])
    assert f'value="{csrf}"' in form.body
    fields = urlencode({"name": name, "secret": secret, "app": app, "csrf": csrf})
    return request(server, "POST", "/sign-in", body=fields, headers={"Cookie": f"qaeval_signin={csrf}", **extra})


def attributes(header: str) -> Sequence[str]:
    return [part.strip().lower() for part in header.split(";")[1:]]


def test_secure_cookies_marks_every_cookie_secure(store: Store, serve: Serve) -> None:
    server = serve("--secure-cookies")
    form = request(server, "GET", "/")
    signed_in = sign_in(server, "ana", store.tokens["ana"])
    assert signed_in.status == 303
    for header in (form.cookies["qaeval_signin"], signed_in.cookies["qaeval_session"]):
        assert "secure" in attributes(header), header
        assert "httponly" in attributes(header) and "samesite=strict" in attributes(header)


def test_without_secure_cookies_no_cookie_is_marked_secure(store: Store, serve: Serve) -> None:
    """Plain http on loopback: a Secure cookie would never come back, and sign-in would loop."""
    server = serve()
    form = request(server, "GET", "/")
    signed_in = sign_in(server, "ana", store.tokens["ana"])
    assert signed_in.status == 303
    for header in (form.cookies["qaeval_signin"], signed_in.cookies["qaeval_session"]):
        assert "secure" not in attributes(header), header
    # the session cookie works: /app is served, not a redirect to the form
    session = cookie_value(signed_in.cookies["qaeval_session"])
    assert request(server, "GET", "/app", headers={"Cookie": f"qaeval_session={session}"}).status == 200


def fail_from(server: Server, forwarded: Sequence[str]) -> None:
    """One failed sign-in per entry, each under a name of its own (the per-name limit stays out of it)."""
    for number, address in enumerate(forwarded):
        refused = sign_in(server, f"guess{number}", "not-a-token", forwarded=address)
        assert refused.status == 403 and "wrong name or secret" in refused.body


def test_forwarded_for_limits_failed_sign_ins_per_forwarded_address(store: Store, serve: Serve) -> None:
    """Behind a proxy every request comes from the proxy: the address counted is the one the proxy
    appended (the last entry of X-Forwarded-For; earlier entries are the client's to write)."""
    server = serve("--forwarded-for")
    fail_from(server, [f"198.51.100.{n}, 203.0.113.7" for n in range(PER_ADDRESS)])
    refused = sign_in(server, "ana", store.tokens["ana"], forwarded="192.0.2.1, 203.0.113.7")
    assert refused.status == 429 and "too many failed sign-ins" in refused.body
    # another client behind the same proxy is not locked out by the first one's failures
    assert sign_in(server, "ana", store.tokens["ana"], forwarded="203.0.113.8").status == 303


def test_without_forwarded_for_the_header_is_ignored_and_cannot_dodge_the_limit(store: Store, serve: Serve) -> None:
    """A client that writes a new X-Forwarded-For on every guess is still one address (loopback)."""
    server = serve()
    fail_from(server, [f"203.0.113.{n}" for n in range(PER_ADDRESS)])
    refused = sign_in(server, "ben", store.tokens["ben"], forwarded="192.0.2.99")
    assert refused.status == 429 and "too many failed sign-ins" in refused.body


def progress_rows(page: str) -> list[list[str]]:
    """The status page's queue-progress table, cell texts by row."""
    table = page.split('<table id="progress">', 1)[1].split("</table>", 1)[0]
    return [re.findall(r"<td>(.*?)</td>", row) for row in re.findall(r"<tr>(.*?)</tr>", table) if "<td>" in row]


def test_the_status_page_shows_each_reviewers_queue_progress(store: Store, serve: Serve) -> None:
    """Read from the store at the moment the page is asked for: ana's first label shows at once."""
    from qaeval_tui.core.review.session import ReviewSession
    from qaeval_tui.core.store.sqlite import Store as SqliteStore

    server = serve()
    signed_in = sign_in(server, "cara", store.tokens["cara"], app="curator")
    assert signed_in.status == 303
    cookie = {"Cookie": f"qaeval_session={cookie_value(signed_in.cookies['qaeval_session'])}"}
    with SqliteStore.open(store.db) as opened:
        assigned = {name: opened.queue_length(name) for name in ("ana", "ben")}
    before = request(server, "GET", "/status", headers=cookie)
    assert before.status == 200
    assert progress_rows(before.body) == [
        ["ana", "0", str(assigned["ana"]), f"{assigned['ana']} left"],
        ["ben", "0", str(assigned["ben"]), f"{assigned['ben']} left"],
    ]
    with SqliteStore.open(store.db) as opened:
        session = ReviewSession(opened, load_config(store.root / "qaeval.toml"), "ana")
        first = session.next_item()
        assert first is not None
        session.submit(
            first.item_id, {"faithfulness": 2, "citation_correctness": 2, "answer_correctness": 2}, "", False, 3.0
        )
    after = request(server, "GET", "/status", headers=cookie)
    assert progress_rows(after.body)[0] == ["ana", "1", str(assigned["ana"]), f"{assigned['ana'] - 1} left"]
    # a reviewer is refused the page
    reviewer = sign_in(server, "ben", store.tokens["ben"])
    refused = request(
        server,
        "GET",
        "/status",
        headers={"Cookie": f"qaeval_session={cookie_value(reviewer.cookies['qaeval_session'])}"},
    )
    assert refused.status == 403 and "progress" not in refused.body


def test_the_progress_table_escapes_what_it_shows() -> None:
    from qaeval_tui.core.usecases.prepare import QueueStanding
    from qaeval_tui.web.pages import progress_section

    html = progress_section([QueueStanding("<script>x</script>", 3, 3)])
    assert "<script>" not in html and "&lt;script&gt;x&lt;/script&gt;" in html
    assert progress_rows(html) == [["&lt;script&gt;x&lt;/script&gt;", "3", "3", "done"]]
    unavailable = progress_section("store <gone>")
    assert "queue progress unavailable: store &lt;gone&gt;" in unavailable
