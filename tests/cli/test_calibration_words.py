"""`qaeval calibrate`: the verdict, the bound that decided it and the warnings, in the same words in every output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from qaeval_tui.cli.main import app
from qaeval_tui.core.statistics.verdict import RULE_POINT_NOTE, verdict_line
from qaeval_tui.core.text import html_text, markdown_text
from tests.cli.test_label_cmds import varied_folder, write_labels

runner = CliRunner()


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def outputs(*config: str) -> tuple[dict[str, object], str, str, str]:
    """JSON, console, Markdown and HTML of one calibration."""
    args = [*config, "calibrate", "--labels", "labels"]
    data = json.loads(runner.invoke(app, [*args, "--json"]).stdout)
    console = runner.invoke(app, [*args, "--markdown", "c.md", "--html", "c.html"], terminal_width=400)
    return data, console.stdout, Path("c.md").read_text(), Path("c.html").read_text()


def test_every_output_carries_the_same_verdict_line(tmp_path: Path) -> None:
    # 20 items, 14 agreed: INSUFFICIENT on its lower bound; citation_correctness 8 of 20 agreed: RETUNE.
    varied_folder(tmp_path / "labels", {"faithfulness": 6, "citation_correctness": 12}, n=20)
    solo = [("solo", {"faithfulness": 2, "citation_correctness": 2, "answer_correctness": 2})]
    write_labels(tmp_path / "labels", {"chloe": solo})  # one reviewer only
    data, console, markdown, html = outputs()
    axes = data["axes"]
    assert isinstance(axes, dict)
    assert axes["faithfulness"]["verdict"] == "INSUFFICIENT"
    assert axes["faithfulness"]["verdict_reason"].startswith("lower bound 0.46 of exact agreement is below min_exact")
    assert axes["citation_correctness"]["verdict"] == "RETUNE"
    assert axes["faithfulness"]["one_reviewer_items"] == ["solo"]
    for name, axis in axes.items():
        words = verdict_line(name, axis)
        assert "warning: 1 item(s) with one reviewer only" in words
        assert words in console
        assert markdown_text(words) in markdown
        assert html_text(words) in html
    assert data["rule_note"] is None and RULE_POINT_NOTE not in console + markdown + html


def test_the_point_rule_says_so_in_every_output(tmp_path: Path) -> None:
    varied_folder(tmp_path / "labels", {"faithfulness": 6}, n=20)
    (tmp_path / "point.toml").write_text('[calibration]\nrule = "point"\n')
    data, console, markdown, html = outputs("--config", "point.toml")
    assert data["rule_note"] == RULE_POINT_NOTE
    assert RULE_POINT_NOTE in console and markdown_text(RULE_POINT_NOTE) in markdown
    assert html_text(RULE_POINT_NOTE) in html
