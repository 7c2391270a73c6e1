"""`qaeval labels export` never writes into or beside the golden set, never lets a reviewer's file
name pass for something else, writes nothing when it refuses, keeps file modes, and cleans up the
temporary files of an export that was killed."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from qaeval_tui.cli.main import app
from qaeval_tui.core.models.label import Label
from qaeval_tui.core.store.sqlite import Store
from tests.curation_fixtures import demo_copy

runner = CliRunner()


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project: the demo golden folder, an empty qaeval.toml, and a store with ana's labels."""
    monkeypatch.chdir(tmp_path)
    demo_copy(tmp_path)
    add_labels(tmp_path / "q.db", "ana")
    return tmp_path


def add_labels(db: Path, *reviewers: str) -> None:
    """One label revision per reviewer, stored as given (names the label reader would refuse too)."""
    with Store.open(db) as store:
        store.insert_labels(
            [
                Label.model_construct(
                    item_id="item-1", case_id="case-1", reviewer=name, scores={"faithfulness": 2},
                    note="", flagged=False, skipped=False, rubric_version="1", revealed=False,
                    revision=1, created_at="2026-01-01T00:00:00Z", seconds_spent=1.0,
                )
                for name in reviewers
            ],
            origin="import",
        )  # fmt: skip


def export(*args: str) -> Result:
    return runner.invoke(app, ["labels", "export", "--db", "q.db", *args])


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` (hidden ones too) with its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def refused(result: Result, *fragments: str) -> None:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and isinstance(result.exception, SystemExit), result.exception
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert all(fragment in errors[0] for fragment in fragments), errors[0]


# -- never into the golden set ----------------------------------------------------------------------------------


def test_a_labels_folder_set_to_the_golden_folder_never_overwrites_a_split(root: Path) -> None:
    # The reported bug: paths.labels = "golden" and a reviewer named frozen replaced golden/frozen.jsonl.
    (root / "qaeval.toml").write_text('[paths]\nlabels = "golden"\n', encoding="utf-8")
    add_labels(root / "q.db", "frozen")
    before = snapshot(root / "golden")
    refused(export(), "golden: refused: it is inside the golden folder")
    assert snapshot(root / "golden") == before


@pytest.mark.parametrize("out", ["golden", "golden/labels", "golden/inbox", "./labels/../golden/"])
def test_an_export_folder_in_the_golden_folder_is_refused(root: Path, out: str) -> None:
    before = snapshot(root / "golden")
    refused(export("--out", out), "refused: it is inside the golden folder")
    assert snapshot(root / "golden") == before


def test_a_labels_folder_that_links_into_the_golden_folder_is_refused(root: Path) -> None:
    (root / "labels").symlink_to(root / "golden", target_is_directory=True)
    add_labels(root / "q.db", "living")
    before = snapshot(root / "golden")
    refused(export(), "labels: refused: it is inside the golden folder")
    assert snapshot(root / "golden") == before


def test_a_folder_holding_a_configured_golden_file_or_inbox_is_refused(root: Path) -> None:
    (root / "data").mkdir()
    (root / "golden" / "frozen.jsonl").rename(root / "data" / "frozen.jsonl")
    (root / "golden" / "inbox" / "misses.jsonl").rename(root / "data" / "misses.jsonl")
    (root / "qaeval.toml").write_text(
        '[paths]\ngolden = "data/frozen.jsonl"\ninbox = "data/misses.jsonl"\n', encoding="utf-8"
    )
    add_labels(root / "q.db", "misses")
    before = snapshot(root / "data")
    refused(export("--out", "data"), "data: refused: it holds")
    assert snapshot(root / "data") == before


def test_a_label_file_that_is_a_link_is_refused(root: Path) -> None:
    (root / "labels").mkdir()
    (root / "labels" / "ana.jsonl").symlink_to(root / "golden" / "frozen.jsonl")
    before = snapshot(root / "golden")
    refused(export(), "ana.jsonl: refused: it is a link")
    assert snapshot(root / "golden") == before and (root / "labels" / "ana.jsonl").is_symlink()


def test_a_labels_folder_that_is_a_file_is_one_line_and_exit_2(root: Path) -> None:
    (root / "labels").write_text("not a folder")
    refused(export(), "labels: cannot write: it is a file, not a folder")
    assert (root / "labels").read_text() == "not a folder"


# -- reviewer names ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("frozen", "would be taken for the golden split 'frozen'"),
        ("Living", "would be taken for the golden split 'living'"),
        ("adversarial", "would be taken for the golden split 'adversarial'"),  # a split of this golden set
        ("judge-verdicts", "is the name of the judge-verdict export"),
        (".hidden", "would be a hidden file"),
        ("NUL", "is a device name on Windows"),
        ("../x", "no '/'"),
        ("a\tb", "control characters"),
        ("", "an empty name"),
    ],
)
def test_a_reviewer_whose_file_name_would_clash_is_refused_and_nothing_is_written(
    root: Path, name: str, reason: str
) -> None:
    (root / "golden" / "adversarial.jsonl").write_bytes(b"")
    add_labels(root / "q.db", name)
    refused(export(), f"reviewer {name!r}: ", reason, "nothing exported")
    assert not (root / "labels").exists()  # not even ana's file, which alone would be fine


def test_two_reviewers_who_would_share_a_file_on_a_case_insensitive_disk_are_refused(root: Path) -> None:
    add_labels(root / "q.db", "Ana")
    refused(export(), "reviewers 'Ana' and 'ana' would share one file")
    assert not (root / "labels").exists()


def test_a_named_reviewer_is_checked_too_and_leaving_it_out_exports_the_rest(root: Path) -> None:
    add_labels(root / "q.db", "frozen")
    refused(export("--reviewer", "frozen"), "reviewer 'frozen'")
    result = export("--reviewer", "ana")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (root / "labels").glob("*.jsonl")) == ["ana.jsonl"]


# -- modes and leftovers ---------------------------------------------------------------------------------------------


def test_rewritten_label_files_keep_their_mode(root: Path) -> None:
    assert export("--verdicts").exit_code == 0
    (root / "labels" / "ana.jsonl").chmod(0o640)
    (root / "labels" / "judge-verdicts.jsonl").chmod(0o664)
    assert export("--verdicts").exit_code == 0
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in (root / "labels").glob("*.jsonl")}
    assert modes == {"ana.jsonl": 0o640, "judge-verdicts.jsonl": 0o664}


KILL_BEFORE_RENAME = """
import os, signal, sys
os.replace = lambda *args, **kwargs: os.kill(os.getpid(), signal.SIGKILL)
from qaeval_tui.cli.main import app
app(sys.argv[1:])
"""


def test_the_temporary_file_of_a_killed_export_is_removed_by_the_next(root: Path) -> None:
    killed = subprocess.run(
        [sys.executable, "-c", KILL_BEFORE_RENAME, "labels", "export", "--db", "q.db"],
        cwd=root, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    left = [p.name for p in (root / "labels").iterdir() if p.name.startswith(".ana.jsonl.")]
    assert len(left) == 1  # the kill came between writing the temporary file and renaming it
    result = export()
    assert result.exit_code == 0, result.output
    assert f"{left[0]}, left by an export that was cut short" in result.stderr
    assert sorted(p.name for p in (root / "labels").iterdir()) == [".qaeval-export.lock", "ana.jsonl"]


def test_a_leftover_that_is_not_an_export_temporary_file_is_kept(root: Path) -> None:
    (root / "labels").mkdir()
    for name in (".notes.tmp", ".ana.jsonl.backup", "ana.jsonl.12345678.tmp"):
        (root / "labels" / name).write_text("mine")
    assert export().exit_code == 0
    assert {".notes.tmp", ".ana.jsonl.backup", "ana.jsonl.12345678.tmp"} <= set(os.listdir(root / "labels"))
