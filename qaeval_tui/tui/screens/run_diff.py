"""Two runs compared: the overall metric deltas, the cases that changed (status or answer) with their
metric deltas, and the selected case's two answers side by side, the words that differ marked
(removed in A's, added in B's; a word diff from `core.runs.compare`, rendered literally)."""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from qaeval_tui.core.runs.compare import CaseChange, Piece, RunDiff, side
from qaeval_tui.core.runs.views import HEADLINE_METRICS, SHORT_NAMES
from qaeval_tui.tui.commands import bindings
from qaeval_tui.tui.context import AppContext
from qaeval_tui.tui.literal import cell, line, plain
from qaeval_tui.tui.screens.base import AppScreen
from qaeval_tui.tui.widgets.key_bar import KeyBar
from qaeval_tui.tui.widgets.pick_table import PickTable

MUTED = "$foreground-muted"
CHANGE_STYLES = {"regressed": "bold $error", "fixed": "bold $success", "changed": "$warning"}
PIECE_STYLES = {"removed": "bold $text on $error 40%", "added": "bold $text on $success 40%", "same": ""}


@dataclass
class RunDiffLoaded(Message):
    diff: RunDiff


def _signed(value: float | None) -> str:
    return "-" if value is None else f"{value:+.2f}"


def answer_content(pieces: tuple[Piece, ...], title: str) -> Content:
    body = Content.assemble(*(plain(piece.text).stylize(PIECE_STYLES[piece.kind]) for piece in pieces))
    return Content.assemble(
        line(title).stylize("bold $primary"), "\n", body if pieces else Content.styled("(no answer)", MUTED)
    )


def _side_title(name: str, status: str | None, failures: tuple[str, ...]) -> str:
    if status is None:
        return f"{name} · not in this run"
    return f"{name} · {status}" + (f" ({', '.join(failures)})" if failures else "")


class RunDiffScreen(AppScreen[None]):
    SCOPE = "run_diff"
    BINDINGS = bindings("run_diff")

    def __init__(self, context: AppContext, run_a: str, run_b: str) -> None:
        super().__init__(context)
        self.run_a, self.run_b = run_a, run_b
        self.diff: RunDiff | None = None

    def compose(self) -> ComposeResult:
        yield Static(
            line(f"Comparing {self.run_a} (A) with {self.run_b} (B) · loading…").stylize("bold"), id="diff-title"
        )
        yield PickTable(id="diff-cases")
        with Horizontal(id="diff-answers"):
            with VerticalScroll(id="diff-a"):
                yield Static("", id="diff-answer-a")
            with VerticalScroll(id="diff-b"):
                yield Static("", id="diff-answer-b")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one(PickTable).focus()
        services, a, b = self.context.services, self.run_a, self.run_b
        self.call("comparing…", lambda: RunDiffLoaded(services.compare_runs(a, b)), "Not compared")

    def on_run_diff_loaded(self, message: RunDiffLoaded) -> None:
        self.settle()
        self.diff = diff = message.diff
        overall = "  ".join(f"{SHORT_NAMES[name]} {_signed(diff.metric_deltas[name])}" for name in HEADLINE_METRICS)
        counts = ", ".join(f"{count} {kind}" for kind, count in diff.counts.items())
        suite = "" if diff.same_suite else " · different suites: cases matched by id"
        self.query_one("#diff-title", Static).update(
            Content.assemble(
                line(f"A {diff.a.run_id} ({diff.a.adapter})  →  B {diff.b.run_id} ({diff.b.adapter})").stylize("bold"),
                "\n",
                Content.styled(f"overall B − A: {overall}", ""),
                "\n",
                line(f"cases: {counts}{suite}").stylize(MUTED),
            )
        )
        table = self.query_one(PickTable)
        table.clear(columns=True)
        for title, width in (("case", 28), ("change", 14), ("A", 11), ("B", 11), ("metric deltas (B − A)", 60)):
            table.add_column(title, width=width)
        for change in diff.changed:
            moved = ", ".join(
                f"{SHORT_NAMES.get(name, name)} {_signed(delta)}" for name, delta in change.deltas.items() if delta
            )
            table.add_row(
                cell(change.case_id), cell(change.change, CHANGE_STYLES.get(change.change, "")),
                cell(change.status_a or "-"), cell(change.status_b or "-"), cell(moved or "-"),
            )  # fmt: skip
        self._answers()

    def selected(self) -> CaseChange | None:
        changed = self.diff.changed if self.diff else ()
        row = self.query_one(PickTable).cursor_row
        return changed[row] if changed and 0 <= row < len(changed) else None

    def _answers(self) -> None:
        change = self.selected()
        left, right = self.query_one("#diff-answer-a", Static), self.query_one("#diff-answer-b", Static)
        if change is None:
            left.update(Content.styled("No case changed status or answer between the two runs.", MUTED))
            right.update("")
            return
        pieces = change.pieces
        left.update(
            answer_content(
                side(pieces, "A") if change.answer_a is not None else (),
                _side_title("A", change.status_a, change.failures_a),
            )
        )
        right.update(
            answer_content(
                side(pieces, "B") if change.answer_b is not None else (),
                _side_title("B", change.status_b, change.failures_b),
            )
        )

    def on_data_table_row_highlighted(self, _event: PickTable.RowHighlighted) -> None:
        self._answers()

    def action_detail_down(self) -> None:
        for box in self.query(VerticalScroll):
            box.scroll_page_down()

    def action_detail_up(self) -> None:
        for box in self.query(VerticalScroll):
            box.scroll_page_up()

    def action_back(self) -> None:
        self.dismiss(None)
