"""`qaeval labels check|quarantine`: a bad stored label row is listed, quarantined by a curator, and
every statistic and export then leaves it out and says so (exit codes as documented)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from qaeval_tui.cli.main import app
from tests.conftest import REPO
from tests.curation_fixtures import demo_copy

runner = CliRunner()
BAD = 9999


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    demo_copy(tmp_path)
    assert runner.invoke(app, ["labels", "import", str(REPO / "labels")]).exit_code == 0
    db = tmp_path / ".qaeval" / "qaeval.db"
    with sqlite3.connect(db) as conn:  # a stray row: an off-scale score beside hundreds of good ones
        conn.execute(
            f"""INSERT INTO labels (id, item_id, case_id, reviewer, revision, scores_json, note, flagged, skipped,
                                    rubric_version, revealed, created_at, seconds_spent, origin)
                SELECT {BAD}, item_id, case_id, 'zed', 1, '{{"faithfulness": 9}}', '', 0, 0, rubric_version, 0,
                       created_at, 1.0, 'hand' FROM labels LIMIT 1"""
        )
    return db


@pytest.mark.parametrize("command", [["agreement"], ["calibrate"], ["labels", "export", "--out", "exported"]])
def test_a_statistic_names_the_bad_row_and_the_quarantine_never_the_rubric(store: Path, command: list[str]) -> None:
    result = runner.invoke(app, command)
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit) and result.stdout == ""
    assert f"labels row {BAD}: scores.faithfulness: 9 is not on the faithfulness scale" in result.stderr
    assert "qaeval labels quarantine ID --reason TEXT" in result.stderr and "bump" not in result.stderr
    assert not Path("exported", "zed.jsonl").exists()


def test_check_lists_it_quarantine_records_it_and_the_figures_count_it(store: Path) -> None:
    check = runner.invoke(app, ["labels", "check", "--json"])
    assert check.exit_code == 1, check.output
    found = json.loads(check.stdout)
    assert [(row["row_id"], row["field"]) for row in found["bad"]] == [(BAD, "scores.faithfulness")]
    assert found["quarantined"] == []

    good = runner.invoke(app, ["labels", "quarantine", "1", "--reason", "I disagree", "--curator", "dana"])
    assert good.exit_code == 2 and "nothing is wrong with it" in good.stderr
    done = runner.invoke(app, ["labels", "quarantine", str(BAD), "--reason", "typed by hand", "--curator", "dana"])
    assert done.exit_code == 0, done.output
    assert f"quarantined label row {BAD} by dana" in done.stdout
    again = runner.invoke(app, ["labels", "quarantine", str(BAD), "--reason", "again", "--curator", "eve"])
    assert again.exit_code == 2 and "already quarantined by dana" in again.stderr

    clean = runner.invoke(app, ["labels", "check"])
    assert clean.exit_code == 0 and "0 problem(s) in 0 label row(s); 1 row(s) quarantined" in clean.stdout
    agreement = runner.invoke(app, ["agreement"])
    assert agreement.exit_code == 0, agreement.output
    assert "1 quarantined label row(s) left out" in agreement.stdout
    as_json = json.loads(runner.invoke(app, ["agreement", "--json"]).stdout)
    assert as_json["labels"]["quarantined_excluded"] == 1
    verdicts = str(REPO / "labels" / "judge-verdicts.jsonl")
    calibrate = runner.invoke(app, ["calibrate", "--verdicts", verdicts, "--markdown", "report.md"])
    assert calibrate.exit_code in (0, 1, 3), calibrate.output
    assert "1 quarantined label row(s) left out" in Path("report.md").read_text(encoding="utf-8")
    exported = runner.invoke(app, ["labels", "export", "--out", "exported"])
    assert exported.exit_code == 0 and "1 quarantined label row(s) left out" in exported.stderr
    assert not Path("exported", "zed.jsonl").exists()


def test_quarantine_needs_a_store_a_reason_and_a_curator(tmp_path: Path, store: Path) -> None:
    missing = runner.invoke(app, ["labels", "check", "--db", str(tmp_path / "none.db")])
    assert missing.exit_code == 2
    blank = runner.invoke(app, ["labels", "quarantine", str(BAD), "--reason", " ", "--curator", "dana"])
    assert blank.exit_code == 2 and "non-blank reason" in blank.stderr
    nobody = runner.invoke(app, ["labels", "quarantine", str(BAD), "--reason", "x", "--curator", ""])
    assert nobody.exit_code == 2 and "--curator" in nobody.stderr
