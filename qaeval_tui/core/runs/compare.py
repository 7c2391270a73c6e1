"""Two stored runs side by side (`qaeval diff RUN_A RUN_B`, the app's comparison screen).

Cases are matched by case id. A case whose status changed (pass, fail, judge error), that one run
lacks, or whose answer changed is listed; the others count as unchanged. Per case, every metric
with a value in either run gets its delta (B minus A); the two answers get a word diff (difflib)
whose pieces are plain text, to be rendered literally.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from qaeval_tui.core.batch import with_collector_paused
from qaeval_tui.core.running.metrics import METRIC_NAMES
from qaeval_tui.core.runs.views import CaseRow, RunSummary, all_rows, resolve_run, summary
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.rows import RunOutput

Change = Literal["regressed", "fixed", "changed", "only in A", "only in B", "answer changed", "same"]
PieceKind = Literal["same", "removed", "added"]
_TOKENS = re.compile(r"\s+|[^\s]+")


@dataclass(frozen=True)
class Piece:
    """A run of words: in both answers, only in A's (removed) or only in B's (added)."""

    kind: PieceKind
    text: str


SHORT_COMMON = 2
"""A stretch of at most this many words in both answers, between two changes, is shown as changed too:
"[-I can't-] the [-answer-]" reads worse than one removed phrase beside one added one."""


def word_diff(before: str, after: str) -> tuple[Piece, ...]:
    """The two texts as pieces: joining the same+removed pieces gives `before`, same+added gives `after`.

    Words and the whitespace between them are the units, so a changed number shows as one word."""
    a, b = _TOKENS.findall(before), _TOKENS.findall(after)
    ops = [
        (tag == "equal", a[i1:i2], b[j1:j2])
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    ]
    for index in range(1, len(ops) - 1):
        equal, tokens, _ = ops[index]
        words = sum(1 for token in tokens if not token.isspace())
        if equal and words <= SHORT_COMMON and not ops[index - 1][0] and not ops[index + 1][0]:
            ops[index] = (False, tokens, tokens)
    pieces: list[Piece] = []

    def add(kind: PieceKind, tokens: list[str]) -> None:
        if not tokens:
            return
        text = "".join(tokens)
        if pieces and pieces[-1].kind == kind:
            pieces[-1] = Piece(kind, pieces[-1].text + text)
        else:
            pieces.append(Piece(kind, text))

    removed: list[str] = []
    added: list[str] = []
    for equal, old, new in ops:
        if equal:
            add("removed", removed)
            add("added", added)
            removed, added = [], []
            add("same", old)
        else:
            removed += old
            added += new
    add("removed", removed)
    add("added", added)
    return tuple(pieces)


def side(pieces: tuple[Piece, ...], which: Literal["A", "B"]) -> tuple[Piece, ...]:
    """The pieces one answer is made of (A: same and removed; B: same and added)."""
    dropped = "added" if which == "A" else "removed"
    return tuple(piece for piece in pieces if piece.kind != dropped)


@dataclass(frozen=True)
class CaseChange:
    case_id: str
    change: Change
    status_a: str | None
    status_b: str | None
    deltas: dict[str, float | None]
    """Metric -> B minus A (None where either run has no value); only metrics with a value in either."""
    values_a: dict[str, float | None]
    values_b: dict[str, float | None]
    answer_a: str | None
    answer_b: str | None
    failures_a: tuple[str, ...]
    failures_b: tuple[str, ...]

    @property
    def pieces(self) -> tuple[Piece, ...]:
        return word_diff(self.answer_a or "", self.answer_b or "")

    def to_json(self) -> dict[str, Any]:
        return {
            "case_id": self.case_id,
            "change": self.change,
            "status_a": self.status_a,
            "status_b": self.status_b,
            "failures_a": list(self.failures_a),
            "failures_b": list(self.failures_b),
            "deltas": self.deltas,
            "answer_a": self.answer_a,
            "answer_b": self.answer_b,
            "answer_diff": [{"kind": piece.kind, "text": piece.text} for piece in self.pieces],
        }


@dataclass(frozen=True)
class RunDiff:
    a: RunSummary
    b: RunSummary
    changes: tuple[CaseChange, ...]
    """Every case of either run, changed ones first (regressed, fixed, other), then the same."""
    metric_deltas: dict[str, float | None]
    """Overall metric B minus A."""

    @property
    def changed(self) -> tuple[CaseChange, ...]:
        return tuple(change for change in self.changes if change.change != "same")

    @property
    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for change in self.changes:
            counts[change.change] = counts.get(change.change, 0) + 1
        return counts

    @property
    def same_suite(self) -> bool:
        return self.a.suite_hash == self.b.suite_hash

    def to_json(self) -> dict[str, Any]:
        return {
            "a": self.a.to_json(),
            "b": self.b.to_json(),
            "same_suite": self.same_suite,
            "counts": self.counts,
            "metric_deltas": self.metric_deltas,
            "cases": [change.to_json() for change in self.changed],
        }


def _delta(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else b - a


_ORDER: dict[str, int] = {
    "regressed": 0, "fixed": 1, "changed": 2, "only in A": 3, "only in B": 4, "answer changed": 5, "same": 6,
}  # fmt: skip


def _change(a: CaseRow | None, b: CaseRow | None, answer_a: str | None, answer_b: str | None) -> Change:
    if a is None:
        return "only in B"
    if b is None:
        return "only in A"
    if a.status != b.status:
        if a.status == "pass":
            return "regressed"
        if b.status == "pass":
            return "fixed"
        return "changed"
    return "same" if answer_a == answer_b else "answer changed"


@with_collector_paused  # a batch step over every case of both runs: see core/batch.py
def compare_runs(store: StoreBackend, name_a: str, name_b: str) -> RunDiff:
    """Run B against run A (each named as `resolve_run` reads it)."""
    run_a, run_b = resolve_run(store, name_a), resolve_run(store, name_b)
    outputs_a, outputs_b = store.run_outputs(run_a.run_id), store.run_outputs(run_b.run_id)
    rows_a = {row.case_id: row for row in all_rows(store, run_a, outputs_a)}
    rows_b = {row.case_id: row for row in all_rows(store, run_b, outputs_b)}
    answers_a, answers_b = _answers(outputs_a), _answers(outputs_b)
    changes = []
    for case_id in [*rows_a, *(case for case in rows_b if case not in rows_a)]:
        a, b = rows_a.get(case_id), rows_b.get(case_id)
        values_a, values_b = (a.values if a else {}), (b.values if b else {})
        deltas = {
            name: _delta(values_a.get(name), values_b.get(name))
            for name in METRIC_NAMES
            if values_a.get(name) is not None or values_b.get(name) is not None
        }
        answer_a, answer_b = answers_a.get(case_id), answers_b.get(case_id)
        changes.append(
            CaseChange(
                case_id,
                _change(a, b, answer_a, answer_b),
                a.status if a else None,
                b.status if b else None,
                deltas,
                dict(values_a),
                dict(values_b),
                answer_a,
                answer_b,
                a.failures if a else (),
                b.failures if b else (),
            )
        )
    changes.sort(key=lambda change: _ORDER[change.change])  # stable: suite order within a kind
    summary_a, summary_b = summary(run_a), summary(run_b)
    metric_deltas = {name: _delta(summary_a.metrics[name], summary_b.metrics[name]) for name in METRIC_NAMES}
    return RunDiff(summary_a, summary_b, tuple(changes), metric_deltas)


def _answers(outputs: Sequence[RunOutput]) -> dict[str, str]:
    found = {}
    for output in outputs:
        answer = output.output.get("answer")
        found[output.case_id] = answer if isinstance(answer, str) else ""
    return found
