"""A store edited by hand: each command that meets the bad row stops with one line naming the store's
table, row and field (exit 2), never a traceback and never a figure computed from the bad value."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from qaeval_tui.cli.main import app
from tests.conftest import REPO
from tests.curation_fixtures import demo_copy

runner = CliRunner()


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    demo_copy(tmp_path)
    imported = runner.invoke(app, ["labels", "import", str(REPO / "labels")])
    assert imported.exit_code == 0, imported.output
    db = tmp_path / ".qaeval" / "qaeval.db"
    with sqlite3.connect(db) as conn:  # a hand edit: a label whose flag is a word, not 0 or 1
        conn.execute(
            """INSERT INTO labels (id, item_id, case_id, reviewer, revision, scores_json, note, flagged, skipped,
                                   rubric_version, revealed, created_at, seconds_spent, origin)
               SELECT 9999, item_id, case_id, 'zed', 1, scores_json, '', 'yes', 0, rubric_version, 0, created_at,
                      1.0, 'hand' FROM labels LIMIT 1"""
        )
    return db


@pytest.mark.parametrize(
    "command", [["agreement", "--json"], ["calibrate", "--json"], ["labels", "export", "--out", "exported"]]
)
def test_a_hand_edited_label_row_is_one_line_naming_it(store: Path, command: list[str]) -> None:
    result = runner.invoke(app, command)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and isinstance(result.exception, SystemExit), result.exception
    assert result.stdout == ""
    (line,) = result.stderr.strip().splitlines()
    assert "labels row 9999: flagged: holds 'yes', not 0 or 1" in line and str(store.name) in line, line
