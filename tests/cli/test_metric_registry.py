"""A metric registered through the public API reaches every output, and a committed baseline older than it
still loads: the gate shows it "n/a: not in the baseline" in text, JSON, Markdown, JUnit and HTML, with the exit
code and every other metric as they were. Unregistering it restores the outputs byte for byte."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from qaeval_tui.cli.main import app
from qaeval_tui.core.gate.baseline import load_baseline
from qaeval_tui.core.gate.decision import resolve_tolerances
from qaeval_tui.core.running.metrics import (
    METRIC_NAMES,
    CaseContext,
    MetricSpec,
    registered_metric,
)
from tests.cli.test_run_cmds import _normalized
from tests.conftest import DEMO_GOLDEN, REPO

runner = CliRunner()
COMMITTED = REPO / "baselines" / "demo.json"
NAME = "answer_quoted_share"


def _quoted(context: CaseContext) -> float | None:
    """1 when every citation of an answer carries a quote; None for a refusal or an uncited answer."""
    if not context.answered or not context.output.citations:
        return None
    return 1.0 if all(citation.quote for citation in context.output.citations) else 0.0


THROWAWAY = MetricSpec(
    NAME,
    "share of cited answers whose every citation quotes its source",
    _quoted,
    no_cases="no cited answer",
    tolerance=0.05,
    slice_column="quoted",
)


def _gate(tmp_path: Path, tag: str) -> dict[str, str | int]:
    """The gate of the demo set against the committed baseline, every output normalized (ids, times, paths;
    `tag` names its files and store, so it must be a word no report contains)."""
    markdown, junit, html = tmp_path / f"{tag}.md", tmp_path / f"{tag}.xml", tmp_path / f"{tag}.html"
    args = ["gate", "--data", str(DEMO_GOLDEN), "--baseline", str(COMMITTED), "--db", str(tmp_path / f"{tag}.db")]
    text = runner.invoke(app, [*args, "--markdown", str(markdown), "--junit", str(junit), "--html", str(html)])
    as_json = runner.invoke(app, [*args, "--json"])
    assert text.exit_code == as_json.exit_code, text.output
    return {
        "exit": text.exit_code,
        "text": _normalized(text.stdout, tmp_path).replace(tag, "<tag>"),
        "json": _normalized(as_json.stdout, tmp_path).replace(tag, "<tag>"),
        "markdown": _normalized(markdown.read_text(encoding="utf-8"), tmp_path).replace(tag, "<tag>"),
        "junit": _normalized(junit.read_text(encoding="utf-8"), tmp_path).replace(tag, "<tag>"),
        "html": _normalized(html.read_text(encoding="utf-8"), tmp_path).replace(tag, "<tag>"),
    }


@pytest.mark.skipif(not DEMO_GOLDEN.is_dir(), reason="the demo golden set is not there yet")
def test_a_registered_metric_is_n_a_against_an_older_baseline_and_leaves_no_trace_when_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no config: the built-in tolerances
    before = _gate(tmp_path, "q1z")
    with registered_metric(THROWAWAY):
        assert NAME in METRIC_NAMES and resolve_tolerances({})[NAME] == 0.05  # gated by its declared default
        loaded = load_baseline(COMMITTED)
        assert loaded.not_in_baseline == (NAME,) and NAME not in loaded.metrics
        during = _gate(tmp_path, "q2z")
    after = _gate(tmp_path, "q3z")
    assert NAME not in METRIC_NAMES
    assert after == before  # byte for byte, every output

    assert during["exit"] == before["exit"] == 0  # the verdict is the one without the metric
    scoreboard, gated = [line.rstrip() for line in str(during["text"]).splitlines() if line.startswith(NAME)]
    assert scoreboard.split() == [NAME, "1.000", "31"]  # the run's own table measures it
    assert f"quoted = {NAME}" in str(during["text"])  # and its per-slice table has the declared column
    assert gated.endswith("  0.050  n/a: not in the baseline") and "pass" not in gated
    rows = json.loads(str(during["json"]))["metrics"]
    new = next(row for row in rows if row["name"] == NAME)
    assert new["status"] == "n/a" and new["reason"].startswith("not in the baseline")
    assert new["baseline"] is None and new["current"] is not None  # measured now, nothing to compare with
    others = [row for row in rows if row["name"] != NAME]
    assert others == json.loads(str(before["json"]))["metrics"]  # every other metric unchanged
    escaped = NAME.replace("_", r"\_")  # Markdown: an underscore is literal
    row = next(line for line in str(during["markdown"]).splitlines() if line.startswith(f"| {escaped} |"))
    assert row.endswith("| n/a: not in the baseline |")
    suite = ET.fromstring(str(during["junit"])).find("testsuite[@name='qaeval.metrics']")
    assert suite is not None
    case = suite.find(f"testcase[@name='{NAME}']")
    assert case is not None and case.find("failure") is None
    skipped = case.find("skipped")
    assert skipped is not None and skipped.get("message", "").startswith("n/a: not in the baseline")
    assert "<td>n/a: not in the baseline</td>" in str(during["html"])


def test_a_metric_is_declared_once_with_bounds_and_a_unique_name() -> None:
    with (
        registered_metric(THROWAWAY),
        pytest.raises(ValueError, match="already registered"),
        registered_metric(THROWAWAY),
    ):
        pass
    wide = MetricSpec("wide", "a count, not a rate", _quoted, bounds=(0.0, 10.0))
    with pytest.raises(ValueError, match="bounds must lie within"), registered_metric(wide):
        pass
    assert NAME not in METRIC_NAMES and "wide" not in METRIC_NAMES


def test_a_baseline_value_outside_a_metric_s_declared_bounds_is_located(tmp_path: Path) -> None:
    from qaeval_tui.core.gate.baseline import BaselineInputError

    narrow = MetricSpec("half_rate", "a share that cannot pass one half", _quoted, bounds=(0.0, 0.5))
    document = json.loads(COMMITTED.read_text(encoding="utf-8"))
    document["metrics"]["overall"]["half_rate"] = {"value": 0.8, "n": 1, "reason": None}
    for index, case in enumerate(document["cases"]):
        case["values"]["half_rate"] = 0.8 if index == 0 else None
    path = tmp_path / "baseline.json"
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    with registered_metric(narrow), pytest.raises(BaselineInputError) as raised:
        load_baseline(path)
    messages = [str(problem) for problem in raised.value.problems]
    assert any("cases[0].values.half_rate: must be from 0 to 0.5" in message for message in messages), messages
    assert any("metrics.overall.half_rate.value: must be from 0 to 0.5" in message for message in messages)
    with pytest.raises(BaselineInputError, match="unknown metric 'half_rate'"):
        load_baseline(path)  # unregistered: a metric this qaeval does not know
