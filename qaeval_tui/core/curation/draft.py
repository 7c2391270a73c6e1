"""The promote form's data: a draft as typed, its field errors, and the golden line it describes.

Everything here is pure and fast (the form calls it on every keystroke); checks that need the
current golden set or the inbox live in `curation`.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, replace
from typing import Any

from qaeval_tui.core.curation.inbox import ProductionMiss
from qaeval_tui.core.golden.loader import case_to_json_dict, parse_case_line
from qaeval_tui.core.jsonl import loads
from qaeval_tui.core.models.golden import GoldenCase

ORIGIN = "production_miss"
BEHAVIORS = ("answer", "abstain")
DIFFICULTIES = ("single_hop", "multi_hop", "aggregation")
KNOWN_TAGS = ("time_sensitive", "decoy", "prompt_injection", "unanswerable_lookalike")

_FIELD_PATH = re.compile(r"^(?P<name>[a-z_]+)(?:\[(?P<index>\d+)\])?")
# Loader field names that are not draft field names.
_LOADER_TO_DRAFT = {"id": "case_id", "provenance.promoted_by": "curator", "provenance.reason": "reason"}


@dataclass(frozen=True)
class FieldError:
    """One problem with one draft field; `index` points into a list field (gold sources, checkpoints)."""

    field: str
    message: str
    index: int | None = None

    @property
    def path(self) -> str:
        return self.field if self.index is None else f"{self.field}[{self.index}]"

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


@dataclass(frozen=True)
class PromotionDraft:
    """The promote form as typed. Empty text means "not given"; lists hold one entry per pick.

    `checkpoints` are specs: `retrieve:SOURCE_ID` or `value:NAME=VALUE` (VALUE is a JSON number or
    string when it parses as one, else taken as text: `value:deadline=2026-09-10`).
    """

    trace_id: str
    case_id: str = ""
    question: str = ""
    expected_behavior: str = "answer"
    gold_answer: str = ""
    gold_source_ids: tuple[str, ...] = ()
    difficulty: str = "single_hop"
    adversarial: str = ""
    checkpoints: tuple[str, ...] = ()
    curator: str = ""
    reason: str = ""

    def with_changes(self, **changes: Any) -> PromotionDraft:
        """A copy with some fields changed (what a form does on each edit)."""
        return replace(self, **changes)


def suggest_case_id(question: str, taken: set[str] | dict[str, str]) -> str:
    """A readable, unused id from the question's first content words, e.g. `gateway-g2-price-01`."""
    from qaeval_tui.core.golden.neardup import normalize_question  # with numpy: loaded when first needed

    words = normalize_question(question).split()[:4] or ["case"]
    stem = "-".join(words)
    number = 1
    while f"{stem}-{number:02d}" in taken:
        number += 1
    return f"{stem}-{number:02d}"


def draft_from_miss(
    miss: ProductionMiss, curator: str = "", taken: set[str] | dict[str, str] | None = None
) -> PromotionDraft:
    """A draft prefilled from the miss: its question, its reason, and a suggested id."""
    return PromotionDraft(
        trace_id=miss.trace_id,
        case_id=suggest_case_id(miss.question, taken or set()),
        question=miss.question,
        curator=curator,
        reason=miss.reason,
    )


def parse_checkpoint(spec: str) -> dict[str, Any]:
    """`retrieve:SOURCE_ID` or `value:NAME=VALUE` as a checkpoint object. Raises ValueError."""
    kind, sep, rest = spec.strip().partition(":")
    if not sep:
        raise ValueError(f"{spec!r}: write retrieve:SOURCE_ID or value:NAME=VALUE")
    if kind == "retrieve":
        if not rest.strip():
            raise ValueError(f"{spec!r}: the source id is missing (retrieve:SOURCE_ID)")
        return {"kind": "retrieve", "source_id": rest.strip()}
    if kind == "value":
        name, eq, raw = rest.partition("=")
        if not eq or not name.strip() or not raw.strip():
            raise ValueError(f"{spec!r}: write value:NAME=VALUE")
        return {"kind": "value", "name": name.strip(), "value": _checkpoint_value(raw.strip())}
    raise ValueError(f"{spec!r}: the kind must be retrieve or value, not {kind!r}")


def _checkpoint_value(raw: str) -> str | int | float:
    try:
        value = loads(raw)
    except ValueError:
        return raw
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return raw
    if isinstance(value, float) and not math.isfinite(value):
        return raw
    return value


def checkpoint_spec(checkpoint: dict[str, Any]) -> str:
    """The spec text of a checkpoint object (the inverse of `parse_checkpoint`)."""
    if checkpoint.get("kind") == "retrieve":
        return f"retrieve:{checkpoint['source_id']}"
    return f"value:{checkpoint['name']}={json.dumps(checkpoint['value'], ensure_ascii=False)}"


def draft_candidate(
    draft: PromotionDraft, miss: ProductionMiss, promoted_at: str
) -> tuple[dict[str, Any], list[int], list[FieldError]]:
    """The case line the draft would write, the draft index of each parsed checkpoint, and spec errors."""
    checkpoints: list[dict[str, Any]] = []
    positions: list[int] = []
    errors: list[FieldError] = []
    for index, spec in enumerate(draft.checkpoints):
        try:
            checkpoints.append(parse_checkpoint(spec))
            positions.append(index)
        except ValueError as exc:
            errors.append(FieldError("checkpoints", str(exc), index))
    candidate = {
        "id": draft.case_id.strip(),
        "question": draft.question.strip(),
        "sources": [source.model_dump(mode="json", exclude_none=True) for source in miss.sources],
        "expected_behavior": draft.expected_behavior,
        "gold_answer": draft.gold_answer.strip() or None,
        "gold_source_ids": list(draft.gold_source_ids),
        "difficulty": draft.difficulty,
        "adversarial": draft.adversarial.strip() or None,
        "checkpoints": checkpoints,
        "provenance": {
            "origin": ORIGIN,
            "trace_id": miss.trace_id,
            "promoted_by": draft.curator.strip(),
            "promoted_at": promoted_at,
            "reason": draft.reason.strip(),
        },
    }
    return candidate, positions, errors


def loader_errors(candidate: dict[str, Any], positions: list[int]) -> list[FieldError]:
    """The loader's verdict on the exact line that would be written, in draft field names."""
    line = json.dumps(candidate, ensure_ascii=False).encode("utf-8")
    _, problems = parse_case_line(line, "(draft)", 1)
    errors = []
    for problem in problems:
        name = _LOADER_TO_DRAFT.get(problem.field)
        index: int | None = None
        if name is None:
            match = _FIELD_PATH.match(problem.field)
            name = match.group("name") if match else problem.field
            if match and match.group("index") is not None:
                index = int(match.group("index"))
                if name == "checkpoints" and index < len(positions):
                    index = positions[index]
        errors.append(FieldError(name, problem.message, index))
    return errors


def case_line(case: GoldenCase) -> str:
    """The case as the one JSONL line a promotion appends."""
    return json.dumps(case_to_json_dict(case), ensure_ascii=False)
