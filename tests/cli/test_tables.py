"""`labels export --format`, `verdicts export`, `results export`: long tables other tools join on ids."""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from qaeval_tui.cli.main import app
from qaeval_tui.core.store.rows import LabelDraft
from qaeval_tui.core.store.sqlite import Store
from qaeval_tui.core.usecases.tables import LABEL_COLUMNS, RESULT_COLUMNS, VERDICT_COLUMNS
from tests.full_store import build_full_store

runner = CliRunner()


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tables")
    build_full_store(root, str(root / "store.db"))
    return root


def qaeval(root: Path, *args: str) -> Result:
    return runner.invoke(app, ["--config", str(root / "qaeval.toml"), *args, "--db", str(root / "store.db")])


def csv_rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def jsonl_rows(text: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in text.splitlines()]


def test_the_label_table_has_a_row_per_revision_and_axis_and_marks_the_latest(project: Path) -> None:
    result = qaeval(project, "labels", "export", "--format", "csv")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == ",".join(LABEL_COLUMNS)
    rows = csv_rows(result.stdout)
    with Store.open(project / "store.db") as store:
        revisions = [row.label for row in store.labels()]
    assert len(rows) == sum(max(1, len(label.scores)) for label in revisions)
    per_label = Counter((r["item_id"], r["reviewer"], r["revision"]) for r in rows)
    assert len(per_label) == len(revisions)
    newest: dict[tuple[str, str], int] = {}
    for label in revisions:
        key = (label.item_id, label.reviewer)
        newest[key] = max(newest.get(key, 0), label.revision)
    for row in rows:
        assert row["latest"] == (
            "true" if newest[(row["item_id"], row["reviewer"])] == int(row["revision"]) else "false"
        )
    some = next(label for label in revisions if label.scores.get("faithfulness") is not None)
    match = [r for r in rows if r["item_id"] == some.item_id and r["reviewer"] == some.reviewer
             and r["revision"] == str(some.revision) and r["axis"] == "faithfulness"]  # fmt: skip
    assert [r["score"] for r in match] == [str(some.scores["faithfulness"])]


def test_labels_verdicts_and_results_join_on_item_and_axis(project: Path) -> None:
    labels = jsonl_rows(qaeval(project, "labels", "export", "--format", "jsonl").stdout)
    verdicts_result = qaeval(project, "verdicts", "export", "--format", "jsonl")
    assert verdicts_result.exit_code == 0, verdicts_result.output
    verdicts = jsonl_rows(verdicts_result.stdout)
    results_result = qaeval(project, "results", "export", "--format", "jsonl")
    assert results_result.exit_code == 0, results_result.output
    results = jsonl_rows(results_result.stdout)
    assert list(verdicts[0]) == list(VERDICT_COLUMNS) and list(results[0]) == list(RESULT_COLUMNS)

    judge = {(v["item_id"], v["axis"]): v["score"] for v in verdicts}
    joined = [
        (label["score"], judge[key])
        for label in labels
        if label["latest"] and (key := (label["item_id"], label["axis"])) in judge
    ]
    assert len(joined) > 50  # the demo labels are on the demo run's items
    run_items = {r["item_id"] for r in results}
    assert {v["item_id"] for v in verdicts} == run_items
    assert len({r["run_id"] for r in results}) == 1
    kinds = Counter(r["kind"] for r in results)
    assert kinds["check"] > 0 and kinds["metric"] > 0


def test_results_of_a_run_by_id_and_an_unknown_run(project: Path) -> None:
    with Store.open(project / "store.db") as store:
        run = store.latest_run()
    assert run is not None
    table = csv_rows(qaeval(project, "results", "export", "--format", "csv", "--run", run.run_id).stdout)
    cases = {r["case_id"] for r in table}
    assert len(cases) == run.n_cases
    failing = [r for r in table if r["kind"] == "check" and r["status"] == "fail"]
    assert all(r["case_passed"] == "false" for r in failing)
    unknown = qaeval(project, "results", "export", "--format", "csv", "--run", "no-such-run")
    assert unknown.exit_code == 2 and "no run 'no-such-run' in the store" in unknown.stderr


def test_a_file_is_written_whole_and_text_stays_data(tmp_path: Path) -> None:
    root = tmp_path / "p"
    build_full_store(root, str(root / "store.db"))
    with Store.open(root / "store.db") as store:
        item = store.review_items()[0]
        note = '=HYPERLINK("http://x")\x1b[31m'
        store.append_label(
            LabelDraft(item_id=item.item_id, case_id=item.case_id, reviewer="zoe", scores={"faithfulness": 1},
                       rubric_version="1", note=note)
        )  # fmt: skip
    out = tmp_path / "labels.csv"
    assert qaeval(root, "labels", "export", "--format", "csv", "--reviewer", "zoe", "--out", str(out)).exit_code == 0
    rows = csv_rows(out.read_text(encoding="utf-8"))
    assert [r["note"] for r in rows] == ["'" + note]  # a spreadsheet shows it, never runs it
    shown = qaeval(root, "labels", "export", "--format", "jsonl", "--reviewer", "zoe")
    assert "\x1b" not in shown.stdout and json.loads(shown.stdout)["note"] == note  # escaped, lossless
    on_screen = qaeval(root, "labels", "export", "--format", "csv", "--reviewer", "zoe")
    assert "\x1b" not in on_screen.stdout and "\\x1b[31m" in on_screen.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["labels", "export", "--format", "xlsx"], "--format: must be one of csv, jsonl"),
        (["labels", "export", "--format", "csv", "--verdicts"], "export verdicts with `qaeval verdicts export`"),
        (["verdicts", "export", "--format", "jsonl", "--out", "labels/table.jsonl"], "would be read as labels"),
    ],
)
def test_usage_mistakes_exit_2(project: Path, args: list[str], message: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    result = qaeval(project, *args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert not (project / "labels" / "table.jsonl").exists()
