"""How `qaeval runs show` and `qaeval diff` print: tables and plain lines from the core's view models.

Data goes through `one_line()` (hidden characters as escapes) and the consoles parse no markup; a
word diff is printed as `[-removed-]` / `{+added+}` (git's word-diff style), so it survives a pipe.
"""

from __future__ import annotations

import re

from rich.table import Table

from qaeval_tui.cli.common import stdout
from qaeval_tui.core.runs.compare import Piece, RunDiff
from qaeval_tui.core.runs.views import HEADLINE_METRICS, SHORT_NAMES, CaseDetail, RunSummary, RunTable
from qaeval_tui.core.text import literal, one_line

SHOWN = 25
_SPACE = re.compile(r"\s+")


def say(text: str) -> None:
    stdout.print(text, soft_wrap=True)


def _value(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _signed(value: float | None) -> str:
    return "-" if value is None else f"{value:+.3f}"


def _run_line(run: RunSummary) -> str:
    return (
        f"{run.run_id}: {one_line(run.adapter, 40)} · judge {one_line(run.judge, 40)} · suite {run.suite_hash[:12]} · "
        f"{run.n_cases} case(s) · finished {one_line(run.finished_at, 30)}"
    )


def print_run_table(table: RunTable) -> None:
    say("Run " + _run_line(table.run))
    counts = table.counts
    say(
        f"Showing {len(table.rows)} of {table.total} case(s) ({table.criteria.words()}): "
        f"{counts['pass']} pass, {counts['fail']} fail, {counts['judge error']} judge error"
    )
    short = [SHORT_NAMES[name] for name in HEADLINE_METRICS]
    grid = Table("case", "difficulty", "status", "failed", *short, "judge", "outcome", box=None, pad_edge=False)
    for row in table.rows:
        failed = ", ".join(name for name, status in row.checks.items() if status == "fail")
        extra = [f for f in row.failures if not f.startswith("check:")]
        scores = " ".join(f"{axis[:4]}={'-' if score is None else score}" for axis, score in row.scores.items())
        grid.add_row(
            one_line(row.case_id, 40), one_line(row.slices["difficulty"], 12), row.status,
            one_line(", ".join([*filter(None, [failed]), *extra]) or "-", 50),
            *(_value(row.values.get(name)) for name in HEADLINE_METRICS),
            one_line(scores or row.verdict_status, 40), one_line(row.outcome or row.verdict_status, 14),
        )  # fmt: skip
    stdout.print(grid)
    errors = [row for row in table.rows if row.judge_error]
    for row in errors[:SHOWN]:
        say(f"  {one_line(row.case_id, 40)}: judge: {one_line(row.judge_error or '', 160)}")
    if len(errors) > SHOWN:
        say(f"  ... and {len(errors) - SHOWN} more judge error(s) (see --json)")


def print_case_detail(detail: CaseDetail) -> None:
    row = detail.row
    say(f"Case {one_line(row.case_id)} of run {detail.run_id}: {row.status}")
    say("Slices: " + " · ".join(f"{kind} {one_line(value, 30)}" for kind, value in row.slices.items()))
    say(f"Question: {one_line(detail.question)}")
    say(
        f"Expected: {detail.expected_behavior}"
        + (f" · gold: {one_line(detail.gold_answer)}" if detail.gold_answer else "")
    )
    if detail.adapter_error:
        say(f"Adapter error: {one_line(detail.adapter_error)}")
    say(f"Answer{' (abstained)' if detail.abstained else ''}: {one_line(detail.answer) or '-'}")
    say("Citations:" if detail.citations else "Citations: none")
    for citation in detail.citations:
        say(f"  [{one_line(citation['source_id'], 30)}] {one_line(citation['quote'], 160)}")
    say("Sources (retrieved first):")
    for source in detail.sources:
        rank = f"#{source.retrieved_rank}" if source.retrieved_rank else "not retrieved"
        marks = ", ".join(m for m, on in (("cited", source.cited), ("gold", source.gold)) if on)
        say(f"  {one_line(source.id, 30)} ({rank}{', ' + marks if marks else ''}) {one_line(source.title, 60)}")
        say(f"    {one_line(source.text, 200)}")
    say("Checks:")
    for check in detail.checks:
        say(f"  {check.status:<4} {check.name}: {one_line(check.detail, 200)}")
    say(f"Judge: {row.verdict_status}" + (f" · outcome {one_line(row.outcome)}" if row.outcome else ""))
    for axis in detail.verdict:
        score = "can't judge" if axis.score is None else str(axis.score)
        say(f"  {one_line(axis.axis, 30)}: {score} · evidence: {one_line(axis.evidence, 160) or '-'}")
    if detail.judge_reason:
        say(f"  reason: {one_line(detail.judge_reason, 200)}")
    values = " · ".join(f"{name} {_value(value)}" for name, value in row.values.items() if value is not None)
    say(f"Values: {values or '-'}")


def word_diff_text(pieces: tuple[Piece, ...]) -> str:
    """The answers' word diff on one line: `[-removed-]` and `{+added+}`, data shown literally."""
    out = []
    for piece in pieces:
        text = _SPACE.sub(" ", literal(piece.text))
        out.append(text if piece.kind == "same" else f"[-{text}-]" if piece.kind == "removed" else f"{{+{text}+}}")
    return "".join(out)


def print_diff(result: RunDiff, *, show_all: bool, answers: bool) -> None:
    say("A " + _run_line(result.a))
    say("B " + _run_line(result.b))
    if not result.same_suite:
        say("Note: the runs are on different suites; cases are matched by id.")
    say("Overall (B - A): " + " · ".join(
        f"{SHORT_NAMES[name]} {_value(result.a.metrics[name])} -> {_value(result.b.metrics[name])} "
        f"({_signed(result.metric_deltas[name])})"
        for name in HEADLINE_METRICS
    ))  # fmt: skip
    counts = result.counts
    say("Cases: " + ", ".join(f"{count} {kind}" for kind, count in counts.items()))
    shown = result.changes if show_all else result.changed
    if not shown:
        say("No case changed status or answer.")
        return
    grid = Table("case", "change", "A", "B", "metric deltas (B - A)", box=None, pad_edge=False)
    for change in shown:
        moved = ", ".join(
            f"{SHORT_NAMES.get(name, name)} {_signed(delta)}" for name, delta in change.deltas.items() if delta
        )
        grid.add_row(
            one_line(change.case_id, 40), change.change, change.status_a or "-", change.status_b or "-", moved or "-"
        )
    stdout.print(grid)
    if answers:
        for change in shown:
            if change.answer_a is not None and change.answer_b is not None and change.answer_a != change.answer_b:
                say(f"{one_line(change.case_id, 40)}: {word_diff_text(change.pieces)}")
