"""Trajectory scoring for multi-hop and aggregation cases.

Success needs every checkpoint (each named source retrieved, each named value computed) and
the right end state: for an aggregation, the answer states its final value (the last value
checkpoint); otherwise it states every key fact (number, identifier) of the gold answer. A lucky
right answer reached without the checkpoints reads as the failure it is.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from qaeval_tui.core.models.golden import GoldenCase, RetrieveCheckpoint, ValueCheckpoint
from qaeval_tui.core.models.run import SUTOutput
from qaeval_tui.core.running.matching import is_identifier, support, terms

MULTI_STEP = ("multi_hop", "aggregation")
# Without key facts, the answer must carry this share of the gold answer's terms.
END_STATE_OVERLAP = 0.6
_NUMBER = re.compile(r"^[-+]?[$£€]?\s*[-+]?(\d[\d,]*(?:\.\d+)?|\.\d+)\s*%?$")


@dataclass(frozen=True)
class CheckpointResult:
    kind: str
    target: str
    expected: str
    got: str | None
    passed: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "target": self.target,
            "expected": self.expected,
            "got": self.got,
            "passed": self.passed,
        }


@dataclass(frozen=True)
class TrajectoryResult:
    checkpoints: tuple[CheckpointResult, ...]
    end_state_ok: bool
    end_state_detail: str

    @property
    def success(self) -> bool:
        return self.end_state_ok and all(checkpoint.passed for checkpoint in self.checkpoints)

    def to_json(self) -> dict[str, Any]:
        return {
            "success": self.success,
            "end_state_ok": self.end_state_ok,
            "end_state_detail": self.end_state_detail,
            "checkpoints": [checkpoint.to_json() for checkpoint in self.checkpoints],
        }


def as_number(value: object) -> float | None:
    """A number from an int, a float or text such as "$1,234.50" or "15%"; None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        match = _NUMBER.match(value.strip())
        if match:
            return float(match.group(1).replace(",", ""))
    return None


def values_match(expected: object, got: object) -> bool:
    """Numbers compare numerically (relative tolerance 1e-6); anything else as trimmed, casefolded text."""
    left, right = as_number(expected), as_number(got)
    if left is not None and right is not None:
        return math.isclose(left, right, rel_tol=1e-6, abs_tol=1e-9)
    return str(expected).strip().casefold() == str(got).strip().casefold()


def key_facts(gold_answer: str) -> list[str]:
    """The gold answer's numbers and identifiers: the facts an answer cannot do without."""
    return list(
        dict.fromkeys(term for term in terms(gold_answer) if is_identifier(term) or as_number(term) is not None)
    )


def end_state(case: GoldenCase, output: SUTOutput) -> tuple[bool, str]:
    if output.error is not None:
        return False, "the adapter failed"
    if output.abstained:
        return False, "abstained"
    finals = [cp for cp in case.checkpoints if isinstance(cp, ValueCheckpoint)]
    if case.difficulty == "aggregation" and finals:
        # The end state of an aggregation is its final value; the working is checked by the checkpoints.
        final = finals[-1].value
        stated = any(values_match(final, term) for term in terms(output.answer)) or (
            as_number(final) is None and str(final).strip().casefold() in output.answer.casefold()
        )
        return stated, f"the answer {'states' if stated else 'lacks'} the final value {final}"
    gold = case.gold_answer or ""
    facts = key_facts(gold)
    answer_terms = set(terms(output.answer))
    if facts:
        missing = [fact for fact in facts if fact not in answer_terms]
        if missing:
            return False, f"the answer lacks {', '.join(missing)}"
        return True, f"the answer states {', '.join(facts)}"
    overlap = support(gold, output.answer)
    if overlap >= END_STATE_OVERLAP:
        return True, f"the answer carries {overlap:.0%} of the gold answer's terms"
    return False, f"the answer carries only {overlap:.0%} of the gold answer's terms"


def score_trajectory(case: GoldenCase, output: SUTOutput) -> TrajectoryResult | None:
    """None for single-hop cases; else every checkpoint and the end state."""
    if case.difficulty not in MULTI_STEP or case.expected_behavior != "answer":
        return None
    retrieved = set(output.retrieved_ids)
    results: list[CheckpointResult] = []
    for checkpoint in case.checkpoints:
        if isinstance(checkpoint, RetrieveCheckpoint):
            hit = checkpoint.source_id in retrieved
            results.append(
                CheckpointResult(
                    "retrieve", checkpoint.source_id, "retrieved", "retrieved" if hit else "not retrieved", hit
                )
            )
        else:
            got = output.computed.get(checkpoint.name)
            passed = got is not None and values_match(checkpoint.value, got)
            results.append(
                CheckpointResult(
                    "value", checkpoint.name, str(checkpoint.value), None if got is None else str(got), passed
                )
            )
    ok, detail = end_state(case, output)
    return TrajectoryResult(tuple(results), ok, detail)
