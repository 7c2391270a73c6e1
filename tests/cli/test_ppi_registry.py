"""A judge-scored metric newer than the baseline under `[gate] judge_metrics = "ppi"` (and in `statistical`
mode): the baseline has no PPI value for it, so the gate shows it "n/a: not in the baseline" in text, JSON,
Markdown, JUnit and HTML, as without PPI, never a pass and never a refusal (exit 2); the exit code and
every other metric are what they are without it, and unregistering it restores every output byte for byte."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from qaeval_tui.cli.main import app
from qaeval_tui.core.gate.baseline import load_baseline
from qaeval_tui.core.running.metrics import METRIC_NAMES, CaseContext, MetricSpec, registered_metric
from tests.cli.test_ppi_cmds import PPI_CONFIG, big_suite, ppi_baseline
from tests.cli.test_run_cmds import _normalized

__all__ = ["big_suite"]  # the fixture, used by name

runner = CliRunner()
NAME = "answered_faithful_score"


def _faithful(context: CaseContext) -> float | None:
    """The judge's faithfulness score of an answer, scaled to 0..1; None for a refusal or a failed output."""
    return context.judged("faithfulness") if context.answered else None


THROWAWAY = MetricSpec(
    NAME,
    "the judge's faithfulness score of an answer, 0..1",
    _faithful,
    no_cases="no answer",
    judge_axis="faithfulness",
    tolerance=0.05,
)


def _gate(tmp_path: Path, labelled: Path, suite: Path, baseline: Path, config: Path, tag: str) -> dict[str, str | int]:
    """The gate in every format on a copy of the labelled store (so each gate sees the same stored runs),
    normalized (ids, times, paths; `tag` names its files, so it must be a word no report contains)."""
    db = tmp_path / f"{tag}.db"
    shutil.copyfile(labelled, db)
    markdown, junit, html = tmp_path / f"{tag}.md", tmp_path / f"{tag}.xml", tmp_path / f"{tag}.html"
    args = ["--config", str(config), "gate", "--data", str(suite), "--baseline", str(baseline), "--db", str(db)]
    text = runner.invoke(app, [*args, "--markdown", str(markdown), "--junit", str(junit), "--html", str(html)])
    shutil.copyfile(labelled, db)
    as_json = runner.invoke(app, [*args, "--json"])
    assert text.exit_code == as_json.exit_code, text.output
    assert text.stderr == as_json.stderr == "", text.stderr
    return {
        "exit": text.exit_code,
        "text": _normalized(text.stdout, tmp_path).replace(tag, "<tag>"),
        "json": _normalized(as_json.stdout, tmp_path).replace(tag, "<tag>"),
        "markdown": _normalized(markdown.read_text(encoding="utf-8"), tmp_path).replace(tag, "<tag>"),
        "junit": _normalized(junit.read_text(encoding="utf-8"), tmp_path).replace(tag, "<tag>"),
        "html": _normalized(html.read_text(encoding="utf-8"), tmp_path).replace(tag, "<tag>"),
    }


def _assert_n_a_everywhere(during: dict[str, str | int], before: dict[str, str | int]) -> None:
    gated = [line.rstrip() for line in str(during["text"]).splitlines() if line.startswith(f"{NAME} ")][-1]
    assert gated.endswith("  0.050  n/a: not in the baseline") and "pass" not in gated, gated
    rows = json.loads(str(during["json"]))["metrics"]
    new = next(row for row in rows if row["name"] == NAME)
    assert new["status"] == "n/a" and new["reason"].startswith("not in the baseline"), new
    assert new["basis"] != "ppi" and new["baseline"] is None and new["current"] is not None
    others = [row for row in rows if row["name"] != NAME]
    assert others == json.loads(str(before["json"]))["metrics"]  # every other metric as it was
    escaped = NAME.replace("_", r"\_")
    row = next(line for line in str(during["markdown"]).splitlines() if line.startswith(f"| {escaped} "))
    assert row.endswith("| n/a: not in the baseline |"), row
    suite = ET.fromstring(str(during["junit"])).find("testsuite[@name='qaeval.metrics']")
    assert suite is not None
    case = next(case for case in suite.iter("testcase") if case.get("name", "").startswith(f"{NAME} "))
    assert case.find("failure") is None
    skipped = case.find("skipped")
    assert skipped is not None and skipped.get("message", "").startswith("n/a: not in the baseline")
    assert "<td>n/a: not in the baseline</td>" in str(during["html"])


@pytest.mark.parametrize(
    ("mode", "verdict"),
    [
        ("", 0),  # the PPI estimates of the built-in judge metrics held: PASS
        ('mode = "statistical"\n', 3),  # PPI rows have no paired test: refused, as without the new metric
    ],
)
def test_a_judge_metric_newer_than_the_baseline_is_n_a_under_ppi(
    tmp_path: Path, big_suite: Path, mode: str, verdict: int
) -> None:
    labelled, baseline, config = ppi_baseline(tmp_path, big_suite)
    config.write_text(PPI_CONFIG + mode)
    before = _gate(tmp_path, labelled, big_suite, baseline, config, "q1z")
    with registered_metric(THROWAWAY):
        assert load_baseline(baseline).not_in_baseline == (NAME,)
        during = _gate(tmp_path, labelled, big_suite, baseline, config, "q2z")
    after = _gate(tmp_path, labelled, big_suite, baseline, config, "q3z")
    assert NAME not in METRIC_NAMES
    assert after == before  # byte for byte, every output
    assert during["exit"] == before["exit"] == verdict, during["text"]
    _assert_n_a_everywhere(during, before)
    if not mode:  # the gated built-in judge metrics still compare PPI estimates
        rows = json.loads(str(during["json"]))["metrics"]
        assert next(row for row in rows if row["name"] == "faithfulness_rate")["basis"] == "ppi"


def test_a_judge_metric_newer_than_the_baseline_is_n_a_in_statistical_mode(tmp_path: Path, big_suite: Path) -> None:
    labelled, baseline, config = ppi_baseline(tmp_path, big_suite)
    config.write_text('[gate]\nmode = "statistical"\n')
    before = _gate(tmp_path, labelled, big_suite, baseline, config, "q1z")
    with registered_metric(THROWAWAY):
        during = _gate(tmp_path, labelled, big_suite, baseline, config, "q2z")
    assert during["exit"] == before["exit"], during["text"]
    _assert_n_a_everywhere(during, before)


def test_a_judge_metric_registered_after_import_gets_its_ppi_estimate(tmp_path: Path, big_suite: Path) -> None:
    labelled, _, _ = ppi_baseline(tmp_path, big_suite)
    with registered_metric(THROWAWAY):
        ran = runner.invoke(app, ["run", "--data", str(big_suite), "--json", "--db", str(labelled)])
    assert ran.exit_code == 0, ran.output
    estimates = json.loads(ran.stdout)["ppi"]["metrics"]
    assert estimates[NAME]["n_labelled"] == 42 and estimates[NAME]["ci"] is not None  # labelled like the others
