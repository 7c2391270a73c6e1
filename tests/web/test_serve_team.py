"""`qaeval serve` on a team store (PostgreSQL), in a real browser: people sign in with their own
login and password, two at once, and each app process runs as its person's login.

The server is given the store's address only (no credentials of its own): every connection an app
makes is its person's, so the database's row security holds in the browser as over `psql`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from qaeval_tui.core.config import Config
from qaeval_tui.core.store.copy import copy_store
from qaeval_tui.core.store.opening import open_store
from qaeval_tui.core.store.pg_team import add_member, init_team
from qaeval_tui.core.store.sqlite import Store
from tests.conftest import DEMO_GOLDEN
from tests.pg.server import PgServer
from tests.pg.team_helpers import TeamStore, migrate, secured_store
from tests.tui.scenes.review import build_demo_store
from tests.web.browser import BrowserApp, Server, browser, wait_until

__all__ = ["browser"]  # the module's chromium


@dataclass
class TeamSite:
    team: TeamStore
    server: Server
    passwords: dict[str, str]  # base name -> password
    names: dict[str, str]  # base name -> login

    def labels(self, base: str) -> list[dict[str, int | None]]:
        with open_store(self.team.owner_url) as store:
            return [row.label.scores for row in store.labels(reviewer=self.names[base])]


@pytest.fixture(scope="module")
def team_site(pg_server: PgServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TeamSite]:
    root = tmp_path_factory.mktemp("team-serve")
    owner_url = pg_server.new_database()
    secured = secured_store(pg_server, owner_url)
    team = next(secured)
    names = {base: team.name(base) for base in ("ana", "ben", "cara")}
    build_demo_store(root / "demo.db", DEMO_GOLDEN, Config(), reviewers=(names["ana"], names["ben"]))
    with Store.open(root / "demo.db") as source, open_store(owner_url) as target:
        copy_store(source, target)
    passwords = {}
    for base, role in (("ana", "reviewer"), ("ben", "reviewer"), ("cara", "curator")):
        passwords[base] = unquote(urlsplit(team.login(base, role)).password or "")
    where = urlsplit(owner_url)
    address_only = f"postgresql://{where.hostname}:{where.port}{where.path}"  # no login, no password
    server = Server(root, ["--db", address_only, "--data", str(DEMO_GOLDEN)])
    try:
        yield TeamSite(team, server, passwords, names)
    finally:
        assert server.stop() == 0
        with contextlib.suppress(StopIteration):
            next(secured)
        pg_server.drop_database(owner_url)


def logins_connected(site: TeamSite) -> set[str]:
    database = urlsplit(site.team.owner_url).path.lstrip("/")
    with site.team.owner() as conn:
        rows = conn.execute("SELECT usename FROM pg_stat_activity WHERE datname = %s", (database,)).fetchall()
    return {str(row[0]) for row in rows}


def test_two_people_label_at_once_each_as_their_own_login(team_site: TeamSite, browser: object) -> None:
    site = team_site
    ana, ben = BrowserApp(browser, site.server.url), BrowserApp(browser, site.server.url)
    try:
        assert f"qaeval review · {site.names['ana']}" in ana.sign_in(site.names["ana"], site.passwords["ana"])
        assert f"qaeval review · {site.names['ben']}" in ben.sign_in(site.names["ben"], site.passwords["ben"])
        ana.wait_for("item 1/", "faithfulness")
        ben.wait_for("item 1/", "faithfulness")
        pids = site.server.app_pids()
        assert len(pids) == 2
        for pid in pids:  # the password is in the app's environment, never on its command line
            assert site.passwords["ana"].encode() not in Path(f"/proc/{pid}/cmdline").read_bytes()
            assert site.passwords["ben"].encode() not in Path(f"/proc/{pid}/cmdline").read_bytes()
        assert {site.names["ana"], site.names["ben"]} <= logins_connected(site)
        ana.keys("2", "1", "0")
        ben.keys("0", "1", "2")
        ana.wait_for("(sees the gold answer)")
        ben.wait_for("(sees the gold answer)")
        ana.keys("Enter")
        ben.keys("Enter")
        ana.wait_for("item 2/", "done 1/")
        ben.wait_for("item 2/", "done 1/")
        assert site.labels("ana") == [{"faithfulness": 2, "citation_correctness": 1, "answer_correctness": 0}]
        assert site.labels("ben") == [{"faithfulness": 0, "citation_correctness": 1, "answer_correctness": 2}]
    finally:
        ana.close()
        ben.close()
    wait_until(lambda: site.server.app_pids() == [], what="both apps to end")


def test_a_wrong_password_the_owner_and_a_reviewer_asking_for_the_curator_app_are_refused(
    team_site: TeamSite, pg_server: PgServer, browser: object
) -> None:
    site = team_site
    tab = BrowserApp(browser, site.server.url)
    try:
        assert "wrong name or secret" in tab.sign_in(site.names["ana"], "not-her-password")
        assert "wrong name or secret" in tab.sign_in("nobody_here", "whatever")
        owner = tab.sign_in("postgres", pg_server.password, app="curator")  # a superuser: not through here
        assert "not a member of this team store" in owner
        elsewhere = pg_server.new_database()  # another team's store on the same server
        migrate(elsewhere)
        init_team(elsewhere)
        stranger = add_member(elsewhere, site.team.name("eve"), ["reviewer"])
        site.team.made.append(stranger.name)
        password = unquote(urlsplit(stranger.url).password or "")
        assert "not a member of this team store" in tab.sign_in(stranger.name, password)
        pg_server.drop_database(elsewhere)
        asked = tab.sign_in(site.names["ana"], site.passwords["ana"], app="curator")
        assert f"{site.names['ana']} is not a curator" in asked
        assert site.server.app_pids() == []
    finally:
        tab.close()


def test_a_curator_opens_the_curator_app_and_the_status_page(team_site: TeamSite, browser: object) -> None:
    site = team_site
    tab = BrowserApp(browser, site.server.url)
    try:
        tab.sign_in(site.names["cara"], site.passwords["cara"], app="curator")
        tab.wait_for("qaeval curate", "Adjudicat")
        assert site.names["cara"] in logins_connected(site)
        status = tab.context.new_page()
        status.goto(site.server.url + "status")
        assert site.names["cara"] in status.inner_text("table")
        # queue progress, read as cara's own login (row security lets a curator read every queue),
        # matches what the owner reads
        with open_store(site.team.owner_url) as store:
            expected = [
                [name, str(len(done)), str(store.queue_length(name))]
                for name in sorted({entry.reviewer for entry in store.assignments()})
                for done in [{r.label.item_id for r in store.labels(reviewer=name) if not r.label.skipped}]
            ]
        rows = [line.split("\t")[:3] for line in status.inner_text("#progress tbody").splitlines() if line.strip()]
        assert rows == expected
        assert any(row[2] != "0" for row in rows)
    finally:
        tab.close()
    wait_until(lambda: site.server.app_pids() == [], what="the curator's app to end")
