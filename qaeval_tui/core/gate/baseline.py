"""The committed baseline the gate compares against: its file format, writing and strict reading.

A baseline holds the run header, the scoreboard, and per case its content hash, pass/fail and
metric values; outputs and prompts stay out, so updating it reads as a reviewable diff of
numbers. A missing, unreadable or mismatched baseline, or one that is not JSON, not a baseline
or of another version, is a UsageError (exit 2).

The rest is read strictly, before any case runs, and every problem is reported at once as a
BaselineInputError (exit 2) naming file, line and field: a field missing or of the wrong type
(no coercion: "true" and 1 are no `passed`, "3" no `top_k`), a duplicate key or case id, a NaN,
an infinity, a string or a bool where a metric value goes, a value outside [0, 1], a metric
missing from some cases or from the scoreboard while others have it, or a scoreboard value no case
supports. Any of them would otherwise leave a metric ungated.

A metric absent from the scoreboard and from every case was registered after the baseline was
written: the baseline loads, lists it in `not_in_baseline`, and the gate shows it as "n/a: not in
the baseline" (never a pass) until the baseline is remade.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from json.decoder import WHITESPACE, scanstring  # type: ignore[attr-defined]
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from qaeval_tui.core.batch import collector_paused
from qaeval_tui.core.errors import InputError, Problem, UsageError
from qaeval_tui.core.gate.ppi_values import RecordedPPI, ppi_problems, ppi_values
from qaeval_tui.core.jsonl import RefusedJSON, loads
from qaeval_tui.core.models.run import JudgeConfig
from qaeval_tui.core.running.metrics import (
    METRIC_NAMES,
    METRIC_SPECS,
    MetricValue,
    metric_value_from_json,
    rate_problem,
)
from qaeval_tui.core.running.result import ARTIFACT_VERSION, RUN_FORMAT, RunResult
from qaeval_tui.core.text import one_line

BASELINE_FORMAT = "qaeval-baseline"


# Strict: "true" and 1 are no `passed`, "3" and true no `top_k` (a lax read would gate against
# numbers the file does not hold).
class _BaselineCase(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)

    case_id: str
    case_hash: str
    split: str = ""
    passed: bool
    failures: list[str] = []
    values: dict[str, Any]  # checked by hand: pydantic would read "0.9" and true as numbers


class _BaselineRun(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)

    run_id: str
    suite_hash: str
    adapter: str
    judge: dict[str, Any]
    rubric_version: str
    top_k: int
    finished_at: str = ""


class _BaselineFile(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)

    format: str
    version: int
    run: _BaselineRun
    metrics: dict[str, Any]
    cases: list[_BaselineCase]
    ppi: Any = None  # checked by hand (ppi_values.py), like the metric values


class BaselineInputError(InputError):
    """Numbers in a baseline the gate cannot compare against: each problem located. Exit 2, like any bad baseline."""

    exit_code = 2


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
    ppi: dict[str, RecordedPPI] | None = None
    """Judge metric -> the PPI estimate recorded with the baseline, when it was written with labels."""
    not_in_baseline: tuple[str, ...] = ()
    """Registered metrics the file has no trace of (written before they existed): shown n/a by the gate."""


def baseline_document(result: RunResult) -> dict[str, Any]:
    """What `qaeval baseline` writes: the run header, the scoreboard, and per case its hash, pass and values.

    Outputs and prompts stay out, so a baseline update reads as a reviewable diff of numbers.
    A run the judge failed on is refused (UsageError): its missing judge scores would leave the
    judge metrics of those cases ungated in every later gate.
    """
    if result.judge_errors:
        shown = "; ".join(f"{r.case_id}: {one_line(r.judge_error or '', 200)}" for r in result.judge_errors[:3])
        more = f"; and {len(result.judge_errors) - 3} more" if len(result.judge_errors) > 3 else ""
        raise UsageError(
            f"the judge failed on {len(result.judge_errors)} case(s) ({shown}{more}); "
            "no baseline was written: fix the judge, then run `qaeval baseline` again"
        )
    with collector_paused():  # a batch step (core/batch.py): about a second of 10,000 cases otherwise
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
    """Read a baseline (or a run artifact). Missing, unreadable, not JSON: UsageError naming the file.

    Bad fields and numbers (see the module docstring): BaselineInputError, every problem with its line.
    """
    location = Path(path)
    fix = "make one with `qaeval baseline --out PATH`"
    if not location.is_file():
        raise UsageError(f"{location}: baseline not found; {fix}")
    try:
        text = location.read_text(encoding="utf-8")
        raw = loads(text)
    except OSError as exc:
        raise UsageError(f"{location}: cannot read the baseline: {exc.strerror}") from exc
    except RefusedJSON as exc:  # a repeated key or NaN: one number in the diff, another to the gate
        raise BaselineInputError([Problem(str(location), exc.lineno, exc.field, exc.msg)], what="baseline") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UsageError(f"{location}: the baseline is not valid JSON ({exc}); {fix}") from exc
    if not isinstance(raw, dict) or raw.get("format") not in (BASELINE_FORMAT, RUN_FORMAT):
        raise UsageError(f"{location}: not a qaeval baseline (format must be {BASELINE_FORMAT!r}); {fix}")
    version = raw.get("version")
    if type(version) is not int or version != ARTIFACT_VERSION:  # by type: true == 1 in Python
        raise UsageError(
            f"{location}: baseline version {version!r}, this qaeval reads version {ARTIFACT_VERSION}; {fix}"
        )
    try:
        parsed = _BaselineFile.model_validate(raw)
    except ValidationError as exc:  # every field that is missing or of the wrong type, each with its line
        found = [(tuple(error["loc"]), error["msg"]) for error in exc.errors(include_url=False)]
        raise _located(location, text, found) from exc
    found = number_problems(parsed.metrics.get("overall"), [case.values for case in parsed.cases])
    found += ppi_problems(parsed.ppi)
    config_hash = parsed.run.judge.get("config_hash")
    if not isinstance(config_hash, str):
        found.append((("run", "judge", "config_hash"), "required text: the hash of the judge config"))
    cases: dict[str, BaselineCase] = {}
    for index, case in enumerate(parsed.cases):
        if case.case_id in cases:
            found.append((("cases", index, "case_id"), f"duplicate {case.case_id!r}"))
        cases[case.case_id] = BaselineCase(case.case_id, case.case_hash, case.passed, tuple(case.failures), case.values)
    if found or not isinstance(config_hash, str):
        raise _located(location, text, found)
    overall: dict[str, Any] = parsed.metrics["overall"]
    absent = absent_metrics(overall, [case.values for case in parsed.cases])
    metrics = {name: metric_value_from_json(overall[name]) for name in METRIC_NAMES if name not in absent}
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
        ppi=ppi_values(parsed.ppi, str(location), lambda where: line_of(text, where))
        if parsed.ppi is not None
        else None,
        not_in_baseline=absent,
    )


JsonPath = tuple[str | int, ...]
Found = tuple[JsonPath, str]


def absent_metrics(overall: object, case_values: Sequence[Mapping[str, Any]]) -> tuple[str, ...]:
    """The registered metrics neither the scoreboard nor any case mentions: newer than the baseline."""
    scoreboard = overall if isinstance(overall, dict) else {}
    return tuple(
        name for name in METRIC_NAMES if name not in scoreboard and not any(name in values for values in case_values)
    )


def number_problems(overall: object, case_values: Sequence[Mapping[str, Any]]) -> list[Found]:
    """Every reason the scoreboard (`metrics.overall`) and the per-case values cannot be gated against.

    Problems repeated across cases (the same metric missing from 10,000 of them) are reported once,
    at the first case, with the count of the others. A metric absent from both (`absent_metrics`) is
    no problem: the baseline predates it.
    """
    found: list[Found] = []
    absent = set(absent_metrics(overall, case_values))
    present = [name for name in METRIC_NAMES if name not in absent]
    repeated: dict[tuple[str, str], tuple[Found, int]] = {}

    def once(key: tuple[str, str], where: JsonPath, message: str) -> None:
        first, count = repeated.get(key, ((where, message), 0))
        repeated[key] = (first, count + 1)

    supported = dict.fromkeys(METRIC_NAMES, 0)
    for index, values in enumerate(case_values):
        for name, value in values.items():
            if name not in METRIC_SPECS:
                once(("unknown", name), ("cases", index, "values", name), f"unknown metric {name!r}")
            elif (problem := rate_problem(value, METRIC_SPECS[name].bounds)) is not None:
                once(("value", name), ("cases", index, "values", name), problem)
            elif value is not None:
                supported[name] += 1
        for name in present:
            if name not in values:
                once(
                    ("missing", name), ("cases", index, "values"), f"no value for {name} (null when it does not apply)"
                )
    for first, count in repeated.values():
        where, message = first
        found.append((where, message + (f"; the same in {count - 1} more case(s)" if count > 1 else "")))
    if not isinstance(overall, dict):
        return [*found, (("metrics", "overall"), "must be an object of metric -> {value, n, reason}")]
    found += [
        (("metrics", "overall", name), f"unknown metric {name!r}") for name in overall if name not in METRIC_SPECS
    ]
    for name in present:
        entry_at: JsonPath = ("metrics", "overall", name)
        entry = overall.get(name)
        if not isinstance(entry, dict):
            found.append(
                (entry_at, "missing: every metric needs {value, n, reason}" if entry is None else "must be an object")
            )
            continue
        value, n = entry.get("value"), entry.get("n")
        if (problem := rate_problem(value, METRIC_SPECS[name].bounds)) is not None:
            found.append(((*entry_at, "value"), problem))
        elif value is not None and not supported[name]:
            found.append(
                ((*entry_at, "value"), f"is {value!r} but no case has a value for {name}: nothing to pair with")
            )
        elif value is None and supported[name]:
            found.append(((*entry_at, "value"), f"is null but {supported[name]} case(s) have a value for {name}"))
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            found.append(((*entry_at, "n"), f"must be a whole number, 0 or more, got {n!r}"))
    return found


def _located(location: Path, text: str, found: Sequence[Found]) -> BaselineInputError:
    """The problems as `path:line: field: message`, one per field (a NaN in a value is reported once)."""
    problems: dict[str, Problem] = {}
    for where, message in found:
        field = _field(where)
        problems.setdefault(field, Problem(str(location), line_of(text, where), field, message))
    return BaselineInputError(list(problems.values()), what="baseline")


def _field(where: JsonPath) -> str:
    text = ""
    for part in where:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text or "(file)"


_DECODER = json.JSONDecoder()


def line_of(text: str, where: JsonPath) -> int:
    """1-based line of the member at `where` in the JSON `text`, or of its deepest existing parent.

    Siblings are skipped by the C decoder, so this walks only the path, however large the file.
    """
    line_at, position = 0, _skip(text, 0)
    for step in where:
        members = list(_members(text, position, step))
        if not members:
            break
        line_at, position = members[-1]
    return text.count("\n", 0, line_at) + 1


def _skip(text: str, position: int) -> int:
    return int(WHITESPACE.match(text, position).end())


def _members(text: str, position: int, step: str | int) -> Iterator[tuple[int, int]]:
    """(start, value start) of each member `step` (a key, or an index) of the container at `position`."""
    opener = text[position : position + 1]
    if opener not in ("{", "["):
        return
    position = _skip(text, position + 1)
    index = 0
    while text[position] not in "}]":
        start = position
        if opener == "{":
            key, position = scanstring(text, position + 1)
            position = _skip(text, _skip(text, position) + 1)  # past the colon
            if key == step:
                yield start, position
        elif index == step:
            yield start, position
        _, position = _DECODER.raw_decode(text, position)
        position = _skip(text, position)
        if text[position] == ",":
            position = _skip(text, position + 1)
        index += 1


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
