"""Numbers at the edge of what a float holds are handled values, never an OverflowError: a target MDE
of 1e-155 squares past the largest float, and so does a gate tolerance of 1e-300."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from qaeval_tui.cli.main import app
from qaeval_tui.core.gate import power
from tests.conftest import DEMO_GOLDEN, REPO

BASELINE = str(REPO / "baselines" / "demo.json")


@pytest.mark.parametrize("target", [1e-155, 1e-300, 5e-324])
def test_no_countable_suite_is_a_plan_of_none_not_an_overflow(target: float) -> None:
    assert power.cases_needed(0.5, target, 12) is None
    assert power.cases_needed(0.5, 0.02, 12) is not None
    assert power.short(target) != "0.00"


@pytest.mark.parametrize("mde", ["1e-155", "1e-300"])
def test_plan_with_a_vanishing_mde_says_no_countable_suite(mde: str) -> None:
    result = CliRunner().invoke(app, ["plan", "--baseline", BASELINE, "--mde", mde, "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["metrics"]
    assert rows and all(row["cases_needed"] is None for row in rows if row["n"])
    text = CliRunner().invoke(app, ["plan", "--baseline", BASELINE, "--mde", mde])
    assert text.exit_code == 0 and "no countable suite resolves" in text.stdout


@pytest.mark.parametrize("mode", ["statistical", "tolerance"])
def test_a_gate_tolerance_of_1e_300_is_no_traceback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "qaeval.toml").write_text(
        f'[gate]\nmode = "{mode}"\n[gate.tolerances]\ncitation_coverage = 1e-300\n', encoding="utf-8"
    )
    result = CliRunner().invoke(app, ["gate", "--baseline", BASELINE, "--data", str(DEMO_GOLDEN), "--json"])
    assert isinstance(result.exception, SystemExit) or result.exception is None, result.exception
    assert result.exit_code in (0, 1, 3), result.output
    citation = json.loads(result.stdout)
    assert "1e-300" in json.dumps(citation)
    console = CliRunner().invoke(app, ["gate", "--baseline", BASELINE, "--data", str(DEMO_GOLDEN)])
    rows = [line for line in console.stdout.splitlines() if line.startswith("citation_coverage")]
    assert any("1e-300" in row for row in rows), console.stdout  # the tolerance as given, not rounded to 0.000
