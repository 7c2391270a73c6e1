"""`qaeval verdicts import`: another judge's scores, on its own scale, calibrated like any judge.

The demo's committed verdicts are rewritten as a foreign judge's CSV on a 1..5 scale (0 -> 1,
1 -> 3, 2 -> 5) and imported with `--values` mapping them back: calibrating the imported judge
must then give exactly the figures of the original judge on the same labels. A value off the
scale is a located problem and nothing is written.
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from qaeval_tui.cli.main import app
from tests.conftest import REPO

runner = CliRunner()
AXES = ("faithfulness", "citation_correctness", "answer_correctness")
TO_FIVE = {0: 1, 1: 3, 2: 5}
VALUES = [f"--values={axis}:1=0,3=1,5=2" for axis in AXES]


def qaeval(tmp_path: Path, *args: str) -> Result:
    config = tmp_path / "qaeval.toml"
    if not config.exists():
        config.write_text("", encoding="utf-8")  # defaults; the store would be in tmp_path, and there is none
    return runner.invoke(app, ["--config", str(config), *args])


def labels_only(tmp_path: Path) -> Path:
    folder = tmp_path / "labels"
    folder.mkdir()
    for path in (REPO / "labels").glob("*.jsonl"):
        if path.name != "judge-verdicts.jsonl":
            shutil.copy(path, folder / path.name)
    return folder


def native_verdicts() -> list[dict[str, Any]]:
    lines = (REPO / "labels" / "judge-verdicts.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def foreign_csv(path: Path, rows: list[dict[str, Any]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as stream:
        writer = csv.DictWriter(stream, ["id", "case", "faith", "cite", "correct"])
        writer.writeheader()
        writer.writerows(rows)
    return path


def five_point(verdict: dict[str, Any], axis: str) -> str:
    score = verdict["scores"][axis]
    return "" if verdict["status"] != "ok" else ("n/a" if score is None else str(TO_FIVE[score]))


def as_foreign_rows(verdicts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "id": v["item_id"],
            "case": v["case_id"],
            "faith": five_point(v, "faithfulness"),
            "cite": five_point(v, "citation_correctness"),
            "correct": five_point(v, "answer_correctness"),
        }
        for v in verdicts
        if v["status"] == "ok"
    ]


MAP = "--map=item_id=id,case_id=case,faithfulness=faith,citation_correctness=cite,answer_correctness=correct"


def test_an_imported_judge_on_its_own_scale_calibrates_like_the_original(tmp_path: Path) -> None:
    labels = labels_only(tmp_path)
    source = foreign_csv(tmp_path / "gpt4.csv", as_foreign_rows(native_verdicts()))
    out = tmp_path / "foreign" / "gpt4-verdicts.jsonl"
    result = qaeval(
        tmp_path, "verdicts", "import", str(source), "--judge-name", "gpt-4", MAP, *VALUES, "--out", str(out)
    )
    assert result.exit_code == 0, result.output
    assert f"calibrate it: qaeval calibrate --verdicts {out}" in result.stdout
    imported = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert imported and all(v["judge"]["name"] == "gpt-4" and v["status"] == "ok" for v in imported)

    native = qaeval(tmp_path, "calibrate", "--labels", str(labels), "--verdicts", str(REPO / "labels"), "--json")
    foreign = qaeval(tmp_path, "calibrate", "--labels", str(labels), "--verdicts", str(out), "--json")
    assert native.exit_code in (0, 1, 3) and foreign.exit_code == native.exit_code, foreign.output
    mine, theirs = json.loads(foreign.stdout), json.loads(native.stdout)
    assert mine["judge_config_hash"] == imported[0]["judge"]["config_hash"] != theirs["judge_config_hash"]
    for axis in AXES:
        for key in ("n", "exact", "within_one", "mae", "bias", "confusion", "verdict"):
            assert mine["axes"][axis][key] == theirs["axes"][axis][key], (axis, key)


def test_a_value_off_the_scale_is_located_and_nothing_is_written(tmp_path: Path) -> None:
    rows = as_foreign_rows(native_verdicts())[:3]
    rows[1] = {**rows[1], "faith": "4"}  # line 3 of the CSV (the header is line 1)
    source = foreign_csv(tmp_path / "gpt4.csv", rows)
    out = tmp_path / "gpt4-verdicts.jsonl"
    direct = MAP
    result = qaeval(tmp_path, "verdicts", "import", str(source), "--judge-name", "gpt-4", direct, "--out", str(out))
    assert result.exit_code == 1
    assert f"{source}:3: faithfulness: '4' is off the faithfulness scale [0, 1, 2]" in result.stderr
    assert "nothing was changed" in result.stderr and not out.exists()


def test_declared_values_map_and_round_but_an_undeclared_value_is_an_error(tmp_path: Path) -> None:
    rows = as_foreign_rows(native_verdicts())[:4]
    rows[0] = {**rows[0], "faith": "3.5"}  # between 3 and 5, nearer 3 -> 1
    rows[1] = {**rows[1], "faith": "4"}  # a tie between 3 and 5 -> the lower, 3 -> 1
    rows[2] = {**rows[2], "faith": "9"}  # beyond the declared values: never rounded
    source = foreign_csv(tmp_path / "gpt4.csv", rows)
    out = tmp_path / "gpt4-verdicts.jsonl"
    args = ["verdicts", "import", str(source), "--judge-name", "gpt-4", MAP, *VALUES, "--out", str(out)]
    result = qaeval(tmp_path, *args)
    assert result.exit_code == 1 and not out.exists()
    assert f"{source}:2: faithfulness: '3.5' is not one of the --values declared for faithfulness (1, 3, 5)" in (
        result.stderr
    )
    assert f"{source}:4: faithfulness: '9' is not one of the --values" in result.stderr
    result = qaeval(tmp_path, *args, "--round")
    assert result.exit_code == 1 and f"{source}:4: faithfulness:" in result.stderr
    assert f"{source}:2:" not in result.stderr and f"{source}:3:" not in result.stderr
    rows[2] = {**rows[2], "faith": "5"}
    foreign_csv(source, rows)
    result = qaeval(tmp_path, *args, "--round", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["rounded"] == 2
    written = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [v["scores"]["faithfulness"] for v in written[:3]] == [1, 1, 2]


def test_an_item_scored_twice_or_not_named_is_located(tmp_path: Path) -> None:
    rows = as_foreign_rows(native_verdicts())[:3]
    rows[2] = {**rows[2], "id": rows[0]["id"], "case": rows[0]["case"]}
    rows[1] = {**rows[1], "id": "", "case": "no-such-case"}
    source = foreign_csv(tmp_path / "gpt4.csv", rows)
    out = tmp_path / "v.jsonl"
    result = qaeval(
        tmp_path, "verdicts", "import", str(source), "--judge-name", "gpt-4", MAP, *VALUES, "--out", str(out)
    )
    assert result.exit_code == 1 and not out.exists()
    assert f"{source}:4: item_id: item {rows[0]['id']} is scored twice (first at {source}:2)" in result.stderr
    assert f"{source}:3: case_id: case 'no-such-case' has no review item in the store" in result.stderr


def test_a_jsonl_file_with_nested_scores_needs_no_map(tmp_path: Path) -> None:
    verdict = native_verdicts()[0]
    source = tmp_path / "judge.jsonl"
    source.write_text(
        json.dumps({"item_id": verdict["item_id"], "case_id": verdict["case_id"], "scores": {"faithfulness": 2}}) + "\n"
    )
    out = tmp_path / "v.jsonl"
    result = qaeval(
        tmp_path, "verdicts", "import", str(source), "--judge-name", "ragas", "--model", "gpt-4o", "--out", str(out)
    )
    assert result.exit_code == 0, result.output
    (written,) = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert written["scores"] == {"faithfulness": 2, "citation_correctness": None, "answer_correctness": None}
    assert written["judge"]["model"] == "gpt-4o"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--map", "confidence=conf"], "--map: unknown field(s) ['confidence']"),
        (["--values", "faithfulness:1=7"], "7 is not on the faithfulness scale [0, 1, 2]"),
        (["--values", "relevance:1=0"], "--values 'relevance:1=0': write it as axis:from=to"),
        (["--format", "xml"], "--format must be jsonl or csv"),
    ],
)
def test_usage_mistakes_are_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    source = foreign_csv(tmp_path / "gpt4.csv", as_foreign_rows(native_verdicts())[:1])
    out = tmp_path / "v.jsonl"
    result = qaeval(tmp_path, "verdicts", "import", str(source), "--judge-name", "j", *args, "--out", str(out))
    assert result.exit_code == 2 and message in result.stderr and not out.exists()


def test_imported_verdicts_carry_their_faithfulness_outcome(tmp_path: Path) -> None:
    rows = as_foreign_rows(native_verdicts())[:2]
    rows[0] = {**rows[0], "faith": "5"}
    rows[1] = {**rows[1], "faith": "3"}
    source = foreign_csv(tmp_path / "gpt4.csv", rows)
    out = tmp_path / "v.jsonl"
    result = qaeval(
        tmp_path, "verdicts", "import", str(source), "--judge-name", "gpt-4", MAP, *VALUES, "--out", str(out)
    )
    assert result.exit_code == 0, result.output
    written = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [v["outcome"] for v in written] == ["faithful", "unfaithful"]


def test_hostile_jsonl_values_are_located_problems_not_a_crash(tmp_path: Path) -> None:
    """A whole number too large for a float, a boolean, NaN: each is a located problem; nothing is written."""
    verdicts = native_verdicts()[:4]
    lines = [
        json.dumps({"item_id": v["item_id"], "case_id": v["case_id"], "scores": {"faithfulness": value}})
        for v, value in zip(verdicts, ["HUGE", True, float("nan"), 2], strict=True)
    ]
    lines[0] = lines[0].replace('"HUGE"', "1" + "0" * 400)
    source = tmp_path / "judge.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "v.jsonl"
    result = qaeval(tmp_path, "verdicts", "import", str(source), "--judge-name", "odd", "--out", str(out), "--round")
    assert result.exit_code == 1, result.output
    assert f"{source}:1: faithfulness: 1000" in result.stderr
    assert f"{source}:2: faithfulness: True is not a score" in result.stderr
    assert f"{source}:3:" in result.stderr  # NaN is no JSON number
    assert f"{source}:4:" not in result.stderr and "Traceback" not in result.output and not out.exists()


def test_an_axis_given_at_the_top_level_and_under_scores_is_refused_not_guessed(tmp_path: Path) -> None:
    first = next(v for v in native_verdicts() if v["status"] == "ok")
    line = {"item_id": first["item_id"], "case_id": first["case_id"], "faithfulness": 2, "scores": {"faithfulness": 0}}
    path = tmp_path / "both.jsonl"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    out = tmp_path / "v.jsonl"
    result = qaeval(tmp_path, "verdicts", "import", str(path), "--judge-name", "other", "--out", str(out))
    assert result.exit_code == 1, result.output
    assert f"{path}:1: faithfulness: given twice: at the top level and under scores (2 and 0); keep one" in (
        result.stderr
    )
    assert not out.exists()
    labels = tmp_path / "labels.jsonl"  # label files from other tools are read the same way
    labels.write_text(json.dumps({**line, "reviewer": "ana"}) + "\n", encoding="utf-8")
    imported = qaeval(tmp_path, "labels", "import", str(labels), "--format", "jsonl", "--map", "note=note")
    assert imported.exit_code == 1 and "faithfulness: given twice" in imported.stderr, imported.output
