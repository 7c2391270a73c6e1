"""The HTML reports' figures are inline SVG that carry the numbers the tables print.

Each report is rendered by the real command; its SVG is read back with the standard library's HTML
parser and each drawn number is compared with the same report's `--json` (interval ends to the
sixth decimal), so a figure that drew the wrong interval, or an interval the table does not print,
fails here.
"""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest
from typer.testing import CliRunner

from qaeval_tui.cli.main import app
from tests.conftest import DEMO_GOLDEN, REPO

runner = CliRunner()
BUGGY = "qaeval_tui.bundled.buggy_hub:make_buggy_hub"


class Figures(HTMLParser):
    """Every `<svg>` of a page (its attributes) and the `data-*` elements inside each."""

    def __init__(self) -> None:
        super().__init__()
        self.svgs: list[dict[str, str]] = []
        self.parts: list[list[tuple[str, dict[str, str]]]] = []
        self.scripts = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {name: value or "" for name, value in attrs}
        if tag == "script":
            self.scripts += 1
        if tag == "svg":
            self.svgs.append(found)
            self.parts.append([])
        elif self.parts:
            self.parts[-1].append((tag, found))

    def figure(self, name: str, **where: str) -> tuple[dict[str, str], list[tuple[str, dict[str, str]]]]:
        for svg, parts in zip(self.svgs, self.parts, strict=True):
            if svg.get("data-figure") == name and all(svg.get(k) == v for k, v in where.items()):
                return svg, parts
        raise AssertionError(f"no {name} figure {where} among {[s.get('data-figure') for s in self.svgs]}")

    def points(self, name: str) -> dict[str, dict[str, str]]:
        _, parts = self.figure(name)
        return {attrs["data-label"]: attrs for tag, attrs in parts if tag == "g" and "data-label" in attrs}


def read(path: Path) -> Figures:
    text = path.read_text(encoding="utf-8")
    assert "<script" not in text and "http://" not in text and "https://" not in text and "url(" not in text
    figures = Figures()
    figures.feed(text)
    return figures


def six(value: float | None) -> str:
    return "" if value is None else f"{value:.6f}"


def test_calibration_html_draws_each_axis_interval_with_the_printed_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["calibrate", "--labels", str(REPO / "labels"), "--json", "--html", "c.html"])
    assert result.exit_code == 1, result.output  # the demo labels: one axis RETUNE
    data = json.loads(result.stdout)
    figures = read(tmp_path / "c.html")
    exact = figures.points("exact")
    alpha = figures.points("judge_alpha")
    assert set(exact) == set(alpha) == set(data["axes"])
    for name, axis in data["axes"].items():
        low, high = axis["exact_ci"] or (None, None)
        assert (exact[name]["data-value"], exact[name]["data-low"], exact[name]["data-high"]) == (
            six(axis["exact"]),
            six(low),
            six(high),
        )
        alpha_low, alpha_high = axis["alpha_ci"] or (None, None)
        assert (alpha[name]["data-low"], alpha[name]["data-high"]) == (six(alpha_low), six(alpha_high))
    _, parts = figures.figure("exact")
    assert [attrs["data-value"] for tag, attrs in parts if attrs.get("class") == "reference"] == [
        six(data["bar"]["min_exact"])
    ]
    for name, axis in data["axes"].items():
        _, cells = figures.figure("confusion", **{"data-axis": name})
        counts = [[int(attrs["data-count"]) for tag, attrs in cells if attrs.get("class") == "cell"]]
        labels = axis["confusion"]["labels"]
        flat = [count for row in axis["confusion"]["counts"] for count in row]
        assert counts == [flat] and len(flat) == len(labels) ** 2


def test_agreement_html_draws_no_interval_where_the_table_prints_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    args = ["agreement", "--labels", str(REPO / "labels"), "--replicates", "100", "--json", "--html", "a.html"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    figures = read(tmp_path / "a.html")
    alpha = figures.points("alpha")
    raw = figures.points("raw_agreement")
    for name, axis in data["axes"].items():
        assert alpha[name]["data-value"] == six(axis["alpha"])
        assert (alpha[name]["data-low"], alpha[name]["data-high"]) == (
            six(axis["ci"][0] if axis["ci"] else None),
            six(axis["ci"][1] if axis["ci"] else None),
        )
        assert raw[name]["data-value"] == six(axis["raw_agreement"])
        assert raw[name]["data-low"] == raw[name]["data-high"] == ""  # raw agreement has no interval
    assert any(axis["ci"] is None for axis in data["axes"].values())  # the demo: too few items for one


def test_gate_html_draws_each_delta_interval_and_each_gated_metrics_band(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for _ in range(3):  # three identical reference runs: every band is its mean ± the 0.02 floor, within [0, 1]
        assert runner.invoke(app, ["run", "--data", str(DEMO_GOLDEN), "--db", "s.db"]).exit_code == 0
    args = ["gate", "--baseline", str(REPO / "baselines" / "demo.json"), "--data", str(DEMO_GOLDEN)]
    result = runner.invoke(app, [*args, "--db", "s.db", "--adapter", BUGGY, "--json", "--html", "g.html"])
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    figures = read(tmp_path / "g.html")
    deltas = figures.points("delta")
    for metric in data["metrics"]:
        low, high = metric["ci"] or (None, None)
        point = deltas[metric["name"]]
        assert (point["data-value"], point["data-low"], point["data-high"]) == (
            six(metric["delta"]),
            six(low),
            six(high),
        )
    faithful, points = figures.figure("history", **{"data-metric": "faithfulness_rate"})
    assert (faithful["data-band-low"], faithful["data-band-high"], faithful["data-state"]) == (
        "0.980000",
        "1.000000",
        "ok",
    )
    assert faithful["data-points"] == "4"  # the three runs, then the gate's own
    cited, points = figures.figure("history", **{"data-metric": "citation_correctness"})
    assert (cited["data-band-low"], cited["data-band-high"], cited["data-state"]) == ("0.980000", "1.000000", "alarm")
    values = [attrs["data-value"] for tag, attrs in points if tag == "circle"]
    current = next(m["current"] for m in data["metrics"] if m["name"] == "citation_correctness")
    assert values == ["1.000000"] * 3 + [six(current)]
