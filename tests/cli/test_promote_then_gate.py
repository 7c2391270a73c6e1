"""A promoted production miss is a new case in the next gate, and a new case must pass."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from qaeval_tui.cli.main import app
from tests.conftest import DEMO_GOLDEN, REPO

runner = CliRunner()
BEDROOM = "tr-20261002-3f9a61"


def promote_bedroom_miss(tmp_path: Path, *extra: str) -> Path:
    golden = tmp_path / "golden"
    shutil.copytree(DEMO_GOLDEN, golden)
    db = str(tmp_path / "curation.db")
    assert runner.invoke(app, ["inbox", "import", str(golden / "inbox" / "misses.jsonl"), "--db", db]).exit_code == 0
    config = tmp_path / "qaeval.toml"
    config.write_text(f'[paths]\ngolden = "golden"\nliving = "golden/living.jsonl"\nstore = "{db}"\n')
    args = ["--config", str(config), "promote", BEDROOM, "--id", "bedroom-install-01", "--curator", "dana", *extra]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return golden


def gate(golden: Path, tmp_path: Path) -> tuple[int, dict[str, object]]:
    args = ["gate", "--data", str(golden), "--baseline", str(REPO / "baselines" / "demo.json")]
    result = runner.invoke(app, [*args, "--db", str(tmp_path / "gate.db"), "--json"])
    return result.exit_code, json.loads(result.stdout)


def test_promoted_case_is_new_in_the_gate_and_passes(tmp_path: Path) -> None:
    golden = promote_bedroom_miss(
        tmp_path, "--gold-answer", "No: the HB-10 must not be installed in sleeping areas.", "--gold-source", "s2"
    )
    code, report = gate(golden, tmp_path)
    assert code == 0 and report["verdict"] == "PASS"
    assert report["cases"] == {"total": 40, "new": 1, "changed": 0, "removed": []}


def test_a_promoted_case_the_system_fails_blocks_the_gate(tmp_path: Path) -> None:
    # Curated as must-abstain: the reference hub answers it, so the new case fails and must block.
    golden = promote_bedroom_miss(tmp_path, "--behavior", "abstain")
    code, report = gate(golden, tmp_path)
    assert code == 1 and report["verdict"] == "BLOCK"
    tiers = report["tiers"]
    assert isinstance(tiers, dict) and tiers["tier2"]["failing_new_cases"] == ["bedroom-install-01"]
