"""The baseline reader takes no coercion: "true" and 1 are no `passed`, "3" no `top_k`, true no `version`.

A lax read gated against numbers the file does not hold (a `passed` of "false" read as True
hides a regression). Every structural problem is reported at once as `file:line: field: message`,
exit 2, before any case runs; the drift reader checks `version` by type too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from qaeval_tui.cli.main import app
from qaeval_tui.core.errors import InputError, UsageError
from qaeval_tui.core.gate.baseline import BaselineInputError, load_baseline
from qaeval_tui.core.statistics.drift import DRIFT_VERSION, read_timeseries
from tests.conftest import DEMO_GOLDEN, REPO

DEMO = json.loads((REPO / "baselines" / "demo.json").read_text(encoding="utf-8"))


def written(tmp_path: Path, document: dict[str, Any]) -> tuple[Path, list[str]]:
    path = tmp_path / "baseline.json"
    text = json.dumps(document, indent=2)
    path.write_text(text, encoding="utf-8")
    return path, text.splitlines()


def line_holding(lines: list[str], needle: str, occurrence: int = 0) -> int:
    return [number for number, line in enumerate(lines, 1) if needle in line][occurrence]


def edited(**changes: Any) -> dict[str, Any]:
    """The demo baseline with `case1_passed`, `top_k`, `version` replaced as given."""
    document = json.loads(json.dumps(DEMO))
    if "case1_passed" in changes:
        document["cases"][1]["passed"] = changes["case1_passed"]
    if "top_k" in changes:
        document["run"]["top_k"] = changes["top_k"]
    if "version" in changes:
        document["version"] = changes["version"]
    return document


@pytest.mark.parametrize("value", ["true", 1, 0, "false", None])
def test_passed_must_be_a_json_boolean(tmp_path: Path, value: object) -> None:
    path, lines = written(tmp_path, edited(case1_passed=value))
    with pytest.raises(BaselineInputError) as caught:
        load_baseline(path)
    [problem] = caught.value.problems
    assert (problem.path, problem.line, problem.field) == (
        str(path),
        line_holding(lines, '"passed"', 1),
        "cases[1].passed",
    )
    assert caught.value.exit_code == 2


@pytest.mark.parametrize("value", ["3", True, 3.0])
def test_top_k_must_be_a_json_integer(tmp_path: Path, value: object) -> None:
    path, lines = written(tmp_path, edited(top_k=value))
    with pytest.raises(BaselineInputError) as caught:
        load_baseline(path)
    [problem] = caught.value.problems
    assert (problem.line, problem.field) == (line_holding(lines, '"top_k"'), "run.top_k")


@pytest.mark.parametrize("value", [True, 1.0, "1"])
def test_the_version_is_checked_by_type(tmp_path: Path, value: object) -> None:
    path, _ = written(tmp_path, edited(version=value))
    with pytest.raises(UsageError, match=f"baseline version {value!r}, this qaeval reads version 1"):
        load_baseline(path)


def test_every_field_of_the_wrong_type_or_missing_is_reported_at_once_with_its_line(tmp_path: Path) -> None:
    document = edited(case1_passed="true", top_k="3")
    del document["cases"][3]["case_hash"]
    path, lines = written(tmp_path, document)
    with pytest.raises(BaselineInputError) as caught:
        load_baseline(path)
    assert {(p.line, p.field) for p in caught.value.problems} == {
        (line_holding(lines, '"top_k"'), "run.top_k"),
        (line_holding(lines, '"passed"', 1), "cases[1].passed"),
        (line_holding(lines, '"case_id"', 3) - 1, "cases[3].case_hash"),  # missing: the line opening its case
    }


def test_a_missing_judge_hash_a_repeated_case_id_and_a_bad_number_are_reported_together(tmp_path: Path) -> None:
    document = edited()
    document["run"]["judge"].pop("config_hash")
    document["cases"][5]["case_id"] = document["cases"][4]["case_id"]
    document["cases"][2]["values"]["mrr"] = 7.75
    path, lines = written(tmp_path, document)
    with pytest.raises(BaselineInputError) as caught:
        load_baseline(path)
    assert {(p.line, p.field) for p in caught.value.problems} == {
        (line_holding(lines, '"judge"'), "run.judge.config_hash"),
        (line_holding(lines, '"case_id"', 5), "cases[5].case_id"),
        (line_holding(lines, "7.75"), "cases[2].values.mrr"),
    }


def test_the_gate_refuses_a_coerced_baseline_before_running_anything(tmp_path: Path) -> None:
    path, lines = written(tmp_path, edited(case1_passed="true", top_k="3"))
    result = CliRunner().invoke(
        app, ["gate", "--data", str(DEMO_GOLDEN), "--baseline", str(path), "--db", str(tmp_path / "runs.db")]
    )
    assert result.exit_code == 2
    passed, top_k = line_holding(lines, '"passed"', 1), line_holding(lines, '"top_k"')
    assert result.stderr.splitlines() == [
        f"{path}:{top_k}: run.top_k: Input should be a valid integer",
        f"{path}:{passed}: cases[1].passed: Input should be a valid boolean",
        "error: 2 problem(s) in baseline; nothing was changed",
    ]
    assert result.stdout == "" and not (tmp_path / "runs.db").exists()


def test_a_drift_point_whose_version_is_true_is_a_located_error(tmp_path: Path) -> None:
    point = {"version": DRIFT_VERSION, "at": "t", "run_id": "r", "suite_hash": "s", "judge_config_hash": "j"}
    series = tmp_path / "series.jsonl"
    series.write_text(
        json.dumps({**point, "metrics": {}}) + "\n" + json.dumps({**point, "version": True, "metrics": {}}) + "\n"
    )
    with pytest.raises(InputError) as caught:
        read_timeseries(series)
    assert [(p.line, p.field, p.message) for p in caught.value.problems] == [(2, "version", "must be 1, got True")]
