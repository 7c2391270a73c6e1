"""Nothing from data or config reaches the terminal raw (issue 10, DESIGN §7).

One hostile string (ESC, CSI 2J, OSC 52, C1 CSI, bidi override and isolate, Rich markup, an emoji
code, Markdown `|`/newline/`#`/backticks, `<script>`) sits in every field of every input: config,
golden cases, a split's file name, labels, verdicts, production misses, adapter outputs and judge
evidence (tests/hostile.py). Every command then runs on it; its stdout and stderr must hold no
raw ESC, C1, BEL or bidi control and no emoji made from `:warning:`, and must show the text it
quotes literally. The Markdown, HTML and JUnit files must keep their structure.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from qaeval_tui.cli.main import app
from tests.conftest import REPO
from tests.hostile import (
    EMOJI,
    FORBIDDEN,
    HOSTILE,
    HOSTILE_FILE_NAME,
    TRACE_ID,
    TRACE_REJECT,
    hostile_workspace,
    raw_controls,
)


@dataclass(frozen=True)
class Step:
    name: str
    args: tuple[str, ...]
    exit_code: int
    quotes: str  # "all": it quotes a hostile text whole; "start": cut short; "": it quotes none


@dataclass(frozen=True)
class Outcome:
    step: Step
    exit_code: int
    stdout: str
    stderr: str


LABELS = "label-files"
VERDICTS = "label-files/judge-verdicts.jsonl"
BAD = "bad"
FAILING_JUDGE = "tests.hostile:make_failing_judge"  # its error message quotes the hostile text
PROMOTE = ("promote", TRACE_ID, "--id", "h-promoted-01", "--gold-answer", "Use M8.", "--gold-source", "m1")
PROMOTE += ("--curator", "dana")

# Every command `qaeval --help` lists (but `review`, the TUI: tests/tui/test_hostile_screens.py), in
# an order where each finds what it needs: the run before the queue, the baseline before the gate.
STEPS: tuple[Step, ...] = (
    Step("validate", ("validate",), 0, "all"),
    Step("validate --json", ("validate", "--json"), 0, "all"),
    Step("validate invalid", ("validate", f"{BAD}/{HOSTILE_FILE_NAME}.jsonl"), 1, "all"),
    Step("cases", ("cases",), 0, "start"),
    Step("cases --json", ("cases", "--json"), 0, "all"),
    Step("cases --split", ("cases", "--split", HOSTILE_FILE_NAME), 0, "start"),
    Step("run", ("run",), 0, "start"),
    Step("run --json", ("run", "--json", "--out", "run.json"), 0, "all"),
    Step("run judge error", ("run", "--judge", FAILING_JUDGE), 0, "start"),
    Step("baseline judge error", ("baseline", "--out", "refused.json", "--judge", FAILING_JUDGE), 2, "all"),
    Step("baseline", ("baseline", "--out", "baseline.json"), 0, "start"),
    Step(
        "gate",
        ("gate", "--baseline", "baseline.json", "--markdown", "gate.md", "--junit", "gate.xml", "--html", "gate.html"),
        1,
        "all",
    ),
    Step("gate --json", ("gate", "--baseline", "baseline.json", "--json"), 1, "all"),
    Step("drift", ("drift", "--timeseries", "drift.jsonl"), 0, ""),
    Step("drift again", ("drift", "--timeseries", "drift.jsonl"), 0, ""),
    Step("drift judge error", ("drift", "--timeseries", "drift.jsonl", "--judge", FAILING_JUDGE), 1, "all"),
    Step("gate judge error", ("gate", "--baseline", "baseline.json", "--judge", FAILING_JUDGE), 1, "all"),
    Step("runs", ("runs",), 0, ""),
    Step("runs --json", ("runs", "--json"), 0, ""),
    Step("runs show judge errors", ("runs", "show", "latest", "--judge-errors"), 0, "start"),
    Step("runs show --case", ("runs", "show", "latest", "--case", "h-answer-01"), 0, "all"),
    Step("runs show --case --json", ("runs", "show", "latest", "--case", "h-answer-01", "--json"), 0, "all"),
    Step("diff", ("diff", "previous", "latest", "--all"), 0, ""),
    Step("queue", ("queue",), 0, ""),
    Step("queue --json", ("queue", "--json", "--replace"), 0, ""),
    Step("labels import", ("labels", "import", f"{LABELS}/ana.jsonl", f"{LABELS}/ben.jsonl"), 0, ""),
    Step("labels import invalid", ("labels", "import", f"{BAD}/labels"), 1, ""),
    Step("labels import csv", ("labels", "import", f"{BAD}/foreign.csv", "--reviewer", "ana", "--dry-run"), 1, "all"),
    Step("labels export", ("labels", "export", "--out", "exported", "--verdicts"), 0, ""),
    Step("labels export --json", ("labels", "export", "--out", "exported", "--json"), 0, ""),
    Step(
        "agreement",
        ("agreement", "--labels", LABELS, "--markdown", "agreement.md", "--html", "agreement.html"),
        0,
        "all",
    ),
    Step("agreement --json", ("agreement", "--labels", LABELS, "--json"), 0, "all"),
    Step("agreement --markdown -", ("agreement", "--labels", LABELS, "--markdown", "-"), 0, "all"),
    Step("agreement store", ("agreement",), 0, "all"),
    Step(
        "calibrate",
        ("calibrate", "--labels", LABELS, "--verdicts", VERDICTS, "--markdown", "calibration.md", "--html", "c.html"),
        3,
        "all",
    ),
    Step("calibrate --json", ("calibrate", "--labels", LABELS, "--verdicts", VERDICTS, "--json"), 3, "all"),
    Step("calibrate --html -", ("calibrate", "--labels", LABELS, "--verdicts", VERDICTS, "--html", "-"), 3, "all"),
    Step("inbox import", ("inbox", "import"), 0, ""),
    Step("inbox import invalid", ("inbox", "import", f"{BAD}/misses.jsonl"), 1, ""),
    Step("inbox list", ("inbox", "list", "--search", "bolt"), 0, "start"),
    Step("inbox list --json", ("inbox", "list", "--json"), 0, "all"),
    Step("inbox show", ("inbox", "show", TRACE_ID), 0, "all"),
    Step("inbox show --json", ("inbox", "show", TRACE_ID, "--json"), 0, "all"),
    Step("promote --dry-run", (*PROMOTE, "--dry-run"), 0, "all"),
    Step("promote", PROMOTE, 0, "start"),
    Step("reject", ("reject", TRACE_REJECT, "--reason", "The answer was right.", "--curator", "dana"), 0, ""),
    Step("inbox show decided", ("inbox", "show", TRACE_REJECT), 0, "all"),
    Step("validate after promote", ("validate",), 0, "all"),
    Step("invalid config", ("--config", f"{BAD}/{HOSTILE_FILE_NAME}.toml", "validate"), 2, "all"),
)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = hostile_workspace(tmp_path_factory.mktemp("hostile"))
    before = Path.cwd()
    os.chdir(root)  # the config, and every relative path above, are found from here
    try:
        yield root
    finally:
        os.chdir(before)


@pytest.fixture(scope="module")
def outcomes(workspace: Path) -> dict[str, Outcome]:
    runner = CliRunner()
    done: dict[str, Outcome] = {}
    for step in STEPS:
        result = runner.invoke(app, list(step.args))
        done[step.name] = Outcome(step, result.exit_code, result.stdout, result.stderr)
    return done


@pytest.mark.parametrize("step", STEPS, ids=[step.name for step in STEPS])
def test_no_command_sends_data_to_the_terminal_raw(step: Step, outcomes: dict[str, Outcome]) -> None:
    outcome = outcomes[step.name]
    shown = f"stdout:\n{outcome.stdout}\nstderr:\n{outcome.stderr}"
    assert outcome.exit_code == step.exit_code, shown  # it ran as far as it should, on the hostile data
    assert raw_controls(outcome.stdout) == [], "stdout"
    assert raw_controls(outcome.stderr) == [], "stderr"
    both = outcome.stdout + outcome.stderr
    assert EMOJI not in both  # `:warning:` stays text
    squeezed = "".join(both.split())  # wherever the console wrapped it
    if step.quotes:  # the hostile text is there, and reads as typed
        assert re.search(r"EVIL\\+(x1b|u001b)\\*\[2J", squeezed), shown  # ESC shown as an escape (JSON, Markdown)
    if step.quotes == "all":
        assert ":warning:" in squeezed, shown
        assert re.search(r"\\?\[boldred\\?\]markup", squeezed), shown
        assert "\\u202e" in squeezed, shown  # the bidi override shown as an escape


@pytest.mark.parametrize(
    "name", ["validate --json", "cases --json", "run --json", "inbox show --json", "runs show --case --json"]
)
def test_json_on_stdout_is_lossless(name: str, outcomes: dict[str, Outcome]) -> None:
    """Hidden characters are JSON escapes on stdout: the document still reads back to the data."""
    data = json.loads(outcomes[name].stdout)
    assert any(HOSTILE in text for text in _strings(data))


def _strings(data: object) -> Iterator[str]:
    if isinstance(data, str):
        yield data
    elif isinstance(data, dict):
        for key, value in data.items():
            yield key
            yield from _strings(value)
    elif isinstance(data, list):
        for value in data:
            yield from _strings(value)


def test_markdown_reports_keep_their_structure(outcomes: dict[str, Outcome], workspace: Path) -> None:
    """No data can add a heading, split a table cell, open a code span or inject HTML."""
    ours = ("## qaeval gate", "### Tier", "## Inter-rater", "### Pairwise agreement:", "## Judge calibration", "#### ")
    for name in ("gate.md", "agreement.md", "calibration.md"):
        text = (workspace / name).read_text(encoding="utf-8")
        assert raw_controls(text) == [], name
        assert "<script>" not in text and "&lt;script&gt;" in text, name
        assert re.search(r"(?<!\\)`", text) is None, name  # every backtick escaped
        for line in text.splitlines():
            assert not line.startswith("#") or line.startswith(ours), f"{name}: {line[:60]}"
        for block in re.findall(r"(?:^\|.*\n)+", text, flags=re.MULTILINE):
            widths = {len(re.findall(r"(?<!\\)\|", row)) for row in block.splitlines()}
            assert len(widths) == 1, f"{name}: a row with another number of cells:\n{block}"
    assert "faith EVIL" in (workspace / "agreement.md").read_text(encoding="utf-8")  # the axes are there


def test_html_reports_escape_data(workspace: Path) -> None:
    for name in ("agreement.html", "c.html", "gate.html"):
        text = (workspace / name).read_text(encoding="utf-8")
        assert raw_controls(text) == [], name
        assert "<script>" not in text and "&lt;script&gt;alert(1)&lt;/script&gt;" in text, name
        assert "[bold red]markup[/] :warning:" in text and "\\u202e" in text, name


def test_junit_is_well_formed_xml_without_forbidden_characters(workspace: Path) -> None:
    raw = (workspace / "gate.xml").read_text(encoding="utf-8")
    assert raw_controls(raw) == []
    root = ET.fromstring(raw)  # XML 1.0: a raw ESC or BEL would not parse
    texts = [value for element in root.iter() for value in (element.text or "", *element.attrib.values())]
    assert any(":warning:" in text and "\\x1b" in text for text in texts)
    assert not any(FORBIDDEN.search(text) for text in texts)


def test_on_a_real_terminal_only_our_own_styling_is_sent(workspace: Path) -> None:
    """The console script in a pseudo-terminal (rich styles its output there): no data escape gets through."""
    import pty

    qaeval = Path(sys.executable).with_name("qaeval")
    for args in (["cases"], ["validate"], ["inbox", "show", TRACE_ID]):
        controller, terminal = pty.openpty()
        env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "200", "PYTHONPATH": str(REPO)}
        env.pop("NO_COLOR", None)
        process = subprocess.Popen(
            [str(qaeval), *args], cwd=workspace, stdin=terminal, stdout=terminal, stderr=terminal, env=env
        )
        os.close(terminal)
        chunks = []
        while True:
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # the other end closed
                break
            if not chunk:
                break
            chunks.append(chunk)
        os.close(controller)
        assert process.wait(timeout=60) == 0
        seen = b"".join(chunks).decode("utf-8")
        assert "EVIL\\x1b[2J" in seen, args  # the data is there, shown as an escape
        # Rich's own SGR styling may be there; nothing else: no clear screen, no OSC, no C1, no bidi.
        leftover = re.sub(r"\x1b\[[0-9;]*m", "", seen)
        assert raw_controls(leftover) == [], args
