"""Quitting `qaeval review` prints one line: what this session saved and what is left in the queue.
The real program, headless (Textual's screenshot hook quits it after a few seconds)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import DEMO_GOLDEN


def test_quitting_the_review_app_says_what_was_saved_and_what_is_left(tmp_path: Path) -> None:
    (tmp_path / "qaeval.toml").write_text("", encoding="utf-8")
    env = {
        **os.environ,
        "TEXTUAL_DRIVER": "textual.drivers.headless_driver:HeadlessDriver",
        "TEXTUAL_SCREENSHOT": "4",
        "TEXTUAL_SCREENSHOT_LOCATION": str(tmp_path),
        "QAEVAL_STATE_DIR": str(tmp_path / "state"),
    }
    env.pop("QAEVAL_REVIEWER", None)
    done = subprocess.run(
        [sys.executable, "-m", "qaeval_tui", "review", "--reviewer", "zoe", "--data", str(DEMO_GOLDEN), "--db", "s.db"],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert lines[-1] == "zoe: 0 label(s) saved this session, 0 skipped; 26 item(s) left in your queue"
