"""`qaeval run` says why cases failed, grouped by reason, and `--strict` fails a run in which every
adapter call or every judge call failed (a smoke test that cannot pass by accident)."""

from __future__ import annotations

import socket
from pathlib import Path

from typer.testing import CliRunner

from qaeval_tui.cli.main import app

runner = CliRunner()
OUTAGE_JUDGE = "tests.cli.hostile_plugins:make_outage_judge"


def closed_port() -> int:
    """A loopback port nothing listens on: every connection is refused."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def http_config(tmp_path: Path) -> Path:
    path = tmp_path / "qaeval.toml"
    path.write_text(
        f'[run]\nadapter = "http"\n[run.http]\nurl = "http://127.0.0.1:{closed_port()}/answer"\n'
        "max_retries = 0\nbackoff_s = 0.01\n",
        encoding="utf-8",
    )
    return path


def plain_config(tmp_path: Path) -> Path:
    path = tmp_path / "plain.toml"
    path.write_text("", encoding="utf-8")
    return path


def run(tmp_path: Path, suite: Path, config: Path, *args: str) -> list[str]:
    command = ["--config", str(config), "run", "--data", str(suite), "--db", str(tmp_path / "r.db"), *args]
    result = runner.invoke(app, command)
    return [str(result.exit_code), *result.stdout.splitlines(), *result.stderr.splitlines()]


def test_a_system_that_is_down_is_named_once_with_how_many_cases_it_cost(tmp_path: Path, suite: Path) -> None:
    said = run(tmp_path, suite, http_config(tmp_path))
    assert said[0] == "0", said
    assert "  4 cases: the HTTP system failed: network error: ConnectError (1 attempt)" in said


def test_strict_exits_1_when_every_adapter_call_failed(tmp_path: Path, suite: Path) -> None:
    said = run(tmp_path, suite, http_config(tmp_path), "--strict")
    assert said[0] == "1"
    assert "error: --strict: the system failed on every case (4)" in said


def test_strict_exits_1_when_every_judge_call_failed_and_0_on_a_healthy_run(tmp_path: Path, suite: Path) -> None:
    failed = run(tmp_path, suite, plain_config(tmp_path), "--judge", OUTAGE_JUDGE, "--strict")
    assert failed[0] == "1" and "error: --strict: the judge failed on every case (4)" in failed
    assert any(line.startswith("  4 cases: the judge failed: ") for line in failed)
    healthy = run(tmp_path, suite, plain_config(tmp_path), "--strict")
    assert healthy[0] == "0" and not any("--strict" in line for line in healthy)
