"""`qaeval labels export` never loses a line (issue 13): a teammate's label file pulled through
git keeps every line, the revisions it lacks are appended, and a revision that differs from the
store is refused (exit 1, file:line) with the file left byte for byte as it was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from qaeval_tui.cli.main import app
from qaeval_tui.core.models.label import Label
from qaeval_tui.core.store.sqlite import Store

runner = CliRunner()
DEMO_ANA = Path(__file__).resolve().parents[2] / "labels" / "ana.jsonl"


def new_label(**changes: object) -> Label:
    fields: dict[str, object] = {
        "item_id": "item-new", "case_id": "case-new", "reviewer": "ana", "scores": {"faithfulness": 2},
        "note": "", "flagged": False, "skipped": False, "rubric_version": "1", "revealed": False,
        "revision": 1, "created_at": "2026-02-01T00:00:00Z", "seconds_spent": 3.0,
    }  # fmt: skip
    fields.update(changes)
    return Label.model_validate(fields)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A teammate's 29-line `labels/ana.jsonl` (the demo's), and a store holding one label it lacks."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "labels").mkdir()
    (tmp_path / "labels" / "ana.jsonl").write_bytes(DEMO_ANA.read_bytes())
    with Store.open(tmp_path / "q.db") as store:
        store.insert_labels([new_label()], origin="import")
    return tmp_path


def test_a_teammates_29_lines_and_my_one_new_label_make_30(project: Path) -> None:
    before = (project / "labels" / "ana.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(before) == 29
    result = runner.invoke(app, ["labels", "export", "--db", "q.db", "--out", "labels"])
    assert result.exit_code == 0, result.output
    assert "ana.jsonl: 30 revision(s), 1 added" in result.stdout
    after = (project / "labels" / "ana.jsonl").read_text(encoding="utf-8").splitlines()
    assert after[:29] == before  # nothing lost, nothing reordered
    assert len(after) == 30
    assert json.loads(after[29])["item_id"] == "item-new"


def test_exporting_again_adds_nothing(project: Path) -> None:
    assert runner.invoke(app, ["labels", "export", "--db", "q.db", "--out", "labels"]).exit_code == 0
    once = (project / "labels" / "ana.jsonl").read_bytes()
    result = runner.invoke(app, ["labels", "export", "--db", "q.db", "--out", "labels", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["added"] == {"ana": 0}
    assert (project / "labels" / "ana.jsonl").read_bytes() == once


def test_a_revision_that_differs_from_the_file_is_refused_and_the_file_kept(project: Path) -> None:
    fifth = json.loads(DEMO_ANA.read_text(encoding="utf-8").splitlines()[4])
    with Store.open(project / "q.db") as store:
        store.insert_labels([new_label(**{**fifth, "note": "changed on my machine"})], origin="import")
    before = (project / "labels" / "ana.jsonl").read_bytes()
    result = runner.invoke(app, ["labels", "export", "--db", "q.db", "--out", "labels"])
    assert result.exit_code == 1, result.output
    assert "ana.jsonl:5: revision: conflict" in result.stderr
    assert "note" in result.stderr
    assert (project / "labels" / "ana.jsonl").read_bytes() == before


def test_a_line_that_is_not_a_label_is_refused_not_dropped(project: Path) -> None:
    target = project / "labels" / "ana.jsonl"
    target.write_bytes(DEMO_ANA.read_bytes() + b"<<<<<<< HEAD\n")  # a merge left half-done
    before = target.read_bytes()
    result = runner.invoke(app, ["labels", "export", "--db", "q.db", "--out", "labels"])
    assert result.exit_code == 1, result.output
    assert "ana.jsonl:30: (line): not a label line" in result.stderr
    assert target.read_bytes() == before
