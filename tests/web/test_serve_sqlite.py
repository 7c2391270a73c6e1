"""`qaeval serve` on a SQLite store, in a real browser: sign-in by roster token, the review app
labelled from the keyboard, the curator app, refusals, sign-out, a closed tab, a restart.

One server and one chromium for the module (each test signs in with a context of its own). The
store is the demo queue of ana, ben and dan with sentinels planted (a judge verdict, another
reviewer's labels, the system's name), so a leak to a reviewer's screen shows.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.request import urlopen

import pytest

from qaeval_tui.core.config import load_config
from qaeval_tui.core.golden.loader import load_golden
from qaeval_tui.core.review.session import ReviewSession
from qaeval_tui.core.store.sqlite import Store
from tests.conftest import DEMO_GOLDEN
from tests.tui.scenes.review import build_demo_store
from tests.tui.test_blindness import leaks, plant_sentinels
from tests.web.browser import BrowserApp, Server, browser, wait_until

__all__ = ["browser"]  # the module's chromium

ROSTER = """[review]
roster = [
  {name = "ana", roles = ["reviewer"]},
  {name = "ben", roles = ["reviewer"]},
  {name = "dan", roles = ["reviewer"]},
  {name = "cara", roles = ["curator"]},
]
"""


@dataclass
class Site:
    root: Path
    db: Path
    server: Server
    tokens: dict[str, str]
    case_ids: list[str]

    def labels(self, reviewer: str) -> list[dict[str, int | None]]:
        with Store.open(self.db) as store:
            return [row.label.scores for row in store.labels(reviewer=reviewer)]


def issue_tokens(root: Path, db: Path) -> dict[str, str]:
    done = subprocess.run(
        [sys.executable, "-m", "qaeval_tui", "serve", "--db", str(db), "--tokens-only"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    tokens = {}
    for line in done.stdout.splitlines():
        name, _, token = line.partition(": ")
        tokens[name.split(" (")[0]] = token
    return tokens


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    root = tmp_path_factory.mktemp("serve")
    (root / "qaeval.toml").write_text(ROSTER, encoding="utf-8")
    config = load_config(root / "qaeval.toml")
    db = root / "qaeval.db"
    build_demo_store(db, DEMO_GOLDEN, config, reviewers=("ana", "ben", "dan"))
    plant_sentinels(db)  # zoe labelled every item 0 on every axis
    with Store.open(db) as store:  # ben disagrees with zoe on his first item: one for the curator
        session = ReviewSession(store, config, "ben")
        first = session.next_item()
        assert first is not None
        twos: dict[str, int | None] = {"faithfulness": 2, "citation_correctness": 2, "answer_correctness": 2}
        session.submit(first.item_id, twos, "", False, 5.0)
    tokens = issue_tokens(root, db)
    assert set(tokens) == {"ana", "ben", "dan", "cara"}
    server = Server(root, ["--db", str(db), "--data", str(DEMO_GOLDEN)])
    case_ids = [loaded.case.id for loaded in load_golden([DEMO_GOLDEN]).cases]
    try:
        yield Site(root, db, server, tokens, case_ids)
    finally:
        assert server.stop() == 0
        assert server.app_pids() == []
    assert not [line for line in server.log if "did not quit" in line]  # every app ended by quitting


def test_a_reviewer_signs_in_and_labels_an_item_blind_from_the_keyboard(site: Site, browser: object) -> None:
    tab = BrowserApp(browser, site.server.url)
    try:
        assert "qaeval review · ana" in tab.sign_in("ana", site.tokens["ana"])
        first = tab.wait_for("item 1/", "faithfulness", "citation_correctness")
        assert leaks(first, site.case_ids) == []
        tab.keys("2", "1", "0")
        tab.wait_for("(sees the gold answer)")
        tab.keys("Enter")
        second = tab.wait_for("item 2/", "done 1/")
        assert leaks(second, site.case_ids) == []
        assert site.labels("ana") == [{"faithfulness": 2, "citation_correctness": 1, "answer_correctness": 0}]
        [cookie] = [c for c in tab.context.cookies() if c["name"] == "qaeval_session"]
        assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and cookie["expires"] > 0
        origin = site.server.url.rstrip("/")
        assert tab.requests and all(url.startswith((origin, origin.replace("http", "ws"))) for url in tab.requests)
    finally:
        tab.close()
    wait_until(lambda: site.server.app_pids() == [], what="the closed tab's app to end")


def test_every_page_carries_the_security_headers_and_names_no_other_host(site: Site) -> None:
    with urlopen(site.server.url) as response:
        headers, page = response.headers, response.read().decode()
    policy = headers["Content-Security-Policy"]
    assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy and "script-src 'self'" in policy
    assert "http" not in policy  # no host but this one
    assert headers["X-Frame-Options"] == "DENY" and headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "same-origin" and headers["Cache-Control"] == "no-store"
    assert "http://" not in page and "https://" not in page and 'name="csrf"' in page


def test_a_wrong_token_or_an_unknown_name_is_refused_and_the_failure_limit_holds(site: Site, browser: object) -> None:
    tab = BrowserApp(browser, site.server.url)
    try:
        assert "wrong name or secret" in tab.sign_in("dan", "not-the-token")
        assert "wrong name or secret" in tab.sign_in("mallory", site.tokens["dan"])  # unknown name
        assert "wrong name or secret" in tab.sign_in("ana", site.tokens["dan"])  # another's token
        for _ in range(4):
            tab.sign_in("dan", "guess")
        refused = tab.sign_in("dan", site.tokens["dan"])  # the right token, after 5 failures for dan
        assert "too many failed sign-ins" in refused
        tab.page.goto(site.server.url + "app")
        assert tab.page.url == site.server.url  # no session: back to the sign-in form
        assert site.server.app_pids() == []  # no app was started for any of these
    finally:
        tab.close()


def test_a_reviewer_cannot_reach_the_curator_app_or_its_screens(site: Site, browser: object) -> None:
    tab = BrowserApp(browser, site.server.url)
    try:
        assert "ana is not a curator" in tab.sign_in("ana", site.tokens["ana"], app="curator")
        assert "qaeval review · ana" in tab.sign_in("ana", site.tokens["ana"])
        tab.wait_for("item 2/")
        [pid] = site.server.app_pids()
        assert Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[-4:-3] == [b"review"]
        tab.keys("Control+p")
        tab.wait_for("Search for commands")
        tab.keys(*"calib", "Enter")
        tab.page.wait_for_timeout(1500)
        assert "Calibration" not in tab.text() and leaks(tab.text(), site.case_ids) == []
        status = tab.page.goto(site.server.url + "status")
        assert status is not None and status.status == 403
    finally:
        tab.close()
    wait_until(lambda: site.server.app_pids() == [], what="the closed tab's app to end")


def test_sign_out_ends_the_app_process(site: Site, browser: object) -> None:
    tab = BrowserApp(browser, site.server.url)
    try:
        tab.sign_in("ana", site.tokens["ana"])
        tab.wait_for("item 2/")
        [pid] = site.server.app_pids()
        tab.page.click("#sign-out")
        tab.page.wait_for_url(site.server.url)
        wait_until(lambda: not Path(f"/proc/{pid}").exists() or site.server.app_pids() == [], what="the app to end")
        assert site.server.app_pids() == []
        tab.page.goto(site.server.url + "app")
        assert tab.page.url == site.server.url
    finally:
        tab.close()


def test_a_closed_tab_ends_its_app_and_keeps_every_acknowledged_label(site: Site, browser: object) -> None:
    tab = BrowserApp(browser, site.server.url)
    tab.sign_in("ben", site.tokens["ben"])
    tab.wait_for("item 2/", "done 1/")
    tab.keys("1", "1", "1")
    tab.wait_for("(sees the gold answer)")
    tab.keys("Enter")
    tab.wait_for("item 3/", "done 2/")
    tab.keys("0", "0")  # scored, not submitted: dropped, as the leave dialog says
    [pid] = site.server.app_pids()
    tab.close()
    wait_until(lambda: site.server.app_pids() == [], what=f"app {pid} to end after its tab closed")
    assert site.labels("ben")[1:] == [{"faithfulness": 1, "citation_correctness": 1, "answer_correctness": 1}]


def test_a_curator_rules_on_a_disagreement_and_sees_who_is_signed_in(site: Site, browser: object) -> None:
    tab = BrowserApp(browser, site.server.url)
    try:
        assert "qaeval curate · cara" in tab.sign_in("cara", site.tokens["cara"], app="curator")
        tab.wait_for("qaeval curate", "Adjudicat")
        tab.keys("a")
        tab.wait_for("open disagreement")
        tab.keys("1")
        tab.wait_for("why this is the right label")
        tab.keys(*"both readings fit the anchor")
        tab.wait_for("both readings fit the anchor")
        tab.keys("Enter")
        tab.wait_for("1 settled")
        with Store.open(site.db) as store:
            assert len(store.adjudications()) == 1
        status = tab.context.new_page()
        status.goto(site.server.url + "status")
        assert "cara" in status.inner_text("table") and "qaeval curate" in status.inner_text("table")
    finally:
        tab.close()
    wait_until(lambda: site.server.app_pids() == [], what="the closed tab's app to end")


def test_a_server_restart_is_survived_like_a_store_outage(site: Site, browser: object) -> None:
    server = Server(site.root, ["--db", str(site.db), "--data", str(DEMO_GOLDEN)])
    port = int(server.url.rsplit(":", 1)[1].strip("/"))
    tab = BrowserApp(browser, server.url)
    try:
        tab.sign_in("ana", site.tokens["ana"])
        tab.wait_for("item 2/")
        assert server.stop() == 0  # Ctrl+C: every app asked to quit, and waited for
        assert server.app_pids() == []
        tab.page.wait_for_selector("body.-closed .ended", state="visible")
        server = Server(site.root, ["--db", str(site.db), "--data", str(DEMO_GOLDEN)], port=port)
        tab.screen.reset()
        assert "qaeval review · ana" in tab.sign_in("ana", site.tokens["ana"])
        tab.wait_for("item 2/", "done 1/")  # where she left off; her label kept
        assert len(site.labels("ana")) == 1
    finally:
        tab.close()
        server.stop()
