"""The committed baseline the gate compares against: its file format, writing and strict reading.

A baseline holds the run header, the scoreboard, and per case its content hash, pass/fail and
metric values; outputs and prompts stay out, so updating it reads as a reviewable diff of
numbers. A missing, unreadable, malformed or mismatched baseline is a UsageError (exit 2).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.jsonl import loads
from qaeval_tui.core.metrics import MetricValue, metric_value_from_json
from qaeval_tui.core.models import JudgeConfig
from qaeval_tui.core.runner import ARTIFACT_VERSION, RUN_FORMAT, RunResult

BASELINE_FORMAT = "qaeval-baseline"


class _BaselineCase(BaseModel):
    model_config = ConfigDict(extra="ignore")

    case_id: str
    case_hash: str
    split: str = ""
    passed: bool
    failures: list[str] = []
    values: dict[str, float | None]


class _BaselineRun(BaseModel):
    model_config = ConfigDict(extra="ignore")

    run_id: str
    suite_hash: str
    adapter: str
    judge: dict[str, Any]
    rubric_version: str
    top_k: int
    finished_at: str = ""


class _BaselineFile(BaseModel):
    model_config = ConfigDict(extra="ignore")

    format: str
    version: int
    run: _BaselineRun
    metrics: dict[str, Any]
    cases: list[_BaselineCase]


@dataclass(frozen=True)
class BaselineCase:
    case_id: str
    case_hash: str
    passed: bool
    failures: tuple[str, ...]
    values: dict[str, float | None]


@dataclass(frozen=True)
class Baseline:
    path: str
    run_id: str
    suite_hash: str
    adapter: str
    judge_config_hash: str
    judge: dict[str, Any]
    rubric_version: str
    top_k: int
    created_at: str
    metrics: dict[str, MetricValue]
    cases: dict[str, BaselineCase]


def baseline_document(result: RunResult) -> dict[str, Any]:
    """What `qaeval baseline` writes: the run header, the scoreboard, and per case its hash, pass and values.

    Outputs and prompts stay out, so a baseline update reads as a reviewable diff of numbers.
    """
    return {
        "format": BASELINE_FORMAT,
        "version": ARTIFACT_VERSION,
        "run": result.header(),
        "metrics": result.board.to_json(),
        "cases": [
            {
                "case_id": r.case_id,
                "case_hash": r.loaded.content_hash,
                "split": r.loaded.split,
                "passed": r.passed,
                "failures": list(r.failures),
                "values": r.values,
            }
            for r in result.cases
        ],
    }


def load_baseline(path: str | Path) -> Baseline:
    """Read a baseline (or a run artifact). Missing, unreadable or malformed: UsageError naming the file."""
    location = Path(path)
    fix = "make one with `qaeval baseline --out PATH`"
    if not location.is_file():
        raise UsageError(f"{location}: baseline not found; {fix}")
    try:
        raw = loads(location.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"{location}: cannot read the baseline: {exc.strerror}") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UsageError(f"{location}: the baseline is not valid JSON ({exc}); {fix}") from exc
    if not isinstance(raw, dict) or raw.get("format") not in (BASELINE_FORMAT, RUN_FORMAT):
        raise UsageError(f"{location}: not a qaeval baseline (format must be {BASELINE_FORMAT!r}); {fix}")
    if raw.get("version") != ARTIFACT_VERSION:
        raise UsageError(
            f"{location}: baseline version {raw.get('version')!r}, this qaeval reads version {ARTIFACT_VERSION}; {fix}"
        )
    try:
        parsed = _BaselineFile.model_validate(raw)
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        where = ".".join(str(part) for part in error["loc"]) or "(file)"
        raise UsageError(f"{location}: {where}: {error['msg']}; {fix}") from exc
    overall = parsed.metrics.get("overall", {})
    if not isinstance(overall, dict):
        raise UsageError(f"{location}: metrics.overall: must be an object; {fix}")
    try:
        metrics = {name: metric_value_from_json(value) for name, value in overall.items() if isinstance(value, dict)}
    except (TypeError, ValueError) as exc:
        raise UsageError(f"{location}: metrics.overall: {exc}; {fix}") from exc
    config_hash = parsed.run.judge.get("config_hash")
    if not isinstance(config_hash, str):
        raise UsageError(f"{location}: run.judge.config_hash: missing; {fix}")
    cases: dict[str, BaselineCase] = {}
    for index, case in enumerate(parsed.cases):
        if case.case_id in cases:
            raise UsageError(f"{location}: cases[{index}].case_id: duplicate {case.case_id!r}; {fix}")
        cases[case.case_id] = BaselineCase(case.case_id, case.case_hash, case.passed, tuple(case.failures), case.values)
    return Baseline(
        path=str(location),
        run_id=parsed.run.run_id,
        suite_hash=parsed.run.suite_hash,
        adapter=parsed.run.adapter,
        judge_config_hash=config_hash,
        judge=parsed.run.judge,
        rubric_version=parsed.run.rubric_version,
        top_k=parsed.run.top_k,
        created_at=parsed.run.finished_at,
        metrics=metrics,
        cases=cases,
    )


def check_comparable(result: RunResult, baseline: Baseline) -> None:
    """A baseline scored by another judge, rubric or k measures something else: refuse it (exit 2)."""
    check_settings(baseline, result.judge_config, result.rubric_version, result.top_k)


def check_settings(baseline: Baseline, judge: JudgeConfig, rubric_version: str, top_k: int) -> None:
    """`check_comparable` before running: the judge config (bound to its rubric), rubric version and k."""
    problems = []
    config_hash = judge.config_hash()
    if baseline.judge_config_hash != config_hash:
        before = f"{baseline.judge.get('name')}/{baseline.judge.get('model')} ({baseline.judge_config_hash[:12]})"
        problems.append(f"judge config {before} vs this run's {judge.name}/{judge.model} ({config_hash[:12]})")
    if baseline.rubric_version != rubric_version:
        problems.append(f"rubric version {baseline.rubric_version!r} vs {rubric_version!r}")
    if baseline.top_k != top_k:
        problems.append(f"top_k {baseline.top_k} vs {top_k}")
    if problems:
        raise UsageError(
            f"{baseline.path}: baseline does not match this run: {'; '.join(problems)}. "
            "Regenerate it deliberately with `qaeval baseline --out PATH`."
        )
