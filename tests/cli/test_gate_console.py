"""The gate's console report leads with its verdict and reason, `--quiet` prints only that and the
findings, and the tolerances below the suite's MDE are one line pointing at `qaeval plan`."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner, Result

from qaeval_tui.cli.main import app
from tests.conftest import DEMO_GOLDEN, REPO

BASELINE = REPO / "baselines" / "demo.json"
BUGGY = ["--data", str(REPO / "golden_buggy"), "--adapter", "qaeval_tui.bundled.buggy_hub:make_buggy_hub"]
runner = CliRunner()


def gate(tmp_path: Path, *args: str) -> Result:
    empty = tmp_path / "qaeval.toml"
    empty.write_text("", encoding="utf-8")
    command = ["--config", str(empty), "gate", "--baseline", str(BASELINE), "--db", str(tmp_path / "g.db"), *args]
    return runner.invoke(app, command)


def test_the_verdict_and_its_reason_come_first_and_the_mde_warnings_are_one_line(tmp_path: Path) -> None:
    passed = gate(tmp_path, "--data", str(DEMO_GOLDEN))
    lines = passed.stdout.splitlines()
    assert passed.exit_code == 0
    assert lines[0] == (
        "GATE: PASS — every deterministic check green, no metric beyond tolerance, no regression, new cases pass"
    )
    warnings = [line for line in lines if line.startswith("warning: ")]
    assert len(warnings) == 1
    assert warnings[0].startswith("warning: 12 tolerance(s) are below what this suite resolves (")
    assert warnings[0].endswith(f"`qaeval plan --baseline {BASELINE}` says how many cases each needs")


def test_quiet_prints_the_verdict_and_the_findings_only(tmp_path: Path) -> None:
    blocked = gate(tmp_path, *BUGGY, "--quiet")
    lines = blocked.stdout.splitlines()
    assert blocked.exit_code == 1
    assert lines[0].startswith("GATE: BLOCK — 4 deterministic check(s) fired on 4 case(s)")
    assert "      adapter_ok: cold-garage-charging-01" in lines
    assert not any(line.startswith(("Cases:", "metric", "mode ", "warning: ")) for line in lines)
