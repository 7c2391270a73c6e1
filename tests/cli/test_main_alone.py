"""`qaeval review` and `qaeval curate` start with only their own command built (cli/main.py: `_app_for`).

What a person sees must not depend on it: help, usage errors and exit codes are those of the whole app.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

# The console script's path (`run`), then the modules it loaded, on stderr's last line.
_CONSOLE = """
import json, sys
sys.argv = ["qaeval", *json.loads(sys.argv[1])]
from qaeval_tui.cli.main import run
try:
    run()
except SystemExit as exc:
    code = exc.code
print(f"\\nexit {code}", file=sys.stderr)
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""

# The whole app, as the tests' CliRunner and the supervised child build it.
_WHOLE = """
import json, sys
from qaeval_tui.cli.main import app
try:
    app(json.loads(sys.argv[1]), prog_name="qaeval")
except SystemExit as exc:
    code = exc.code
print(f"\\nexit {code}", file=sys.stderr)
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def _qaeval(script: str, args: list[str], cwd: Path) -> tuple[str, str, set[str]]:
    done = subprocess.run(
        [sys.executable, "-c", script, json.dumps(args)], cwd=cwd, capture_output=True, text=True, check=True
    )
    *said, modules = done.stderr.rstrip("\n").split("\n")
    return done.stdout, "\n".join(said), set(json.loads(modules))


@pytest.mark.parametrize(
    "args",
    [
        ["review", "--help"],
        ["curate", "--help"],
        ["--config", "none.toml", "review", "--help"],
        ["review", "--no-such-option"],
        ["curate", "--no-such-option"],
        ["review", "--reviewer", "two words"],
        ["--config", "missing.toml", "review"],
    ],
)
def test_a_command_built_alone_says_what_the_whole_app_says(tmp_path: Path, args: list[str]) -> None:
    alone_out, alone_err, alone_loaded = _qaeval(_CONSOLE, args, tmp_path)
    whole_out, whole_err, whole_loaded = _qaeval(_WHOLE, args, tmp_path)
    assert (alone_out, alone_err) == (whole_out, whole_err)
    assert alone_err.splitlines()[-1] != "exit 0" or "--help" in args  # each case ends as the CLI decided
    # Built alone, it skipped the other commands: their modules were never imported.
    assert "qaeval_tui.cli.run_cmds" in whole_loaded and "qaeval_tui.cli.run_cmds" not in alone_loaded


def test_other_commands_and_the_global_options_get_the_whole_app(tmp_path: Path) -> None:
    for args in (["--help"], ["--version"], ["validate", "--help"], ["--config=none.toml", "--help"]):
        alone_out, alone_err, alone_loaded = _qaeval(_CONSOLE, args, REPO)
        assert (alone_out, alone_err) == _qaeval(_WHOLE, args, REPO)[:2]
        assert "qaeval_tui.cli.run_cmds" in alone_loaded, args
