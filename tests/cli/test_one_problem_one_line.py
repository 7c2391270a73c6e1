"""One problem, one line on stderr: a newline inside data (a CSV column, a score key, a judge's
error text) must not print a second line that reads like another problem, or like the verdict."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from qaeval_tui.cli.main import app
from qaeval_tui.core.errors import Problem
from tests.conftest import REPO

runner = CliRunner()
FORGED = "faith\nerror: 0 problem(s); nothing is wrong"


def test_a_problem_prints_on_one_line_whatever_its_data_holds() -> None:
    text = str(Problem("a\nb.jsonl", 3, FORGED, "bad\r\nvalue"))
    assert "\n" not in text and "\r" not in text
    assert text.startswith("a b.jsonl:3: faith error: 0 problem(s)")


def test_a_score_key_with_a_newline_cannot_forge_an_error_line(tmp_path: Path) -> None:
    record = json.loads((REPO / "labels" / "ana.jsonl").read_text(encoding="utf-8").splitlines()[0])
    record["scores"][FORGED] = 1
    labels = tmp_path / "ana.jsonl"
    labels.write_text(json.dumps(record) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["agreement", "--labels", str(labels)])
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 2, lines  # the problem, then the one summary line
    assert lines[0].startswith(f"{labels}:1: scores.faith error: 0 problem(s)")
    assert lines[1] == "error: 1 problem(s) in label files; nothing was changed"
