"""A store qaeval cannot write (read-only, under a file, on a disk that fails) is one line naming it and
exit 2 for every command, never a sqlite3 traceback; nothing is half-written."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from qaeval_tui.cli.main import app
from qaeval_tui.core.store.sqlite import Store
from tests.conftest import DEMO_GOLDEN, REPO, write_jsonl
from tests.curation_fixtures import BEDROOM, demo_copy, make_miss

runner = CliRunner()
READ_ONLY = "the store is read-only (the file, its folder or its disk)"


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return demo_copy(tmp_path)


def mark_read_only(db: Path) -> None:
    """Make SQLite itself open `db` read-only, for any user (chmod does not stop root).

    A file format write version SQLite does not know (header byte 18 above 2) makes it refuse every
    write with SQLITE_READONLY: the refusal a file without write permission or on a read-only disk
    gives, reads still allowed.
    """
    with db.open("r+b") as handle:
        handle.seek(18)
        handle.write(bytes([3]))


def one_line(result: Result, *fragments: str) -> None:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and isinstance(result.exception, SystemExit), result.exception
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert all(fragment in lines[0] for fragment in fragments), lines[0]


def writing_commands(root: Path) -> list[list[str]]:
    """A command of each kind that writes to the store, each with something new to write."""
    new_miss = write_jsonl(root / "new-misses.jsonl", [make_miss("tr-new")])
    promote = ["promote", BEDROOM, "--id", "bedroom-01", "--gold-answer", "No.", "--gold-source", "s2"]
    return [
        ["inbox", "import", str(new_miss)],
        ["labels", "import", str(REPO / "labels")],
        ["queue", "--reviewers", "a,b"],
        ["run", "--data", str(DEMO_GOLDEN / "frozen.jsonl")],
        [*promote, "--curator", "Mara", "--reason", "wrong room"],
        ["reject", BEDROOM, "--curator", "Mara", "--reason", "fine as is"],
    ]


def test_every_writing_command_on_a_read_only_store_is_one_line_and_exit_2(root: Path) -> None:
    db = root / "ro.db"
    with Store.open(db) as store:  # a run to queue and a miss to decide, so each command gets to write
        assert runner.invoke(app, ["run", "--data", str(DEMO_GOLDEN / "frozen.jsonl"), "--db", str(db)]).exit_code == 0
        assert runner.invoke(app, ["inbox", "import", "--db", str(db)]).exit_code == 0
        counts = {table: store.count(table) for table in ("runs", "labels", "inbox_decisions", "review_items")}
    mark_read_only(db)
    living = (root / "golden" / "living.jsonl").read_bytes()
    for args in writing_commands(root):
        one_line(runner.invoke(app, [*args, "--db", str(db)]), f"{db}: {READ_ONLY}", "nothing was changed")
    with Store.open(db) as store:  # reading still works, and nothing was written
        assert {table: store.count(table) for table in counts} == counts
    assert (root / "golden" / "living.jsonl").read_bytes() == living  # the promotion put its line back
    assert runner.invoke(app, ["inbox", "list", "--db", str(db)]).exit_code == 0


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes a file whatever its mode")
def test_a_store_file_without_write_permission_is_one_line_and_exit_2(root: Path) -> None:
    db = root / "q.db"
    Store.open(db).close()
    db.chmod(0o444)
    one_line(runner.invoke(app, ["inbox", "import", "--db", str(db)]), f"{db}: {READ_ONLY}")


def test_a_store_under_a_regular_file_is_one_line_and_exit_2(root: Path) -> None:
    (root / "notes").write_text("a file")
    db = root / "notes" / "q.db"
    for args in [["inbox", "list"], *writing_commands(root)]:
        one_line(runner.invoke(app, [*args, "--db", str(db)]), f"error: {db}: ")  # `queue` wants a store first
    result = runner.invoke(app, ["inbox", "import", "--db", str(db)])
    one_line(result, f"{db}: cannot open the store: {root / 'notes'} is a file, not a folder")


def test_a_folder_as_the_store_is_one_line_and_exit_2(root: Path) -> None:
    (root / "store").mkdir()
    one_line(runner.invoke(app, ["inbox", "import", "--db", "store"]), "store: cannot open the store")


def _limited_file_size(limit: int) -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


def qaeval_with_file_limit(root: Path, limit: int, *args: str) -> subprocess.CompletedProcess[str]:
    """The real `qaeval` in a process whose files cannot grow past `limit` bytes: a disk that fails a write."""
    return subprocess.run(
        [sys.executable, "-m", "qaeval_tui.cli", *args],
        cwd=root, capture_output=True, text=True, preexec_fn=lambda: _limited_file_size(limit),
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}, check=False,
    )  # fmt: skip


@pytest.mark.parametrize("existing", [False, True], ids=["new store", "existing store"])
def test_a_store_the_disk_fails_to_write_is_one_line_and_exit_2(root: Path, existing: bool) -> None:
    db = root / "q.db"
    if existing:
        Store.open(db).close()
    result = qaeval_with_file_limit(root, 8192, "inbox", "import", "--db", str(db))
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {db}: the store could not be written to disk"), lines
    with Store.open(db) as store:
        assert store.count("inbox") == 0
