"""Issue 23: the apps in a browser (`qaeval serve`), measured in Debian's headless chromium.

- keystroke -> screen updated, p95, for submit -> next item: timed inside the page, from the Enter
  keydown to the animation frame in which the terminal paints the websocket message that carries
  the next item's header; beside it the same submit -> next item in the terminal (in process, the
  review TUI benchmark's method) on the same store.
- memory: the proportional set size (PSS: pages shared between processes split among them) of a
  signed-in person's app process, alone and with 20 people signed in at once (per session, total).
- sign-in -> first item: from the click on "Sign in" to the first item on the page's screen.

The store is the demo set queued for 20 reviewers of a roster; the server is the real
`qaeval serve`, started as a person starts it.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import pty
import re
import select
import statistics
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path
from typing import Any

from benchmarks import Figure
from benchmarks.tui_latency import latencies as _latencies
from benchmarks.tui_latency import p95 as _p95
from qaeval_tui.core.config import load_config
from tests.conftest import DEMO_GOLDEN
from tests.tui.scenes.review import build_demo_store
from tests.web.browser import CHROMIUM, CHROMIUM_ARGS, BrowserApp, Server, wait_until
from tests.web.test_serve_sqlite import issue_tokens

PEOPLE = [f"r{n:02d}" for n in range(1, 21)]
SUBMITS, SIGN_INS = 30, 5
LATENCY_MS, SESSION_MB, FIRST_ITEM_S = 150.0, 150.0, 3.0

TIMING = r"""
(() => {
  const Native = window.WebSocket;
  const decoder = new TextDecoder();
  const timing = (window.__qaeval = { want: null, seen: "", keydown: 0, shown: [], arrived: [] });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Enter") timing.keydown = performance.now();
  }, true);
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => {
        if (timing.want === null || typeof event.data === "string") return;
        timing.seen += decoder.decode(event.data, { stream: true });  // a header may span two messages
        if (!timing.seen.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "").includes(timing.want)) return;
        timing.want = null;
        timing.seen = "";
        const pressed = timing.keydown;
        timing.arrived.push(performance.now() - pressed);
        requestAnimationFrame(() => timing.shown.push(performance.now() - pressed));
      });
    }
  };
})();
"""
"""Installed before the page's own scripts: textual-serve's client then opens its websocket through it."""


def _pss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no Pss for process {pid}")


def _submit_latencies(tab: BrowserApp, submits: int) -> list[float]:
    tab.page.evaluate("window.__qaeval.shown = []")
    for n in range(1, submits + 1):
        tab.wait_for(f"item {n}/", f"done {n - 1}/")
        tab.keys("2", "1", "0")
        tab.wait_for("(sees the gold answer)")
        tab.page.evaluate(f"window.__qaeval.seen = ''; window.__qaeval.want = 'item {n + 1}/'")
        tab.keys("Enter")
        deadline = time.monotonic() + 30
        while tab.page.evaluate("window.__qaeval.shown.length") < n:  # the page's CSP forbids wait_for_function
            if time.monotonic() > deadline:
                raise RuntimeError(f"item {n + 1} never reached the screen:\n{tab.text()}")
            tab.page.wait_for_timeout(10)
    arrived = tab.page.evaluate("window.__qaeval.arrived")
    print(json.dumps({"message_arrived_ms": [round(ms, 1) for ms in arrived]}), flush=True)
    return [ms / 1000 for ms in tab.page.evaluate("window.__qaeval.shown")]


def _measure(browser: Any, server: Server, tokens: dict[str, str]) -> dict[str, Any]:
    first_item = []
    for name in PEOPLE[:SIGN_INS]:
        tab = BrowserApp(browser, server.url)
        tab.page.goto(server.url)
        tab.page.fill("input[name=name]", name)
        tab.page.fill("input[name=secret]", tokens[name])
        started = time.perf_counter()
        tab.page.click("button[type=submit]")
        tab.wait_for("item 1/", "faithfulness")
        first_item.append(time.perf_counter() - started)
        tab.close()
        wait_until(lambda: server.app_pids() == [], 30, "the app to end")

    tabs = []
    for name in PEOPLE:
        tab = BrowserApp(browser, server.url)
        tab.sign_in(name, tokens[name])
        tab.wait_for("item 1/", "faithfulness", timeout=60)
        tabs.append(tab)
        if len(tabs) == 1:
            [alone] = [_pss_mb(pid) for pid in server.app_pids()]
    together = [_pss_mb(pid) for pid in server.app_pids()]
    if len(together) != len(PEOPLE):
        raise RuntimeError(f"expected {len(PEOPLE)} app processes, found {len(together)}")
    for tab in tabs[1:]:
        tab.close()
    tabs[0].close()
    wait_until(lambda: server.app_pids() == [], 60, "the apps to end")
    return {"first_item": first_item, "alone": alone, "together": together}


def _timed_submits(browser: Any, workdir: Path) -> tuple[list[float], Path]:
    """One reviewer with the whole demo queue (a roster of one), on a store and server of its own."""
    (workdir / "qaeval.toml").write_text('[review]\nroster = [{name = "ana", roles = ["reviewer"]}]\n', "utf-8")
    db = workdir / "qaeval.db"
    build_demo_store(db, DEMO_GOLDEN, load_config(workdir / "qaeval.toml"), reviewers=("ana",))
    token = issue_tokens(workdir, db)["ana"]
    server = Server(workdir, ["--db", str(db), "--data", str(DEMO_GOLDEN)])
    try:
        timed = BrowserApp(browser, server.url)
        timed.context.add_init_script(TIMING)
        timed.sign_in("ana", token)
        latencies = _submit_latencies(timed, SUBMITS)
        timed.close()
    finally:
        server.stop()
    return latencies, db


_ESCAPES = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]")


def _terminal_latencies(db: Path, cwd: Path, submits: int) -> list[float]:
    """The same submit -> next item in a terminal: the real `qaeval review` in a pseudo-terminal of
    140x36 cells (the browser's size), timed from writing Enter to reading the next item's header."""
    cwd.mkdir()
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 36, 140, 0, 0))
    env = {**os.environ, "QAEVAL_DB": str(db), "QAEVAL_REVIEWER": "terminal", "TERM": "xterm-256color"}
    app = subprocess.Popen(
        [sys.executable, "-m", "qaeval_tui", "review", "--data", str(DEMO_GOLDEN)],
        stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=env, start_new_session=True,
    )  # fmt: skip
    os.close(slave)
    seen = b""

    def read_until(word: str, timeout: float = 60.0) -> None:
        nonlocal seen
        deadline = time.monotonic() + timeout
        while word.encode() not in _ESCAPES.sub(b"", seen):
            ready, _, _ = select.select([master], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                raise RuntimeError(f"the terminal never showed {word!r}")
            seen += os.read(master, 1 << 16)

    def drain(seconds: float) -> None:
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            if select.select([master], [], [], left)[0]:
                os.read(master, 1 << 16)

    latencies = []
    try:
        read_until("item 1/")
        total = re.search(rb"item 1/(\d+)", _ESCAPES.sub(b"", seen))
        queue = int(total.group(1)) if total else submits + 1
        for n in range(1, min(submits, queue - 1) + 1):
            for key in b"210":
                os.write(master, bytes([key]))
                drain(0.05)
            drain(0.3)
            seen = b""
            started = time.perf_counter()
            os.write(master, b"\r")
            read_until(f"item {n + 1}/")
            latencies.append(time.perf_counter() - started)
            drain(0.2)
        os.write(master, b"\x11")  # ctrl+q
        app.wait(timeout=30)
    finally:
        if app.poll() is None:
            app.kill()
            app.wait()
        os.close(master)
    return latencies


def run(workdir: Path) -> list[Figure]:
    from playwright.sync_api import sync_playwright

    team, alone = workdir / "team", workdir / "alone"
    team.mkdir()
    alone.mkdir()
    roster = ", ".join(f'{{name = "{name}", roles = ["reviewer"]}}' for name in PEOPLE)
    (team / "qaeval.toml").write_text(f"[review]\nroster = [{roster}]\n", encoding="utf-8")
    build_demo_store(team / "qaeval.db", DEMO_GOLDEN, load_config(team / "qaeval.toml"), reviewers=PEOPLE)
    tokens = issue_tokens(team, team / "qaeval.db")
    server = Server(team, ["--db", str(team / "qaeval.db"), "--data", str(DEMO_GOLDEN)])
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            try:
                measured = _measure(browser, server, tokens)
            finally:
                server.stop()
            in_browser, db = _timed_submits(browser, alone)
        finally:
            browser.close()
    terminal = _terminal_latencies(db, workdir / "terminal", SUBMITS)  # a newcomer: the whole queue
    in_process = asyncio.run(_latencies(db, DEMO_GOLDEN, "in-process", measured=SUBMITS))
    together = measured["together"]
    per_session, total = statistics.mean(together), sum(together)
    first = statistics.median(measured["first_item"])
    print(json.dumps({"browser_ms": [round(1000 * v, 1) for v in in_browser], "pss_mb": together}), flush=True)
    return [
        Figure(
            f"browser: submit -> next item on screen, p95 of {SUBMITS}", 1000 * _p95(in_browser), "ms",
            f"<= {LATENCY_MS:.0f} ms", _p95(in_browser) * 1000 <= LATENCY_MS,
        ),
        Figure(
            f"  the same in a terminal (qaeval review in a pty), p95 of {SUBMITS}", 1000 * _p95(terminal), "ms",
            "(reference)", True,
        ),
        Figure(
            f"  the same in process (no output drawn), p95 of {SUBMITS}", 1000 * _p95(in_process), "ms",
            "(reference)", True,
        ),
        Figure("browser: memory of one session's app (PSS)", measured["alone"], "MB",
               f"<= {SESSION_MB:.0f} MB", measured["alone"] <= SESSION_MB),
        Figure(f"browser: memory per session, {len(together)} signed in at once (PSS, mean)", per_session, "MB",
               f"<= {SESSION_MB:.0f} MB", per_session <= SESSION_MB),
        Figure(f"  all {len(together)} app processes together (PSS)", total, "MB", "(reported)", True),
        Figure(f"browser: sign-in -> first item, median of {SIGN_INS}", first, "s",
               f"<= {FIRST_ITEM_S:.0f} s", first <= FIRST_ITEM_S),
    ]  # fmt: skip
