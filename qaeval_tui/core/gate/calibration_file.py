"""The calibration artifact (`qaeval calibrate --out`): the judge's trust, committed so the gate reads it anywhere.

A calibration computed from a local store differs from machine to machine (the store is not
committed), so the gate would print different trust for the same commit. The artifact is the
calibration as a reviewable file, bound to what it measured: the judge config hash, the rubric
version, and content hashes of the labels and adjudications (and of the judge verdicts) it used.
Per axis it holds the verdict, its reason, n and the figures of `calibrate --json`.

Nothing in it depends on where it was made (no path, no clock, no qaeval version), so calibrating
the same labels again gives the same bytes: a committed artifact that is stale shows as a diff.
It is read strictly, like the baseline: a missing or unreadable file is a UsageError naming it, and
a field missing, of the wrong type or unknown, a repeated key or a number that is not finite is a
`file:line: field: message` problem (exit 2). So is an artifact that contradicts itself: each axis
verdict is decided again from the artifact's own bar and figures (`self_contradictions`), and the
top-level verdict must be the aggregate of the axes'. Never a silent "trusted".
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from qaeval_tui.core.atomic_file import strict_json
from qaeval_tui.core.config import CalibrationConfig
from qaeval_tui.core.errors import InputError, Problem, UsageError
from qaeval_tui.core.gate.baseline import line_of
from qaeval_tui.core.jsonl import RefusedJSON, loads
from qaeval_tui.core.statistics.anytime import anytime_lower_bound
from qaeval_tui.core.statistics.calibration import CalibrationReport, Verdict
from qaeval_tui.core.statistics.label_table import LabelRevision
from qaeval_tui.core.statistics.verdict import Evidence, constant_judge_warning, decide, overall_verdict
from qaeval_tui.core.statistics.verdict_table import VerdictTable
from qaeval_tui.core.store.rows import ItemAxis

CALIBRATION_FORMAT = "qaeval-calibration"
CALIBRATION_VERSION = 1
MAKE_ONE = "make one with `qaeval calibrate --out PATH`"

Sha256 = Annotated[str, Field(pattern=r"^sha256:[0-9a-f]{64}$")]
Text = Annotated[str, Field(min_length=1)]


class _Strict(BaseModel):
    # No coercion ("3" is no n, true no version) and no unknown key (a typo is not ignored).
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class ArtifactAxis(_Strict):
    """One axis: the verdict the gate reads, the reason it prints, n, and the figures behind them."""

    verdict: Verdict
    reason: Text
    n: int = Field(ge=0)
    figures: dict[str, JsonValue]


class CalibrationArtifact(_Strict):
    format: str
    version: int
    judge_config_hash: Text
    judge_name: str
    rubric_version: Text
    labels_hash: Sha256
    verdicts_hash: Sha256
    verdict: Verdict
    bar: dict[str, JsonValue]
    labels: dict[str, JsonValue]
    axes: dict[str, ArtifactAxis] = Field(min_length=1)

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


class CalibrationFileError(InputError):
    """A calibration artifact the gate cannot read: each problem located. Exit 2, like a bad baseline."""

    exit_code = 2


@dataclass(frozen=True)
class LoadedCalibration:
    """An artifact as read, and how the user named it (shown in every gate output)."""

    path: str
    named_by: str  # "--calibration" or "gate.calibration"
    artifact: CalibrationArtifact


def _digest(payload: object) -> str:
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def labels_hash(labels: Iterable[LabelRevision], adjudicated: Mapping[ItemAxis, int | None]) -> str:
    """The content of the labels a calibration read (item, reviewer, revision, scores) and the adjudications
    it applied, in a canonical order: the same labels give the same hash from a store or from files."""
    rows = sorted(
        ([label.item_id, label.reviewer, label.revision, dict(label.scores)] for label in labels),
        key=lambda row: (row[0], row[1], row[2]),
    )
    rulings = sorted([item_id, axis, score] for (item_id, axis), score in adjudicated.items())
    return _digest({"labels": rows, "adjudications": rulings})


def verdicts_hash(table: VerdictTable) -> str:
    """The judge scores a calibration paired with the labels (None: can't judge or an error)."""
    axes = sorted(table.axes)
    columns = [table.axes.index(axis) for axis in axes]
    rows = sorted(
        [item, [None if score != score else int(score) for score in (table.scores[i, c] for c in columns)]]
        for i, item in enumerate(table.items)
    )
    return _digest({"axes": axes, "items": rows})


def artifact_from(
    report: CalibrationReport,
    labels: Iterable[LabelRevision],
    adjudicated: Mapping[ItemAxis, int | None],
    verdicts: VerdictTable,
) -> CalibrationArtifact:
    """The artifact of one calibration: its header and, per axis, verdict, reason, n and figures."""
    document = report.to_json()
    axes = {}
    for name, axis in report.axes.items():
        figures = {key: value for key, value in axis.to_json().items() if key not in ("verdict", "verdict_reason")}
        axes[name] = {"verdict": axis.verdict, "reason": axis.verdict_reason, "n": axis.n, "figures": figures}
    return CalibrationArtifact.model_validate(
        {
            "format": CALIBRATION_FORMAT,
            "version": CALIBRATION_VERSION,
            "judge_config_hash": report.judge_config_hash,
            "judge_name": report.judge_name,
            "rubric_version": report.rubric_version,
            "labels_hash": labels_hash(labels, adjudicated),
            "verdicts_hash": verdicts_hash(verdicts),
            "verdict": report.verdict,
            "bar": document["bar"],
            "labels": document["labels"],
            "axes": axes,
        },
        strict=False,  # tuples and numpy-free floats from the report; the file is read strictly
    )


def artifact_text(artifact: CalibrationArtifact, destination: str = "calibration artifact") -> str:
    """The artifact as written: indented JSON, keys in a fixed order, no NaN (refused, naming the field)."""
    return strict_json(artifact.to_json(), destination, indent=2, ensure_ascii=False) + "\n"


def read_calibration(path: Path, named_by: str, shown: str | None = None) -> LoadedCalibration:
    """Read an artifact strictly (see the module docstring); `shown` is the path as the user wrote it."""
    where = f"{path} ({named_by})"
    if not path.exists():
        raise UsageError(f"{where}: calibration artifact not found; {MAKE_ONE}")
    if not path.is_file():
        raise UsageError(f"{where}: not a file; {MAKE_ONE}")
    try:
        text = path.read_bytes().decode("utf-8")
        raw = loads(text)
    except OSError as exc:
        raise UsageError(f"{where}: cannot read the calibration artifact: {exc.strerror}") from exc
    except RefusedJSON as exc:
        raise CalibrationFileError([Problem(str(path), exc.lineno, exc.field, exc.msg)], _WHAT) from exc
    except UnicodeDecodeError as exc:
        raise UsageError(f"{where}: the calibration artifact is not UTF-8 (byte {exc.start}); {MAKE_ONE}") from None
    except json.JSONDecodeError as exc:
        raise UsageError(f"{where}: the calibration artifact is not valid JSON ({exc}); {MAKE_ONE}") from exc
    return LoadedCalibration(shown if shown is not None else str(path), named_by, _validated(path, text, raw))


_WHAT = "calibration artifact"


def _validated(path: Path, text: str, raw: object) -> CalibrationArtifact:
    if not isinstance(raw, dict):
        raise CalibrationFileError([Problem(str(path), 1, "(file)", f"must be a JSON object; {MAKE_ONE}")], _WHAT)
    found: list[tuple[tuple[str | int, ...], str]] = []
    if raw.get("format") != CALIBRATION_FORMAT:
        found.append((("format",), f"must be {CALIBRATION_FORMAT!r}: not a qaeval calibration artifact"))
    version = raw.get("version")
    if type(version) is not int or version != CALIBRATION_VERSION:  # by type: true == 1 in Python
        found.append((("version",), f"is {version!r}; this qaeval reads version {CALIBRATION_VERSION}"))
    if found:
        raise _located(path, text, found)
    try:
        artifact = CalibrationArtifact.model_validate(raw)
    except ValidationError as exc:
        raise _located(path, text, _errors(exc)) from None
    contradictions = self_contradictions(artifact)
    if contradictions:
        raise _located(path, text, contradictions)
    return artifact


def _errors(exc: ValidationError, *prefix: str | int) -> list[tuple[tuple[str | int, ...], str]]:
    return [((*prefix, *error["loc"]), error["msg"]) for error in exc.errors(include_url=False)]


class _Confusion(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True, frozen=True)
    labels: list[int]
    counts: list[list[Annotated[int, Field(ge=0)]]]


_Interval = Annotated[list[float], Field(min_length=2, max_length=2)]


def _pair(interval: list[float] | None) -> tuple[float, float] | None:
    return None if interval is None else (interval[0], interval[1])


class _HumanFigures(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True, frozen=True, allow_inf_nan=False)
    n_items: int = Field(ge=0)
    gap: float | None
    gap_ci: _Interval | None
    reason: str | None


class _Figures(BaseModel):
    """What an axis's verdict is decided on, as `calibrate --json` writes it (other figures are not read here)."""

    model_config = ConfigDict(extra="ignore", strict=True, frozen=True, allow_inf_nan=False)
    exact: float | None
    exact_ci: _Interval | None
    alpha: float | None
    alpha_ci: _Interval | None
    reasons: dict[str, str | None]
    confusion: _Confusion
    human_bar: _HumanFigures | None = None  # absent from artifacts made before the human bar


def _human_evidence(human: _HumanFigures | None) -> dict[str, Any]:
    if human is None:
        return {}
    return {
        "human_gap": human.gap,
        "human_gap_ci": _pair(human.gap_ci),
        "human_reason": human.reason,
        "human_items": human.n_items,
    }


def _judge_scores(confusion: _Confusion) -> list[int]:
    """The judge's scores of the paired items, from the confusion matrix's columns (rows are human)."""
    scores: list[int] = []
    for column, label in enumerate(confusion.labels):
        scores += [label] * sum(row[column] for row in confusion.counts if column < len(row))
    return scores


def self_contradictions(artifact: CalibrationArtifact) -> list[tuple[tuple[str | int, ...], str]]:
    """Where an artifact contradicts itself: an axis verdict its own bar and figures do not give (decided again
    by `verdict.decide`, the rule calibrate used), or a top-level verdict that is not the aggregate of its axes.

    A hand-edited verdict is caught; a forgery that rewrites the figures too is not (README: the artifact
    is trusted as committed and reviewed; recalibrating from the labels its labels_hash names checks it).
    """
    found: list[tuple[tuple[str | int, ...], str]] = []
    # An artifact made before the human bar and the anytime bound was held to neither: decided again
    # without them (the gate warns that its bar is weaker than this repo's).
    older = {key: False for key in ("human_bar", "anytime") if key not in artifact.bar}
    try:
        bar = CalibrationConfig.model_validate({**artifact.bar, **older})
    except ValidationError as exc:
        return _errors(exc, "bar")
    for name, axis in artifact.axes.items():
        try:
            figures = _Figures.model_validate(axis.figures)
        except ValidationError as exc:
            found += _errors(exc, "axes", name, "figures")
            continue
        evidence = Evidence(
            n=axis.n,
            exact=figures.exact,
            exact_ci=_pair(figures.exact_ci),
            alpha=figures.alpha,
            alpha_ci=_pair(figures.alpha_ci),
            alpha_ci_reason=figures.reasons.get("alpha_ci"),
            alpha_items=axis.n,
            constant_judge=constant_judge_warning(_judge_scores(figures.confusion), axis.n),
            exact_anytime=None
            if figures.exact is None or axis.n == 0
            else anytime_lower_bound(round(figures.exact * axis.n), axis.n, bar.min_exact),
            **_human_evidence(figures.human_bar),
        )
        decision = decide(evidence, bar)
        if decision.verdict != axis.verdict:
            found.append(
                (
                    ("axes", name, "verdict"),
                    f"is {axis.verdict}, but the artifact's own bar and figures give {decision.verdict} "
                    f"({decision.reason}): it contradicts itself; {MAKE_ONE} instead of editing one",
                )
            )
    overall = overall_verdict(axis.verdict for axis in artifact.axes.values())
    if artifact.verdict != overall:
        found.append(
            (("verdict",), f"is {artifact.verdict}, but its axes give {overall}: it contradicts itself; {MAKE_ONE}")
        )
    return found


def _located(path: Path, text: str, found: Sequence[tuple[tuple[str | int, ...], str]]) -> CalibrationFileError:
    problems: dict[str, Problem] = {}
    for where, message in found:
        field = _field(where)
        problems.setdefault(field, Problem(str(path), line_of(text, where), field, message))
    return CalibrationFileError(list(problems.values()), _WHAT)


def _field(where: tuple[str | int, ...]) -> str:
    text = ""
    for part in where:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text or "(file)"


MAX_DIFFERENCES = 20


def _shown(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def artifact_differences(path: Path, committed: CalibrationArtifact, fresh: CalibrationArtifact) -> list[Problem]:
    """Where a committed artifact differs from a calibration made again (`calibrate --check`): each field, located
    in the committed file, with both values; a forgery that rewrote the figures shows here. At most
    MAX_DIFFERENCES, the deepest differing member of each branch (a list is compared whole)."""
    text = path.read_text(encoding="utf-8")
    found: list[tuple[tuple[str | int, ...], str]] = []

    def walk(old: object, new: object, where: tuple[str | int, ...]) -> None:
        if isinstance(old, dict) and isinstance(new, dict):
            for key in [*old, *(key for key in new if key not in old)]:
                if key not in new:
                    found.append(((*where, key), "is not in a calibration of these labels"))
                elif key not in old:
                    found.append(((*where, key), f"is missing; a calibration of these labels gives {_shown(new[key])}"))
                else:
                    walk(old[key], new[key], (*where, key))
        elif old != new:
            found.append((where, f"is {_shown(old)}; a calibration of these labels gives {_shown(new)}"))

    walk(committed.to_json(), fresh.to_json(), ())
    return [
        Problem(str(path), line_of(text, where), _field(where), message) for where, message in found[:MAX_DIFFERENCES]
    ]
