"""`python -m scripts.browser_screenshot FOLDER`: the review app in a browser, as a PNG.

Builds the demo store for a roster of one reviewer, starts the real `qaeval serve` on it, signs in
with headless chromium (Debian's, through Playwright: nothing is downloaded) and saves
FOLDER/browser-review.png once the first item is on screen.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from qaeval_tui.core.config import load_config
from tests.conftest import DEMO_GOLDEN
from tests.tui.scenes.review import build_demo_store
from tests.web.browser import CHROMIUM, CHROMIUM_ARGS, BrowserApp, Server
from tests.web.test_serve_sqlite import issue_tokens

ROSTER = '[review]\nroster = [{name = "ana", roles = ["reviewer"]}]\n'


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m scripts.browser_screenshot FOLDER", file=sys.stderr)
        return 2
    out = Path(argv[0]).resolve() / "browser-review.png"
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="qaeval-browser-shot-") as tmp:
        root = Path(tmp)
        (root / "qaeval.toml").write_text(ROSTER, encoding="utf-8")
        build_demo_store(root / "qaeval.db", DEMO_GOLDEN, load_config(root / "qaeval.toml"), reviewers=("ana",))
        token = issue_tokens(root, root / "qaeval.db")["ana"]
        server = Server(root, ["--db", str(root / "qaeval.db"), "--data", str(DEMO_GOLDEN)])
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
                tab = BrowserApp(browser, server.url)
                tab.sign_in("ana", token)
                tab.wait_for("item 1/", "faithfulness", "answer_correctness")
                tab.page.wait_for_timeout(500)  # the last frame painted
                tab.page.screenshot(path=str(out))
                tab.close()
                browser.close()
        finally:
            server.stop()
    print(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
