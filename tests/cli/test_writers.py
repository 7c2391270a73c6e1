"""Every file a command writes goes through one writer: a bad target is one line and exit 2, never a
traceback, and what was there before is never half-overwritten. Meaningful as root too: the targets
here fail for any user (a folder, a path under a regular file, /proc, a file-size limit)."""

from __future__ import annotations

import json
import os
import resource
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from qaeval_tui.cli.common import print_json
from qaeval_tui.cli.main import app
from qaeval_tui.core.errors import QaevalError
from qaeval_tui.core.running.result import write_json
from tests.conftest import REPO, write_jsonl
from tests.core.run_fixtures import abstain_case, case

runner = CliRunner()
DEMO_LABELS = REPO / "labels"


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "qaeval.toml").write_text("", encoding="utf-8")


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    folder = tmp_path / "golden"
    write_jsonl(folder / "frozen.jsonl", [c.model_dump(mode="json") for c in (case("w-01"), abstain_case("a-01"))])
    return folder


@pytest.fixture
def baseline(tmp_path: Path, suite: Path) -> Path:
    path = tmp_path / "baseline.json"
    result = runner.invoke(app, ["baseline", "--data", str(suite), "--out", str(path), "--db", "runs.db"])
    assert result.exit_code == 0, result.output
    return path


def writing_commands(target: Path, suite: Path, baseline: Path) -> list[list[str]]:
    """Every command option that writes a file, each aimed at `target`."""
    data = ["--data", str(suite), "--db", "runs.db"]
    gate = ["gate", "--baseline", str(baseline), *data]
    labels = ["--labels", str(DEMO_LABELS)]
    return [
        ["agreement", *labels, "--replicates", "100", "--markdown", str(target)],
        ["agreement", *labels, "--replicates", "100", "--html", str(target)],
        ["calibrate", *labels, "--markdown", str(target)],
        ["calibrate", *labels, "--html", str(target)],
        ["run", *data, "--out", str(target)],
        ["baseline", *data, "--out", str(target)],
        [*gate, "--out", str(target)],
        [*gate, "--junit", str(target)],
        [*gate, "--markdown", str(target)],
    ]


def one_line_error(result: Result, path: Path, reason: str) -> None:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and isinstance(result.exception, SystemExit | None), result.exception
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert errors == [f"error: {path}: cannot write: {reason}"], result.stderr


def test_a_folder_as_output_target_is_one_line_and_exit_2(tmp_path: Path, suite: Path, baseline: Path) -> None:
    folder = tmp_path / "reports"
    (folder / "keep.txt").parent.mkdir()
    (folder / "keep.txt").write_text("mine")
    for args in writing_commands(folder, suite, baseline):
        one_line_error(runner.invoke(app, args), folder, "it is a folder")
        assert [p.name for p in folder.iterdir()] == ["keep.txt"], args


def test_a_target_under_a_regular_file_is_one_line_and_exit_2(tmp_path: Path, suite: Path, baseline: Path) -> None:
    (tmp_path / "notes").write_text("a file, not a folder")
    target = tmp_path / "notes" / "report.out"
    for args in writing_commands(target, suite, baseline):
        one_line_error(runner.invoke(app, args), target, f"{tmp_path / 'notes'} is a file, not a folder")
    assert (tmp_path / "notes").read_text() == "a file, not a folder"


def test_a_target_that_can_never_be_written_is_refused_before_the_suite_runs(
    tmp_path: Path, suite: Path, baseline: Path
) -> None:
    # A typo in --junit must cost a second, not a whole run that is then stored for nothing.
    import sqlite3

    (tmp_path / "notes").write_text("a file, not a folder")
    for target in (tmp_path, tmp_path / "notes" / "report.out"):
        for args in writing_commands(target, suite, baseline):
            if args[0] not in ("run", "baseline", "gate"):
                continue
            before = sqlite3.connect(tmp_path / "runs.db").execute("select count(*) from runs").fetchone()
            result = runner.invoke(app, args)
            assert result.exit_code == 2, (args, result.output)
            after = sqlite3.connect(tmp_path / "runs.db").execute("select count(*) from runs").fetchone()
            assert after == before, f"{args}: a run was stored although its output could never be written"


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux /proc")
def test_a_target_no_one_may_write_is_one_line_and_exit_2(tmp_path: Path, suite: Path, baseline: Path) -> None:
    # /proc refuses new files even to root, where chmod would not stop a write.
    target = Path("/proc/qaeval-report.out")
    for args in writing_commands(target, suite, baseline):
        result = runner.invoke(app, args)
        assert result.exit_code == 2 and "Traceback" not in result.output, (args, result.output)
        errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
        assert len(errors) == 1 and errors[0].startswith(f"error: {target}: cannot write: "), errors


