"""The README's drift example alarms on the demo, as it says, with every band inside [0, 1]."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from qaeval_tui.cli.main import app
from tests.conftest import REPO
from tests.test_docs import README

runner = CliRunner()


def drift_example() -> list[list[str]]:
    section = README.split("### `qaeval drift", 1)[1].split("\n### ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.DOTALL)
    assert block is not None, "the drift section has no example"
    commands = []
    for line in block.group(1).splitlines():
        if line.startswith("qaeval drift"):
            words = shlex.split(line.split("#", 1)[0])
            commands.append(words[1:])
    return commands


def test_the_readme_drift_example_alarms_on_the_demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "golden").symlink_to(REPO / "golden")
    (tmp_path / "qaeval.toml").write_text("", encoding="utf-8")
    steady, broken = drift_example()
    for _ in range(3):
        assert runner.invoke(app, steady).exit_code == 0
    alarmed = runner.invoke(app, [*broken, "--json"])
    assert alarmed.exit_code == 1, alarmed.output
    report = json.loads(alarmed.stdout)
    pass_rate = next(band for band in report["metrics"] if band["metric"] == "deterministic_pass_rate")
    assert pass_rate["state"] == "alarm" and (pass_rate["low"], pass_rate["high"]) == (0.98, 1.0)
    assert all(0 <= band["low"] <= band["high"] <= 1 for band in report["metrics"] if band["low"] is not None)
