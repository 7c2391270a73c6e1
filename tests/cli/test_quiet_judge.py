"""The review's reproduction: a judge that keeps its top scores and says "can't judge" elsewhere.

On the demo set, answer correctness went from 0.667 on 39 cases to 1.000 on 18, shown as +0.333,
and the gate said PASS. Now the lost values block, and every output names them.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from typer.testing import CliRunner

from qaeval_tui.cli.main import app
from tests.conftest import DEMO_GOLDEN, REPO

QUIET = "tests.cli.hostile_plugins:make_top_or_quiet_judge"


def test_a_judge_quiet_where_it_would_score_low_blocks_the_demo_gate_in_every_output(tmp_path: Path) -> None:
    junit, markdown = tmp_path / "gate.xml", tmp_path / "gate.md"
    args = ["gate", "--data", str(DEMO_GOLDEN), "--baseline", str(REPO / "baselines" / "demo.json")]
    args += ["--db", str(tmp_path / "runs.db"), "--judge", QUIET]
    result = CliRunner().invoke(app, [*args, "--junit", str(junit), "--markdown", str(markdown)])
    assert result.exit_code == 1
    assert "GATE: BLOCK" in result.stdout
    said = "answer_correctness lost 21 of its 39 baseline value(s): the judge said can't judge on case(s)"
    assert (
        said in result.stdout and " and 16 more); baseline 0.667 -> 1.000 compares 39 value(s) with 18" in result.stdout
    )
    assert "values on the shared cases, baseline -> now: answer_correctness 39 -> 18" in result.stdout

    document = json.loads(CliRunner().invoke(app, [*args, "--json"]).stdout)
    assert document["verdict"] == "BLOCK" and document["tiers"]["tier2"]["failed_metrics"] == ["answer_correctness"]
    entry = next(m for m in document["metrics"] if m["name"] == "answer_correctness")
    assert len(entry["lost_cases"]) == 21 and entry["status"] == "fail"
    assert "answer\\_correctness: lost 21 of its 39" in markdown.read_text()
    # The metric's name carries its trust marker (from the committed calibration the repo's config names).
    case = next(t for t in ET.parse(junit).iter("testcase") if t.get("name", "").startswith("answer_correctness "))
    failure = case.find("failure")
    assert failure is not None and "lost 21 of its 39" in failure.get("message", "")
