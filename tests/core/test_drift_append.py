"""The drift series survives a writer that dies halfway, and band settings cannot switch alarms off.

Appending in place left half a line behind when the writer was killed or the disk filled up,
and every later `qaeval drift` then stopped at that line (exit 2) for good.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from qaeval_tui.cli.main import app
from qaeval_tui.core.statistics.drift import DriftPoint, append_point, read_timeseries
from tests.conftest import DEMO_GOLDEN, REPO

posix_only = pytest.mark.skipif(os.name != "posix", reason="resource limits and signals are POSIX")

APPEND = """
import sys
from qaeval_tui.core.statistics.drift import DriftPoint, append_point
point = DriftPoint("2026-10-0{n}T09:00:00.000Z", "run-{n}", "suite", "judge", {{"mrr": 0.{n}}})
{prepare}
append_point(sys.argv[1], point)
"""


def point(n: int) -> DriftPoint:
    return DriftPoint(f"2026-10-0{n}T09:00:00.000Z", f"run-{n}", "suite", "judge", {"mrr": n / 10})


def series_of(tmp_path: Path, points: int) -> Path:
    path = tmp_path / "series.jsonl"
    for n in range(1, points + 1):
        append_point(path, point(n))
    return path


def append_in_a_child(path: Path, n: int, prepare: str) -> subprocess.CompletedProcess[str]:
    code = APPEND.format(n=n, prepare=prepare)
    return subprocess.run(
        [sys.executable, "-c", code, str(path)], cwd=REPO, capture_output=True, text=True, check=False
    )


@posix_only
def test_a_write_cut_short_by_a_full_disk_leaves_the_series_whole(tmp_path: Path) -> None:
    path = series_of(tmp_path, 3)
    before = path.read_bytes()
    # The file size limit stops the write 20 bytes into the new line, as a full disk does.
    limit = f"import resource; resource.setrlimit(resource.RLIMIT_FSIZE, ({len(before) + 20}, {len(before) + 20}))"
    cut = append_in_a_child(path, 4, limit)
    assert cut.returncode != 0 and "cannot append to the time series" in cut.stderr
    assert path.read_bytes() == before
    assert [p.run_id for p in read_timeseries(path)] == ["run-1", "run-2", "run-3"]
    append_point(path, point(4))  # and the next run appends as if nothing happened
    assert [p.run_id for p in read_timeseries(path)] == ["run-1", "run-2", "run-3", "run-4"]


@posix_only
def test_a_writer_killed_halfway_leaves_the_series_whole_and_its_temporary_file_is_cleared(tmp_path: Path) -> None:
    path = series_of(tmp_path, 3)
    before = path.read_bytes()
    kill_at_sync = "import os, signal; os.fsync = lambda fd: os.kill(os.getpid(), signal.SIGKILL)"
    killed = append_in_a_child(path, 4, kill_at_sync)
    assert killed.returncode == -signal.SIGKILL
    assert path.read_bytes() == before
    left = [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert len(left) == 1 and left[0].startswith(".series.jsonl.")
    append_point(path, point(4))
    assert [p.run_id for p in read_timeseries(path)][-1] == "run-4"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_two_runs_appending_at_once_both_keep_their_points(tmp_path: Path) -> None:
    path = tmp_path / "series.jsonl"
    loop = "for _ in range(15): append_point(sys.argv[1], point)\nraise SystemExit(0)"
    writers = [
        subprocess.Popen([sys.executable, "-c", APPEND.format(n=n, prepare=loop), str(path)], cwd=REPO) for n in (1, 2)
    ]
    assert [writer.wait(timeout=120) for writer in writers] == [0, 0]
    run_ids = [p.run_id for p in read_timeseries(path)]
    assert sorted(run_ids) == ["run-1"] * 15 + ["run-2"] * 15


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--sigma", "1e308"),
        ("--sigma", "inf"),
        ("--sigma", "nan"),
        ("--sigma", "10.5"),
        ("--sigma", "-1"),
        ("--min-band", "1e308"),
        ("--min-band", "0.6"),
        ("--min-band", "nan"),
        ("--min-band", "-0.1"),
    ],
)
def test_a_band_setting_that_would_never_alarm_is_a_usage_error(tmp_path: Path, option: str, value: str) -> None:
    series = tmp_path / "series.jsonl"
    result = CliRunner().invoke(
        app,
        [
            "drift",
            "--data",
            str(DEMO_GOLDEN),
            "--timeseries",
            str(series),
            "--db",
            str(tmp_path / "r.db"),
            option,
            value,
        ],
    )
    assert result.exit_code == 2
    highest = "10" if option == "--sigma" else "0.5"
    [line] = result.stderr.splitlines()
    assert line.startswith(f"error: {option} must be a number from 0 to {highest}, got ")
    assert line.endswith("a wider band never alarms, so it would switch drift detection off")
    assert not series.exists() and not (tmp_path / "r.db").exists()  # refused before the run


def test_the_widest_band_settings_allowed_still_run(tmp_path: Path) -> None:
    series = tmp_path / "series.jsonl"
    args = ["drift", "--data", str(DEMO_GOLDEN), "--timeseries", str(series), "--db", str(tmp_path / "r.db")]
    result = CliRunner().invoke(app, [*args, "--sigma", "10", "--min-band", "0.5"])
    assert result.exit_code == 0, result.output
    assert len(read_timeseries(series)) == 1
