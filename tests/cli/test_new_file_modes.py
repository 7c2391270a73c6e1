"""A file qaeval creates gets the mode the umask asks for (reviewer notes under `umask 077` stay private);
a file it rewrites keeps its own mode."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_label_export import add_labels
from tests.conftest import REPO
from tests.curation_fixtures import demo_copy


def qaeval(root: Path, umask: int, *args: str) -> subprocess.CompletedProcess[str]:
    """The real CLI in a fresh process whose umask is `umask`, as a shell's `umask 077` would start it."""
    return subprocess.run(
        [sys.executable, "-m", "qaeval_tui", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "PYTHONPATH": str(REPO)},  # this checkout's code, whatever is installed
        preexec_fn=lambda: os.umask(umask),
    )


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.skipif(os.name != "posix", reason="file modes and umask are POSIX")
@pytest.mark.parametrize(("umask", "expected"), [(0o077, 0o600), (0o022, 0o644), (0o027, 0o640)])
def test_new_export_and_report_files_follow_the_umask(tmp_path: Path, umask: int, expected: int) -> None:
    demo_copy(tmp_path)
    add_labels(tmp_path / "q.db", "ana")
    exported = qaeval(tmp_path, umask, "labels", "export", "--db", "q.db", "--out", "out", "--verdicts")
    assert exported.returncode == 0, exported.stderr
    report = qaeval(tmp_path, umask, "agreement", "--db", "q.db", "--markdown", "report.md")
    assert report.returncode == 0, report.stderr
    created = [tmp_path / "out" / "ana.jsonl", tmp_path / "out" / "judge-verdicts.jsonl", tmp_path / "report.md"]
    assert {path.name: oct(mode(path)) for path in created} == {path.name: oct(expected) for path in created}


@pytest.mark.skipif(os.name != "posix", reason="file modes and umask are POSIX")
def test_a_rewritten_file_keeps_its_mode_whatever_the_umask(tmp_path: Path) -> None:
    demo_copy(tmp_path)
    add_labels(tmp_path / "q.db", "ana")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "ana.jsonl").write_text("")
    (tmp_path / "out" / "ana.jsonl").chmod(0o664)
    exported = qaeval(tmp_path, 0o077, "labels", "export", "--db", "q.db", "--out", "out")
    assert exported.returncode == 0, exported.stderr
    assert mode(tmp_path / "out" / "ana.jsonl") == 0o664
    assert (tmp_path / "out" / "ana.jsonl").read_text().count("\n") == 1
