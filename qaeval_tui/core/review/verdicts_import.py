"""Judge scores produced elsewhere (CSV or JSONL) as §8.3 verdicts, so `calibrate` can judge any judge.

The file is read like another tool's labels (`labels_foreign`: the same CSV and JSONL reading,
the same `--map field=column` mapping, dotted keys for nested JSON). Each line names its item by
`item_id`, or by `case_id` when the store holds exactly one review item of that case. Scores must
be on the rubric's scales; a judge on another scale declares how its values map (`--values
faithfulness:1=0,2=0,3=1,4=2,5=2`) and whether a value between two of its points (a mean of samples,
3.5) rounds to the nearer one (`--round`, then mapped; a tie goes to the lower, the stricter
reading). Anything else is a located problem
(file:line:field), and nothing is written while any exists.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from qaeval_tui.core.errors import InputError, Problem, UsageError
from qaeval_tui.core.models.run import JudgeConfig, JudgeVerdict
from qaeval_tui.core.review.labels_foreign import CANT_JUDGE, FieldMapping, _lookup, _records
from qaeval_tui.core.rubric import Rubric
from qaeval_tui.core.running.judge import FAITHFULNESS, faithfulness_outcome, judge_descriptor

FOREIGN_PROMPT_VERSION = "foreign"
_TEXT_FIELDS = ("item_id", "case_id", "created_at")


@dataclass(frozen=True)
class ValueMap:
    """Per axis: the foreign judge's value (as a number) -> the rubric's scale point."""

    values: dict[str, dict[float, int]] = field(default_factory=dict)

    @classmethod
    def parse(cls, specs: Sequence[str], rubric: Rubric) -> ValueMap:
        """From `axis:from=to,from=to` strings; every `to` must be on the axis's scale (a UsageError otherwise)."""
        values: dict[str, dict[float, int]] = {}
        for spec in specs:
            axis, sep, pairs = spec.partition(":")
            axis = axis.strip()
            if not sep or axis not in rubric.axis_names:
                raise UsageError(
                    f"--values {spec!r}: write it as axis:from=to,..., axis one of {list(rubric.axis_names)}"
                )
            scale = rubric.axis(axis).scale
            for pair in filter(None, (part.strip() for part in pairs.split(","))):
                source, eq, target = pair.partition("=")
                number, point = _number(source), _number(target)
                if not eq or number is None or point is None or not point.is_integer():
                    raise UsageError(f"--values {spec!r}: {pair!r} is not number=scale point")
                if int(point) not in scale:
                    raise UsageError(f"--values {spec!r}: {target.strip()} is not on the {axis} scale {list(scale)}")
                values.setdefault(axis, {})[number] = int(point)
        return cls(values)


@dataclass(frozen=True)
class ForeignVerdicts:
    """What a verdict import read: the verdicts (one per item) of one foreign judge config."""

    verdicts: tuple[JudgeVerdict, ...]
    config: JudgeConfig
    files: tuple[str, ...]
    rounded: int
    mapped: int


def _number(text: object) -> float | None:
    if isinstance(text, bool):
        return None
    if isinstance(text, int | float):
        try:
            number = float(text)
        except OverflowError:  # a whole number beyond any float: no score
            return None
    elif isinstance(text, str):
        try:
            number = float(text.strip())
        except ValueError:
            return None
    else:
        return None
    return number if math.isfinite(number) else None


def _scale_point(raw: Any, axis: str, rubric: Rubric, values: ValueMap, rounding: bool) -> tuple[str, int | None, str]:
    """("absent" | "ok" | "mapped" | "rounded" | "bad", score, why bad)."""
    if raw is None:
        return "ok", None, ""
    if isinstance(raw, str) and not raw.strip():
        return "absent", None, ""
    if isinstance(raw, str) and raw.strip().lower() in CANT_JUDGE:
        return "ok", None, ""
    scale = rubric.axis(axis).scale
    number = _number(raw)
    if number is None:
        return "bad", None, f"{_clipped(raw)} is not a score (a number, or null for can't judge)"
    declared = values.values.get(axis, {})
    if number in declared:
        return "mapped", declared[number], ""
    if not declared and number.is_integer() and int(number) in scale:
        return "ok", int(number), ""
    points = sorted(declared) if declared else [float(point) for point in scale]
    if rounding and points[0] <= number <= points[-1]:
        nearest = min(points, key=lambda point: (abs(point - number), point))
        return "rounded", declared[nearest] if declared else int(nearest), ""
    if declared:
        return "bad", None, f"{_clipped(raw)} is not one of the --values declared for {axis} ({_shown(points)})"
    return (
        "bad",
        None,
        f"{_clipped(raw)} is off the {axis} scale {list(scale)}; declare --values {axis}:from=to,... or --round",
    )


def _clipped(raw: object) -> str:
    """A value as a problem line shows it: its repr, cut short (a file's value may be any size)."""
    shown = repr(raw)
    return shown if len(shown) <= 40 else f"{shown[:37]}..."


def _shown(points: Sequence[float]) -> str:
    return ", ".join(f"{point:g}" for point in points)


