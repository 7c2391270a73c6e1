"""One hostile string planted in every field of every input, and what must never reach a terminal.

`hostile_workspace()` writes a config, golden set (with a split named by a hostile file name),
labels, judge verdicts and production misses that all carry `HOSTILE`; the adapter and judge
below return it in every text they produce. The CLI and TUI tests then check that nothing of it
reaches the terminal raw: no ESC, no C1 CSI, no BEL-terminated OSC, no bidi override, no emoji
expanded from a `:code:`.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import Any

from qaeval_tui.core.models.golden import GoldenCase
from qaeval_tui.core.models.run import CaseView, Citation, JudgeConfig, SUTOutput
from qaeval_tui.core.rubric import Rubric
from qaeval_tui.core.running.judge import JudgeResult

# Clears the screen, writes "hi" to the clipboard (OSC 52), colours through a C1 CSI, reverses the
# text that follows (bidi override), styles through Rich/Textual markup, expands an emoji code,
# breaks a Markdown table/heading and opens an HTML script.
HOSTILE = (
    "EVIL\x1b[2J\x1b]52;c;aGk=\x07\x9b31m\u202etxt.exe\u2066 [bold red]markup[/] :warning: "
    "a|b\n# heading `tick` <script>alert(1)</script>"
)
HOSTILE_FILE_NAME = HOSTILE.replace("/", "_").replace("\n", " ")  # what a file name can hold
WARNING = ":warning:"

# What may not reach a terminal: ESC, C1 controls (0x9b is CSI), BEL, and every bidi control.
FORBIDDEN = re.compile("[\x1b\x07\x80-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
EMOJI = "\u26a0"  # what Rich makes of :warning:


def raw_controls(text: str) -> list[str]:
    """Each forbidden character found in `text`, with a little context, for an assertion message."""
    return [repr(text[max(0, m.start() - 20) : m.end() + 20]) for m in FORBIDDEN.finditer(text)]


AXES = (f"faith {HOSTILE}", f"cite {HOSTILE}", f"correct {HOSTILE}")
REVIEWERS = ("ana", "ben")
TRACE_ID = "tr-hostile-01"  # promoted by the tests
TRACE_REJECT = "tr-hostile-02"  # rejected by the tests
TIME = "2026-10-01T09:00:00Z"
MISSES = f"misses {HOSTILE_FILE_NAME}.jsonl"  # the configured inbox file: its name is quoted too


def _toml(value: str) -> str:
    return json.dumps(value)  # a JSON string with \uXXXX escapes is a TOML basic string


def config_text() -> str:
    lines = [
        "[rubric]",
        f"version = {_toml(HOSTILE)}",
    ]
    for index, name in enumerate(AXES):
        lines += [
            "[[rubric.axes]]",
            f"name = {_toml(name)}",
            f"anchors = [{', '.join(_toml(f'{point} {HOSTILE}') for point in range(3))}]",
            f"needs_gold = {'true' if index == 2 else 'false'}",
        ]
    lines += [
        "[paths]",
        'golden = "golden"',
        'store = "qaeval.db"',
        'labels = "labels"',
        f"inbox = {_toml(MISSES)}",
        'living = "golden/living.jsonl"',
        "[run]",
        'adapter = "tests.hostile:make_adapter"',
        'judge = "tests.hostile:make_judge"',
        "[review]",
        f"reviewers = [{', '.join(_toml(r) for r in REVIEWERS)}]",
        "overlap = 2",
    ]
    return "\n".join(lines) + "\n"


def _sources(prefix: str) -> list[dict[str, Any]]:
    return [
        {"id": f"{prefix}-a {HOSTILE}", "title": HOSTILE, "text": f"The bolt is M8 steel. {HOSTILE}"},
        {"id": f"{prefix}-b", "title": f"b {HOSTILE}", "text": f"The fee is ten euros. {HOSTILE}"},
    ]


def _case(case_id: str, **fields: Any) -> dict[str, Any]:
    sources = _sources(case_id)
    case: dict[str, Any] = {
        "id": case_id,
        "question": f"What bolt? {HOSTILE}",
        "sources": sources,
        "expected_behavior": "answer",
        "gold_answer": f"M8. {HOSTILE}",
        "gold_source_ids": [sources[0]["id"]],
        "difficulty": "single_hop",
        "adversarial": HOSTILE,
        "checkpoints": [],
        "provenance": None,
    }
    case.update(fields)
    return case


def golden_cases() -> dict[str, list[dict[str, Any]]]:
    """Lines per split file name (without `.jsonl`)."""
    multi = _case("h-multi-01", difficulty="multi_hop")
    multi["checkpoints"] = [
        {"kind": "retrieve", "source_id": multi["sources"][0]["id"]},
        {"kind": "value", "name": HOSTILE, "value": HOSTILE},
    ]
    living = _case(
        "h-living-01",
        provenance={
            "origin": HOSTILE,
            "trace_id": HOSTILE,
            "promoted_by": HOSTILE,
            "promoted_at": TIME,
            "reason": HOSTILE,
        },
    )
    abstain = _case("h-abstain-01", expected_behavior="abstain", gold_answer=None, gold_source_ids=[])
    return {
        "frozen": [_case("h-answer-01"), multi, abstain, _case("h-crash-01"), _case("h-error-01")],
        "living": [living],
        HOSTILE_FILE_NAME: [_case("h-split-01")],
    }


def label_line(reviewer: str, item: str, score: int) -> dict[str, Any]:
    return {
        "item_id": item,
        "case_id": f"case-{item}",
        "reviewer": reviewer,
        "scores": dict.fromkeys(AXES, score),
        "note": HOSTILE,
        "flagged": True,
        "skipped": False,
        "rubric_version": HOSTILE,
        "revealed": False,
        "revision": 1,
        "created_at": TIME,
        "seconds_spent": 3.0,
    }


ITEMS = tuple(f"i{k:02d} {HOSTILE}" for k in range(6))  # item ids in label files are free text


def verdict_line(item: str) -> dict[str, Any]:
    return {
        "item_id": item,
        "case_id": f"case-{item}",
        "judge": {"name": HOSTILE, "model": HOSTILE, "config_hash": "J1", "rubric_version": HOSTILE},
        "status": "ok",
        "scores": dict.fromkeys(AXES, 1),
        "evidence": dict.fromkeys(AXES, HOSTILE),
        "created_at": TIME,
    }


def miss_line(trace_id: str = TRACE_ID) -> dict[str, Any]:
    return {
        "trace_id": trace_id,
        "question": f"Which bolt for the wall? {HOSTILE}",
        "sources": [
            {"id": "m1", "title": HOSTILE, "text": f"Use M8 bolts. {HOSTILE}"},
            {"id": f"m2 {HOSTILE}", "title": HOSTILE, "text": HOSTILE},
        ],
        "answer": HOSTILE,
        "citations": [{"source_id": f"m2 {HOSTILE}", "quote": HOSTILE}, {"source_id": HOSTILE, "quote": HOSTILE}],
        "reason": HOSTILE,
        "reported_at": TIME,
        "reporter": HOSTILE,
    }


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")


def hostile_workspace(root: Path) -> Path:
    """Write every hostile input under `root` (run commands from there); returns `root`."""
    (root / "qaeval.toml").write_text(config_text(), encoding="utf-8")
    for split, rows in golden_cases().items():
        _jsonl(root / "golden" / f"{split}.jsonl", rows)
    for reviewer, score in zip(REVIEWERS, (1, 2), strict=True):
        _jsonl(root / "label-files" / f"{reviewer}.jsonl", [label_line(reviewer, item, score) for item in ITEMS])
    _jsonl(root / "label-files" / "judge-verdicts.jsonl", [verdict_line(item) for item in ITEMS])
    _jsonl(root / MISSES, [miss_line(), miss_line(TRACE_REJECT)])
    bad = root / "bad"
    # Invalid inputs whose error messages quote the hostile text: a key, a value, a file name.
    _jsonl(bad / f"{HOSTILE_FILE_NAME}.jsonl", [{**_case("h-bad-01", gold_source_ids=[HOSTILE]), HOSTILE: HOSTILE}])
    _jsonl(bad / "labels" / "ana.jsonl", [{**label_line("ana", "i00", 1), HOSTILE: 1, "scores": {HOSTILE: HOSTILE}}])
    _jsonl(bad / "misses.jsonl", [{**miss_line(), HOSTILE: HOSTILE, "question": 7}])
    with (bad / "foreign.csv").open("w", encoding="utf-8", newline="") as handle:  # another tool's labels
        rows = [["item_id", "note", *AXES], [HOSTILE, HOSTILE, HOSTILE, "1", "2"], [HOSTILE, HOSTILE, "1", "1", "2"]]
        csv.writer(handle).writerows(rows)
    (bad / f"{HOSTILE_FILE_NAME}.toml").write_text(f"[rubric]\n{_toml(HOSTILE)} = {_toml(HOSTILE)}\n", encoding="utf-8")
    return root


# -- the system under test and the judge, both hostile ----------------------------------------------------


class HostileAdapter:
    """Returns the hostile string in every text it produces; crashes or errs on two cases."""

    name = f"adapter {HOSTILE}"

    def answer(self, view: CaseView) -> SUTOutput:
        if "h-crash" in view.sources[0].id:
            raise RuntimeError(f"crashed {HOSTILE}")
        if "h-error" in view.sources[0].id:
            return SUTOutput(error=f"error {HOSTILE}")
        first = view.sources[0]
        return SUTOutput(
            answer=f"The bolt is M8 steel. {HOSTILE}",
            citations=(
                Citation(source_id=first.id, quote=f"The bolt is M8 steel. {HOSTILE}", claim=HOSTILE),
                Citation(source_id=f"missing {HOSTILE}", quote=HOSTILE),
            ),
            retrieved_ids=(first.id, f"never {HOSTILE}"),
            model_was_called=True,
            prompt=f"{view.question}\n{first.text}",
            computed={HOSTILE: HOSTILE},
        )


class HostileJudge:
    """Scores every axis mid-scale, quoting the hostile string; the failing one raises on one case."""

    config = JudgeConfig(name=f"judge {HOSTILE}", model=HOSTILE, prompt_version=HOSTILE)

    def __init__(self, fails_on: str | None = None) -> None:
        self.fails_on = fails_on

    def score(self, case: GoldenCase, output: SUTOutput, rubric: Rubric) -> JudgeResult:
        if case.id == self.fails_on:
            raise ValueError(f"judge failed {HOSTILE}")
        return JudgeResult(
            {axis.name: axis.scale[1] for axis in rubric.axes}, {axis.name: HOSTILE for axis in rubric.axes}
        )


def make_adapter() -> HostileAdapter:
    return HostileAdapter()


def make_judge() -> HostileJudge:
    return HostileJudge()


def make_failing_judge() -> HostileJudge:
    return HostileJudge(fails_on="h-multi-01")
