"""Integers beyond what the store holds are refused where they come in, never an OverflowError traceback.

A label revision is capped far below SQLite's signed 64-bit limit (so the revision after it, made by
an import or a submit, still fits, and exports read back); seeds are whole numbers from 0 to 2^63 - 1
in the config and on every `--seed`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from qaeval_tui.cli.main import app
from qaeval_tui.core.config import Config
from qaeval_tui.core.errors import QaevalError
from qaeval_tui.core.limits import MAX_REVISION
from qaeval_tui.core.review.session import ReviewSession
from qaeval_tui.core.store.sqlite import Store
from tests.cli.test_label_cmds import labeled_folder
from tests.core.review_fixtures import FULL, store_with_run

runner = CliRunner()
TOO_BIG = 2**63  # one past SQLite's largest integer


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def clean_exit(result: Result, code: int, *fragments: str) -> None:
    assert result.exit_code == code, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception  # no OverflowError
    assert "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in result.stderr, result.stderr


def store_with_items(db: Path) -> str:
    """A store with one review item queued for ana; returns its id."""
    store, items = store_with_run(db, n_items=1)
    store.close()
    clean_exit(runner.invoke(app, ["queue", "--db", str(db), "--reviewers", "ana", "--overlap", "1"]), 0)
    return items[0]


def label_file(path: Path, item: str, revision: int) -> Path:
    line: dict[str, Any] = {
        "item_id": item, "case_id": "readable-case-000", "reviewer": "ana", "scores": FULL, "note": "",
        "flagged": False, "skipped": False, "rubric_version": "1", "revealed": False, "revision": revision,
        "created_at": "2026-01-01T00:00:00Z", "seconds_spent": 1.0,
    }  # fmt: skip
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(line) + "\n")
    return path


# -- revisions ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("revision", [2**63 - 1, MAX_REVISION + 1])
def test_a_revision_above_the_cap_is_a_located_import_error(tmp_path: Path, revision: int) -> None:
    store, items = store_with_run(tmp_path / "q.db", n_items=1)
    store.close()
    label_file(tmp_path / "in" / "ana.jsonl", items[0], revision)
    result = runner.invoke(app, ["labels", "import", "in", "--db", "q.db"])
    clean_exit(result, 1, "ana.jsonl:1: revision:")
    with Store.open(tmp_path / "q.db") as store:
        assert store.labels() == []


def test_the_largest_revision_imports_and_a_later_submit_is_refused_cleanly(tmp_path: Path) -> None:
    item = store_with_items(tmp_path / "q.db")
    label_file(tmp_path / "in" / "ana.jsonl", item, MAX_REVISION)
    clean_exit(runner.invoke(app, ["labels", "import", "in", "--db", "q.db"]), 0)
    with Store.open(tmp_path / "q.db") as store:
        with pytest.raises(QaevalError, match=f"beyond the largest a label can have \\({MAX_REVISION}\\)"):
            ReviewSession(store, Config(), "ana").submit(item, {**FULL, "faithfulness": 0}, "", False, 1.0)
        assert [row.label.revision for row in store.labels()] == [MAX_REVISION]
    # The export reads back: nothing in the store is beyond what a label file may carry.
    clean_exit(runner.invoke(app, ["labels", "export", "--db", "q.db", "--out", "out"]), 0)
    clean_exit(runner.invoke(app, ["labels", "import", "out", "--db", "q.db"]), 0)


def test_a_foreign_label_after_the_largest_revision_is_refused_not_an_overflow(tmp_path: Path) -> None:
    item = store_with_items(tmp_path / "q.db")
    label_file(tmp_path / "in" / "ana.jsonl", item, MAX_REVISION)
    clean_exit(runner.invoke(app, ["labels", "import", "in", "--db", "q.db"]), 0)
    csv = tmp_path / "other.csv"
    csv.write_text(f"item_id,reviewer,{','.join(FULL)}\n{item},ana,0,0,0\n")
    clean_exit(runner.invoke(app, ["labels", "import", str(csv), "--db", "q.db"]), 2, "beyond the largest")
    with Store.open(tmp_path / "q.db") as store:
        assert len(store.labels()) == 1


# -- seeds ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [str(TOO_BIG), "-1"])
def test_queue_refuses_a_seed_out_of_range(tmp_path: Path, seed: str) -> None:
    store_with_run(tmp_path / "q.db", n_items=3)[0].close()
    result = runner.invoke(app, ["queue", "--db", "q.db", "--reviewers", "a,b", "--seed", seed])
    clean_exit(result, 2, "--seed")
    with Store.open(tmp_path / "q.db") as store:
        assert store.assignments() == []


def test_queue_takes_the_largest_seed(tmp_path: Path) -> None:
    store_with_run(tmp_path / "q.db", n_items=3)[0].close()
    result = runner.invoke(app, ["queue", "--db", "q.db", "--reviewers", "a,b", "--seed", str(TOO_BIG - 1)])
    clean_exit(result, 0)


@pytest.mark.parametrize("seed", [str(TOO_BIG), "-1"])
def test_agreement_refuses_a_seed_out_of_range(tmp_path: Path, seed: str) -> None:
    labeled_folder(tmp_path / "labels", dict.fromkeys(FULL, 2))
    clean_exit(runner.invoke(app, ["agreement", "--labels", "labels", "--seed", seed]), 2, "--seed")


@pytest.mark.parametrize("section", ["review", "gate", "calibration"])
def test_a_config_seed_beyond_the_store_is_a_config_error(tmp_path: Path, section: str) -> None:
    store_with_run(tmp_path / "q.db", n_items=3)[0].close()
    (tmp_path / "qaeval.toml").write_text(f"[{section}]\nseed = {TOO_BIG}\n")
    result = runner.invoke(app, ["queue", "--db", "q.db", "--reviewers", "a,b"])
    clean_exit(result, 2, f"qaeval.toml:2: {section}.seed: Input should be less than or equal to {TOO_BIG - 1}")
    with Store.open(tmp_path / "q.db") as store:
        assert store.assignments() == []
