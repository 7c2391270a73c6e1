"""`qaeval runs`, `runs show` and `diff` on a store holding the reference hub's run and the buggy hub's."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from qaeval_tui.cli.main import app
from qaeval_tui.core.store.sqlite import Store
from tests.conftest import DEMO_GOLDEN

runner = CliRunner()
BUGGY = "qaeval_tui.bundled.buggy_hub:make_buggy_hub"


@pytest.fixture
def two_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for extra in ([], ["--adapter", BUGGY]):
        assert runner.invoke(app, ["run", "--data", str(DEMO_GOLDEN), "--db", "s.db", *extra]).exit_code == 0
    return tmp_path


def invoke(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, [*args, "--db", "s.db"])
    return result.exit_code, result.stdout, result.stderr


def test_runs_lists_newest_first_as_text_and_json(two_runs: Path) -> None:
    code, out, _ = invoke("runs", "--json")
    runs = json.loads(out)
    assert code == 0 and [run["adapter"] for run in runs] == ["buggy-hub", "reference-hub"]
    assert runs[1]["metrics"]["deterministic_pass_rate"] == 1.0
    code, text, _ = invoke("runs", "list")
    assert code == 0 and runs[0]["run_id"] in text and "2 run(s)" in text


def test_runs_unfinished_lists_a_run_cut_short_with_the_cases_it_stored(two_runs: Path) -> None:
    code, text, _ = invoke("runs", "--unfinished")
    assert code == 0 and "no unfinished runs" in text
    with Store.open(two_runs / "s.db") as store:
        whole = store.latest_run()
        assert whole is not None
        outputs = store.run_outputs(whole.run_id)[:3]
        store.open_run(replace(whole, run_id="cut-short", finished_at="", started_at="2099-01-01T00:00:00Z"))
        store.append_run_rows("cut-short", outputs, [])
    code, text, _ = invoke("runs", "list", "--unfinished")
    assert code == 0 and "cut-short" in text and "1 unfinished run(s)" in text
    code, out, _ = invoke("runs", "--json")
    assert "cut-short" not in [run["run_id"] for run in json.loads(out)]  # never listed as a run
    code, out, _ = invoke("runs", "--unfinished", "--json")
    assert [(run["run_id"], run["n_cases"]) for run in json.loads(out)] == [("cut-short", 3)]


def test_runs_show_filters_and_counts(two_runs: Path) -> None:
    code, out, _ = invoke("runs", "show", "latest", "--json")
    whole = json.loads(out)
    assert code == 0 and whole["total"] == whole["shown"] == 39
    code, out, _ = invoke("runs", "show", "latest", "--check", "abstention", "--slice", "split=frozen", "--json")
    picked = json.loads(out)
    expected = [
        case["case_id"]
        for case in whole["cases"]
        if case["checks"].get("abstention") == "fail" and case["split"] == "frozen"
    ]
    assert [case["case_id"] for case in picked["cases"]] == expected and expected
    assert picked["filter"] == "split=frozen, failing abstention"
    code, text, _ = invoke("runs", "show", "latest", "--failing")
    assert code == 0 and f"Showing {whole['counts']['fail']} of 39 case(s) (failing)" in text
    code, _, err = invoke("runs", "show", "latest", "--slice", "colour=red")
    assert code == 2 and "--slice 'colour=red'" in err


def test_runs_show_case_prints_the_answer_sources_and_check_reasons(two_runs: Path) -> None:
    code, text, _ = invoke("runs", "show", "latest", "--case", "spec-usable-capacity-01")
    assert code == 0
    assert "fail citation_resolvability: cites 's1', which was never retrieved" in text
    assert "s1 (not retrieved, cited)" in text and "s2 (#1, gold)" in text


def test_diff_lists_regressions_with_deltas_and_marks_the_changed_words(two_runs: Path) -> None:
    code, out, _ = invoke("diff", "previous", "latest", "--json")
    diff = json.loads(out)
    assert code == 0 and diff["same_suite"] and diff["counts"]["regressed"] >= 1
    financing = next(case for case in diff["cases"] if case["case_id"] == "financing-plans-01")
    assert financing["change"] == "regressed" and financing["deltas"]["abstention_recall"] == -1.0
    removed = "".join(p["text"] for p in financing["answer_diff"] if p["kind"] != "added")
    assert removed == financing["answer_a"]
    code, text, _ = invoke("diff", "previous", "latest")
    assert code == 0 and "financing-plans-01: [-I can't answer that from the available sources.-]{+" in text
    code, _, err = invoke("diff", "previous", "nope")
    assert code == 2 and "no run 'nope'" in err
