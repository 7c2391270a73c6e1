"""`agreement --json` and `calibrate --json` on the demo labels: byte for byte what the golden files hold.

The figures are seeded (bootstrap) and the labels are committed, so any difference is a change of
behaviour, not noise. Regenerate deliberately with QAEVAL_UPDATE_GOLDEN=1.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from qaeval_tui.cli.main import app
from tests.conftest import REPO

GOLDEN_FILES = Path(__file__).parent / "golden"
UPDATE = os.environ.get("QAEVAL_UPDATE_GOLDEN") == "1"


@pytest.mark.parametrize(("command", "exit_code"), [("agreement", 0), ("calibrate", 1)])
def test_the_demo_labels_give_the_golden_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str, exit_code: int
) -> None:
    # A folder with the demo labels and nothing else: no store, no config, a relative source path.
    shutil.copytree(REPO / "labels", tmp_path / "labels")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, [command, "--labels", "labels", "--json"])
    assert result.exit_code == exit_code, result.output
    golden = GOLDEN_FILES / f"{command}.json"
    if UPDATE:
        golden.write_text(result.stdout, encoding="utf-8")
    assert result.stdout == golden.read_text(encoding="utf-8"), f"{golden.name} changed"
