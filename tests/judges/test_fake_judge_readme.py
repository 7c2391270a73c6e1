"""The README's offline model judge works as written: `python -m tests.llm_server` in a process of its
own, the README's `[judge]` table with the printed port, and `qaeval run` asks it for every case."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import DEMO_GOLDEN, REPO
from tests.test_docs import README


def readme_judge_table() -> str:
    section = README.split("**Try it offline.**", 1)[1]
    block = re.search(r"```toml\n(.*?)```", section, re.DOTALL)
    assert block is not None
    return block.group(1)


def test_the_readme_fake_judge_answers_a_run_of_the_demo(tmp_path: Path) -> None:
    server = subprocess.Popen(
        [sys.executable, "-m", "tests.llm_server"], cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        port = url.rsplit(":", 1)[1].split("/")[0]
        (tmp_path / "qaeval.toml").write_text(readme_judge_table().replace("PORT", port), encoding="utf-8")
        env = {**os.environ, "FAKE_JUDGE_KEY": "local"}
        done = subprocess.run(
            [sys.executable, "-m", "qaeval_tui", "run", "--data", str(DEMO_GOLDEN), "--db", "s.db", "--json"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(timeout=30)
    assert done.returncode == 0, done.stderr
    run = json.loads(done.stdout)["run"]
    assert run["judge_errors"] == 0 and run["judge_calls"]["calls"] == 39
