"""No output ever lands on or beside a golden split, configured or not.

A golden file is recognised by what it holds (its first line is a golden case), so a copy of the
golden folder, the repository's `golden_buggy/`, or a split passed as `--out` is refused before
anything runs, exit 2, naming the file, and left byte for byte as it was.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from qaeval_tui.cli.main import app
from tests.cli.test_label_export import add_labels, snapshot
from tests.conftest import REPO
from tests.curation_fixtures import demo_copy

runner = CliRunner()


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The demo golden folder, an empty config, a store with ana's labels."""
    monkeypatch.chdir(tmp_path)
    demo_copy(tmp_path)
    add_labels(tmp_path / "q.db", "ana")
    return tmp_path


def refused(result: Result, *fragments: str) -> None:
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    for fragment in fragments:
        assert fragment in result.stderr, result.stderr


def test_a_copy_of_the_golden_folder_is_not_an_export_folder(root: Path) -> None:
    shutil.copytree(root / "golden", root / "g2")
    before = snapshot(root / "g2")
    result = runner.invoke(app, ["labels", "export", "--db", "q.db", "--out", "g2"])
    refused(result, "g2: refused: it holds frozen.jsonl, a golden split")
    assert snapshot(root / "g2") == before


def test_the_buggy_golden_folder_is_not_an_export_folder(root: Path) -> None:
    shutil.copytree(REPO / "golden_buggy", root / "golden_buggy")
    before = snapshot(root / "golden_buggy")
    result = runner.invoke(app, ["labels", "export", "--db", "q.db", "--out", "golden_buggy", "--verdicts"])
    refused(result, "it holds buggy.jsonl, a golden split")
    assert snapshot(root / "golden_buggy") == before


def test_a_folder_of_labels_verdicts_and_misses_is_still_an_export_folder(root: Path) -> None:
    out = root / "out"
    out.mkdir()
    (out / "ben.jsonl").write_text(json.dumps({"item_id": "i", "question": "q", "expected_behavior": "x"}) + "\n")
    (out / "misses.jsonl").write_text(json.dumps({"trace_id": "t", "question": "q?"}) + "\n")
    (out / "notes.jsonl").write_text("\n\nnot json at all\n")
    result = runner.invoke(app, ["labels", "export", "--db", "q.db", "--out", "out"])
    assert result.exit_code == 0, result.output
    assert (out / "ana.jsonl").is_file()


@pytest.mark.parametrize(
    "args",
    [
        ["run", "--out", "golden/frozen.jsonl"],
        ["run", "--out", "elsewhere/frozen.jsonl"],  # a copy, not the configured set
        ["baseline", "--out", "golden/living.jsonl"],
        ["gate", "--baseline", "base.json", "--markdown", "golden/frozen.jsonl"],
        ["gate", "--baseline", "base.json", "--junit", "golden/living.jsonl"],
        ["gate", "--baseline", "base.json", "--out", "golden/frozen.jsonl"],
    ],
)
def test_a_report_onto_a_golden_split_is_refused_before_the_run(root: Path, args: list[str]) -> None:
    assert runner.invoke(app, ["baseline", "--db", "base.db", "--out", "base.json"]).exit_code == 0
    shutil.copytree(root / "golden", root / "elsewhere")
    before = snapshot(root / "golden"), snapshot(root / "elsewhere")
    result = runner.invoke(app, [*args, "--db", "run.db"])
    refused(result, "is a golden split (its first line is a golden case); write the output elsewhere")
    assert (snapshot(root / "golden"), snapshot(root / "elsewhere")) == before
    assert not (root / "run.db").exists()  # refused before the suite ran


@pytest.mark.parametrize("option", ["--markdown", "--html"])
def test_an_agreement_report_onto_a_golden_split_is_refused(root: Path, option: str) -> None:
    add_labels(root / "q.db", "ben")
    before = snapshot(root / "golden")
    result = runner.invoke(app, ["agreement", "--db", "q.db", option, "golden/frozen.jsonl"])
    refused(result, "golden/frozen.jsonl: refused: frozen.jsonl is a golden split")
    assert snapshot(root / "golden") == before