def test_rewritten_outputs_keep_their_permissions(tmp_path: Path, suite: Path, baseline: Path) -> None:
    artifact, summary = tmp_path / "run.json", tmp_path / "summary.md"
    for path, mode in ((artifact, 0o640), (summary, 0o600), (baseline, 0o664)):
        path.write_text("old")
        path.chmod(mode)
    data = ["--data", str(suite), "--db", "runs.db"]
    assert runner.invoke(app, ["run", *data, "--out", str(artifact)]).exit_code == 0
    assert runner.invoke(app, ["baseline", *data, "--out", str(baseline)]).exit_code == 0
    gate = runner.invoke(app, ["gate", "--baseline", str(baseline), *data, "--markdown", str(summary)])
    assert gate.exit_code == 0, gate.output
    assert json.loads(artifact.read_text())["cases"] and "PASS" in summary.read_text()
    modes = {path.name: stat.S_IMODE(path.stat().st_mode) for path in (artifact, summary, baseline)}
    assert modes == {"run.json": 0o640, "summary.md": 0o600, "baseline.json": 0o664}
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_a_link_keeps_pointing_at_its_file_and_a_stream_is_written_through(tmp_path: Path) -> None:
    real = tmp_path / "reports" / "agreement.md"
    real.parent.mkdir()
    real.write_text("old")
    (tmp_path / "latest.md").symlink_to(real)
    labels = ["agreement", "--labels", str(DEMO_LABELS), "--replicates", "100"]
    assert runner.invoke(app, [*labels, "--markdown", "latest.md"]).exit_code == 0
    assert (tmp_path / "latest.md").is_symlink() and real.read_text().startswith("#")
    assert runner.invoke(app, [*labels, "--markdown", os.devnull]).exit_code == 0
    assert Path(os.devnull).is_char_device()  # written through, never replaced by a file


def _limited_file_size(limit: int) -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


def test_a_write_that_fails_midway_leaves_the_old_report_whole(tmp_path: Path) -> None:
    # A file-size limit makes the disk refuse the write partway, as a full disk would, even for root.
    report = tmp_path / "agreement.html"
    report.write_text("<p>last week's report</p>\n")
    result = subprocess.run(
        [sys.executable, "-m", "qaeval_tui.cli", "agreement", "--labels", str(DEMO_LABELS), "--replicates", "100",
         "--html", str(report)],
        capture_output=True, text=True, cwd=tmp_path, preexec_fn=lambda: _limited_file_size(1024),
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}, check=False,
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith(f"error: {report}: cannot write: File too large")
    assert report.read_text() == "<p>last week's report</p>\n"
    assert [p.name for p in tmp_path.iterdir() if p.name != "qaeval.toml"] == ["agreement.html"]


# -- strict JSON: no NaN, no Infinity -------------------------------------------------------------------------


def test_printed_json_refuses_a_non_finite_number_naming_the_field(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(QaevalError, match=r"stdout: cannot write axes\.faithfulness\.ci\[1\] = nan"):
        print_json({"axes": {"faithfulness": {"alpha": 0.5, "ci": [0.1, float("nan")]}}})
    assert capsys.readouterr().out == ""
    print_json({"x": 1.5})
    assert json.loads(capsys.readouterr().out) == {"x": 1.5}


def test_a_json_file_with_infinity_is_not_written(tmp_path: Path) -> None:
    target = tmp_path / "run.json"
    target.write_text('{"old": true}\n')
    with pytest.raises(QaevalError, match=r"run\.json: cannot write metrics\.mrr = inf: JSON has no NaN or Infinity"):
        write_json(target, {"format": 1, "metrics": {"mrr": float("inf")}})
    assert json.loads(target.read_text()) == {"old": True}
