"""`-` means stdout for every report option; a diagnostic is one line however long; a message offers
only what the field takes."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from qaeval_tui.cli.main import app
from qaeval_tui.core.config import Config
from qaeval_tui.core.errors import InputError
from qaeval_tui.core.review.labels_io import import_labels
from qaeval_tui.core.store.sqlite import Store
from tests.cli.test_label_export import add_labels
from tests.curation_fixtures import demo_copy
from tests.hostile import REVIEWERS

runner = CliRunner()
LONG = "reports/" + "a-folder-with-a-long-name/" * 4 + "artifact.json"  # well past 80 columns


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    demo_copy(tmp_path)
    return tmp_path


@pytest.fixture
def baseline(root: Path) -> Path:
    result = runner.invoke(app, ["baseline", "--db", "base.db", "--out", "base.json"])
    assert result.exit_code == 0, result.output
    return root / "base.json"


def ok(result: Result, code: int = 0) -> Result:
    assert result.exit_code == code, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


# -- one diagnostic, one line ---------------------------------------------------------------------------------


def test_a_long_diagnostic_is_one_line_in_a_log(root: Path) -> None:
    result = ok(runner.invoke(app, ["run", "--db", "q.db", "--out", LONG]))
    [line] = [line for line in result.stderr.splitlines() if "artifact written to" in line]
    assert line.endswith(f"; artifact written to {LONG}")


def test_a_long_report_notice_is_one_line_in_a_log(root: Path) -> None:
    add_labels(root / "q.db", *REVIEWERS)
    target = LONG.replace(".json", ".md")
    result = ok(runner.invoke(app, ["agreement", "--db", "q.db", "--markdown", target]))
    assert f"Markdown report written to {target}" in result.stderr.splitlines()


# -- `-` is stdout -------------------------------------------------------------------------------------------


def test_run_out_dash_writes_the_artifact_to_stdout(root: Path) -> None:
    result = ok(runner.invoke(app, ["run", "--db", "q.db", "--out", "-"]))
    assert json.loads(result.stdout)["format"] == "qaeval-run"  # stdout is the artifact alone, no scoreboard
    assert "artifact written to stdout" in result.stderr
    assert not (root / "-").exists()


def test_baseline_out_dash_writes_the_baseline_to_stdout(root: Path) -> None:
    result = ok(runner.invoke(app, ["baseline", "--db", "q.db", "--out", "-"]))
    assert json.loads(result.stdout)["format"] == "qaeval-baseline"
    assert "baseline written to stdout" in result.stderr
    assert not (root / "-").exists()


@pytest.mark.parametrize("option", ["--markdown", "--junit", "--out"])
def test_gate_reports_to_dash_go_to_stdout(root: Path, baseline: Path, option: str) -> None:
    result = ok(runner.invoke(app, ["gate", "--baseline", str(baseline), "--db", "q.db", option, "-"]))
    if option == "--markdown":
        assert "PASS" in result.stdout and "|" in result.stdout
    elif option == "--junit":
        assert ET.fromstring(result.stdout).tag in ("testsuites", "testsuite")
    else:
        assert json.loads(result.stdout)["format"] == "qaeval-run"
    assert "GATE: PASS" in result.stderr  # the verdict still reaches the log
    assert not (root / "-").exists()


@pytest.mark.parametrize(
    "args",
    [
        ["--markdown", "-", "--json"],
        ["--markdown", "-", "--junit", "-"],
        ["--out", "-", "--markdown", "-"],
    ],
)
def test_two_reports_on_stdout_are_refused_before_the_run(root: Path, baseline: Path, args: list[str]) -> None:
    result = ok(runner.invoke(app, ["gate", "--baseline", str(baseline), "--db", "run.db", *args]), 2)
    assert "write to stdout; send all but one to a file" in result.stderr
    assert not (root / "run.db").exists() and not (root / "-").exists()


def test_run_out_dash_with_json_is_refused(root: Path) -> None:
    result = ok(runner.invoke(app, ["run", "--db", "run.db", "--out", "-", "--json"]), 2)
    assert "--json and --out - all write to stdout" in result.stderr
    assert not (root / "run.db").exists()


def test_labels_export_to_dash_is_refused_not_a_folder_named_dash(root: Path) -> None:
    add_labels(root / "q.db", "ana")
    result = ok(runner.invoke(app, ["labels", "export", "--db", "q.db", "--out", "-"]), 2)
    assert "--out -: an export is a folder" in result.stderr
    assert not (root / "-").exists()


# -- wording ---------------------------------------------------------------------------------------------------


def test_a_non_finite_seconds_spent_is_not_told_it_may_be_null(root: Path) -> None:
    line = {
        "item_id": "i", "case_id": "c", "reviewer": "ana", "scores": {"faithfulness": 2}, "note": "",
        "flagged": False, "skipped": False, "rubric_version": "1", "revealed": False, "revision": 1,
        "created_at": "2026-01-01T00:00:00Z", "seconds_spent": 1.0,
    }  # fmt: skip
    (root / "ana.jsonl").write_text(json.dumps(line).replace('"seconds_spent": 1.0', '"seconds_spent": NaN') + "\n")
    with Store.open(root / "q.db") as store, pytest.raises(InputError) as caught:
        import_labels(store, [root / "ana.jsonl"], Config().rubric)
    [problem] = caught.value.problems
    assert problem.field == "seconds_spent"
    message = problem.message
    assert "write a finite number" in message
    assert "null" not in message
