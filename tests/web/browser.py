"""A real browser on a real `qaeval serve`: Debian's chromium driven by Playwright, and the server
as a subprocess (`python -m qaeval_tui serve --port 0`), exactly as a person starts it.

Playwright is pointed at /usr/bin/chromium and downloads nothing. What the app draws is read from
the websocket frames the browser received, replayed into a terminal emulator (pyte) at the size
the browser asked for: the text on screen, not the canvas pixels.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pyte
import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
VIEWPORT = {"width": 1280, "height": 800}
os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless chromium for a module's tests (each test opens contexts of its own: fresh cookies).
    Playwright starts it with a fresh, temporary user-data-dir of its own and removes it after."""
    from playwright.sync_api import sync_playwright

    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install chromium (.ci/run installs it)", pytrace=False)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            yield launched
        finally:
            launched.close()


class Server:
    """`qaeval serve` in a subprocess; `url` once it listens. Its stderr is collected in `log`."""

    def __init__(self, cwd: Path, args: Sequence[str], port: int = 0) -> None:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        for variable in ("QAEVAL_REVIEWER", "QAEVAL_DB", "QAEVAL_CURATOR"):
            env.pop(variable, None)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "qaeval_tui", "serve", "--port", str(port), *args],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.process.stderr is not None
        first = self.process.stderr.readline()
        found = re.search(r"http://\S+/", first)
        if found is None:
            self.process.kill()
            raise AssertionError(f"qaeval serve did not start: {first}{self.process.stderr.read()}")
        self.url = found.group(0)
        self.log: list[str] = [first]
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _drain(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.log.append(line)

    def app_pids(self) -> list[int]:
        """The app processes the server runs now (its children)."""
        return children(self.process.pid)

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        code = self.process.wait(timeout=60)
        self._reader.join(timeout=10)  # everything it wrote is in `log`
        return code


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(entry.name))
    return found


def wait_until(check: Any, timeout: float = 20.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or check}")
        time.sleep(0.05)


class BrowserApp:
    """One person's tab: signs in, then reads the app's screen and types into it."""

    def __init__(self, browser: Any, url: str) -> None:
        self.url = url
        self.context = browser.new_context(viewport=VIEWPORT)
        self.page = self.context.new_page()
        self.requests: list[str] = []
        self.page.on("request", lambda request: self.requests.append(request.url))
        self.screen = pyte.Screen(80, 24)
        self.stream = pyte.ByteStream(self.screen)
        self.page.on("websocket", self._attach)

    def _attach(self, ws: Any) -> None:
        def sent(payload: str | bytes) -> None:
            if isinstance(payload, str) and payload.startswith('["resize"'):
                size = json.loads(payload)[1]
                self.screen.resize(size["height"], size["width"])

        ws.on("framesent", sent)
        ws.on("framereceived", lambda payload: self.stream.feed(payload) if isinstance(payload, bytes) else None)

    def sign_in(self, name: str, secret: str, app: str = "reviewer") -> str:
        """Fill and send the sign-in form; the text of the page it leads to."""
        self.page.goto(self.url)
        self.page.fill("input[name=name]", name)
        self.page.fill("input[name=secret]", secret)
        self.page.check(f"input[name=app][value={app}]")
        self.page.click("button[type=submit]")
        self.page.wait_for_load_state()
        return str(self.page.inner_text("body"))

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def wait_for(self, *words: str, timeout: float = 30.0) -> str:
        """Let the page run until every word is on the app's screen; that screen."""
        deadline = time.monotonic() + timeout
        while not all(word in self.text() for word in words):
            if time.monotonic() > deadline:
                raise AssertionError(f"never on screen: {words}\n{self.text()}")
            self.page.wait_for_timeout(40)  # the sync API delivers frames while it waits
        return self.text()

    def keys(self, *keys: str) -> None:
        """Type into the terminal (xterm's input element has the focus, as after a click)."""
        self.page.focus("textarea.xterm-helper-textarea")
        for key in keys:
            self.page.keyboard.press(key)

    def close(self) -> None:
        self.context.close()
