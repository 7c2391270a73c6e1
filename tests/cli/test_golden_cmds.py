"""`qaeval validate`, `qaeval cases`, `--version`, and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from qaeval_tui import __version__
from qaeval_tui.cli.main import app
from tests.conftest import make_case, write_jsonl

runner = CliRunner()


def test_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.stdout.strip() == f"qaeval {__version__}"


def test_validate_valid_set_prints_counts_and_hash(golden_dir: Path) -> None:
    result = runner.invoke(app, ["validate", str(golden_dir)])
    assert result.exit_code == 0, result.output
    assert "3 cases in 2 file(s): valid" in result.stdout
    assert "frozen=2  living=1" in result.stdout
    assert "suite hash " in result.stdout


def test_validate_json(golden_dir: Path) -> None:
    result = runner.invoke(app, ["validate", str(golden_dir), "--json"])
    data = json.loads(result.stdout)
    assert data["valid"] is True and data["cases"] == 3 and data["counts"]["behavior"] == {"answer": 3}


def test_validate_invalid_lists_every_problem_exit_1(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "frozen.jsonl", [make_case("a", bogus=1), "nope", make_case("b", gold_source_ids=["x"])]
    )
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 1
    assert f"{path}:1: bogus: unknown field" in result.stderr
    assert f"{path}:2: (line): invalid JSON" in result.stderr
    assert f"{path}:3: gold_source_ids[0]: 'x' is not a source id of this case" in result.stderr
    assert "Traceback" not in result.output


def test_validate_missing_path_is_usage_exit_2(tmp_path: Path) -> None:
    result = runner.invoke(app, ["validate", str(tmp_path / "missing")])
    assert result.exit_code == 2 and "no such file or folder" in result.stderr


def test_invalid_config_exits_2(tmp_path: Path, golden_dir: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[calibration]\nmin_exact = 'high'\n")
    result = runner.invoke(app, ["--config", str(bad), "validate", str(golden_dir)])
    assert result.exit_code == 2 and "calibration.min_exact" in result.stderr


def test_cases_filters_and_json(golden_dir: Path) -> None:
    result = runner.invoke(app, ["cases", str(golden_dir), "--split", "living", "--json"])
    assert result.exit_code == 0
    rows = json.loads(result.stdout)
    assert [row["id"] for row in rows] == ["c3"] and rows[0]["split"] == "living"
    result = runner.invoke(app, ["cases", str(golden_dir), "--search", "SHIPPING TIME"])
    assert "c2" in result.stdout and "c1 " not in result.stdout and "1 of 3 cases" in result.stdout


def test_cases_bad_filter_value_exits_2(golden_dir: Path) -> None:
    result = runner.invoke(app, ["cases", str(golden_dir), "--difficulty", "hard"])
    assert result.exit_code == 2 and "--difficulty" in result.stderr


def test_cases_prints_data_literally(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "frozen.jsonl", [make_case("m1", question="[bold red]x[/] \x1b[2J why?")])
    result = runner.invoke(app, ["cases", str(path)])
    assert "[bold red]x[/] \\x1b[2J why?" in result.stdout
    assert "\x1b" not in result.stdout


def test_cases_on_an_invalid_set_lists_the_problems_and_exits_2(tmp_path: Path) -> None:
    # `cases` documents 0 and 2 only; an invalid set used to exit 1, a code it does not have.
    path = write_jsonl(tmp_path / "frozen.jsonl", [make_case("a"), make_case("b", gold_source_ids=["x"])])
    result = runner.invoke(app, ["cases", str(path)])
    assert result.exit_code == 2
    assert f"{path}:2: gold_source_ids[0]: 'x' is not a source id of this case" in result.stderr
    assert result.stdout == ""  # no partial listing
    assert runner.invoke(app, ["validate", str(path)]).exit_code == 1  # validate keeps its own 1