def read_foreign_verdicts(
    paths: Sequence[Path],
    fmt_of: Mapping[Path, str],
    mapping: FieldMapping,
    rubric: Rubric,
    judge: JudgeConfig,
    case_ids: Mapping[str, str],
    *,
    values: ValueMap,
    rounding: bool,
    now: str,
) -> ForeignVerdicts:
    """Every line of every file as a verdict of `judge`, or InputError listing every problem."""
    known = {*_TEXT_FIELDS, *rubric.axis_names}
    unknown = sorted(set(mapping.columns) - known)
    if unknown:
        raise UsageError(f"--map: unknown field(s) {unknown}; map onto one of {sorted(known)}")
    items_by_case: dict[str, list[str]] = {}
    for item, case in case_ids.items():
        items_by_case.setdefault(case, []).append(item)
    descriptor = judge_descriptor(judge)
    problems: list[Problem] = []
    verdicts: list[JudgeVerdict] = []
    first_line: dict[str, str] = {}
    rounded = mapped = 0
    for path in paths:
        where = str(path)
        header, records = _records(path, fmt_of[path], problems)
        if header is not None:
            for target, source in mapping.columns.items():
                if source not in header:
                    problems.append(Problem(where, 1, f"--map {target}", f"no column {source!r} (columns: {header})"))
        for line, record in records:
            before = len(problems)

            def problem(name: str, message: str, line: int = line, where: str = where) -> None:
                problems.append(Problem(where, line, name, message))

            def get(name: str, record: dict[str, Any] = record) -> tuple[bool, Any]:
                return _lookup(record, mapping.columns.get(name, name))

            text: dict[str, str] = {}
            for name in _TEXT_FIELDS:
                found, value = get(name)
                if found and value not in (None, ""):
                    if isinstance(value, str):
                        text[name] = value
                    else:
                        problem(name, f"{value!r} is not text")
            scores: dict[str, int | None] = dict.fromkeys(rubric.axis_names)
            _, nested = _lookup(record, "scores")
            found_any = False
            for axis in rubric.axis_names:
                found, raw = get(axis)
                in_scores = axis not in mapping.columns and isinstance(nested, Mapping) and axis in nested
                if found and in_scores:  # which one the file meant is not ours to guess
                    problem(
                        axis,
                        f"given twice: at the top level and under scores "
                        f"({_clipped(raw)} and {_clipped(nested[axis])}); keep one",
                    )
                    continue
                if not found and in_scores:
                    found, raw = True, nested[axis]
                if not found:
                    continue
                state, score, why = _scale_point(raw, axis, rubric, values, rounding)
                if state == "bad":
                    problem(axis, why)
                elif state != "absent":
                    found_any = True
                    scores[axis] = score
                    rounded += state == "rounded"
                    mapped += state == "mapped"
            if not found_any and len(problems) == before:
                problem("scores", f"no axis scores found; map columns onto {list(rubric.axis_names)} with --map")
            item_id = text.get("item_id")
            case_id = text.get("case_id")
            if item_id is None:
                candidates = items_by_case.get(case_id or "", [])
                if case_id is None:
                    problem("item_id", "missing: map an item_id or a case_id column")
                elif len(candidates) != 1:
                    why = "no review item" if not candidates else f"{len(candidates)} review items (several outputs)"
                    problem("case_id", f"case {case_id!r} has {why} in the store; give item_id instead")
                else:
                    item_id = candidates[0]
            if item_id is not None:
                stored = case_ids.get(item_id)
                if case_id is None and stored is None:
                    problem("case_id", f"missing, and item {item_id!r} is not in the store")
                elif case_id is not None and stored is not None and stored != case_id:
                    problem("case_id", f"item {item_id} is case {stored!r} in the store")
                case_id = case_id or stored
                if item_id in first_line:
                    problem("item_id", f"item {item_id} is scored twice (first at {first_line[item_id]})")
                else:
                    first_line[item_id] = f"{where}:{line}"
            if len(problems) > before or item_id is None or case_id is None:
                continue
            verdicts.append(
                JudgeVerdict(
                    item_id=item_id,
                    case_id=case_id,
                    judge=dict(descriptor),
                    status="ok",
                    scores=scores,
                    evidence={},
                    created_at=text.get("created_at", now),
                    outcome=faithfulness_outcome(scores, rubric),
                    reason=None if scores.get(FAITHFULNESS) is not None else "not scored on faithfulness",
                )
            )
    if problems:
        raise InputError(problems, "verdict import")
    if not verdicts:
        raise UsageError("no verdicts in the given file(s)")
    return ForeignVerdicts(tuple(verdicts), judge, tuple(map(str, paths)), rounded, mapped)


def foreign_judge(name: str, model: str | None, rubric: Rubric) -> JudgeConfig:
    """The config imported verdicts are bound to: the judge's name and model under this rubric version."""
    if not name.strip():
        raise UsageError("--judge-name must name the judge that produced the scores")
    return JudgeConfig(
        name=name, model=model or name, prompt_version=FOREIGN_PROMPT_VERSION, rubric_version=rubric.version
    )
