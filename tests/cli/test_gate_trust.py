"""The gate marks judge metrics of axes whose stored calibration is not TRUSTED (DESIGN §6)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from qaeval_tui.cli.main import app
from tests.conftest import DEMO_GOLDEN, REPO

runner = CliRunner()
BASELINE = str(REPO / "baselines" / "demo.json")


@pytest.fixture
def db(tmp_path: Path) -> str:
    path = str(tmp_path / "q.db")
    assert runner.invoke(app, ["run", "--data", str(DEMO_GOLDEN), "--db", path]).exit_code == 0
    return path


def gate_json(db: str) -> dict[str, object]:
    result = runner.invoke(app, ["gate", "--data", str(DEMO_GOLDEN), "--baseline", BASELINE, "--db", db, "--json"])
    assert result.exit_code == 0, result.output
    data: dict[str, object] = json.loads(result.stdout)
    return data


def test_without_labels_no_axis_is_marked(db: str) -> None:
    data = gate_json(db)
    assert data["untrusted_axes"] == [] and data["axis_trust"] == {}


def test_demo_labels_mark_the_retune_axis_untrusted(db: str, tmp_path: Path) -> None:
    imported = runner.invoke(app, ["labels", "import", str(REPO / "labels"), "--db", db])
    assert imported.exit_code == 0, imported.output
    calibration = json.loads(runner.invoke(app, ["calibrate", "--db", db, "--json"]).stdout)
    expected = sorted(axis for axis, row in calibration["axes"].items() if row["verdict"] != "TRUSTED")
    assert expected, "the demo labels are meant to show one axis the bundled judge has not earned"
    data = gate_json(db)
    assert data["untrusted_axes"] == expected
    assert data["axis_trust"] == {axis: row["verdict"] for axis, row in calibration["axes"].items()}
    summary = tmp_path / "summary.md"
    args = ["gate", "--data", str(DEMO_GOLDEN), "--baseline", BASELINE, "--db", db, "--markdown", str(summary)]
    assert runner.invoke(app, args).exit_code == 0
    # Decided on the interval, the demo judge earns no axis: constant on two, too few items for the third.
    untrusted = "answer\\_correctness (INSUFFICIENT), citation\\_correctness (RETUNE), faithfulness (RETUNE)."
    assert f"Untrusted judge axes (calibration not TRUSTED): {untrusted}" in summary.read_text()
