"""One case of a run, read-only: the question, the system's answer and citations, the sources it
retrieved (in rank order, then the rest), each check with its reason, and the judge's verdict with
its evidence. Opening it records the viewer's exposure to the item when it is in their own queue."""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from qaeval_tui.core.runs.views import CaseDetail
from qaeval_tui.tui.commands import bindings
from qaeval_tui.tui.context import AppContext
from qaeval_tui.tui.literal import line, plain
from qaeval_tui.tui.screens.base import AppScreen
from qaeval_tui.tui.widgets.key_bar import KeyBar

MUTED = "$foreground-muted"
HEAD = "bold $primary"
CHECK_STYLES = {"pass": "$success", "fail": "bold $error", "skip": MUTED}
STATUS_STYLES = {"pass": "bold $success", "fail": "bold $error", "judge error": "bold $warning"}


@dataclass
class RunCaseLoaded(Message):
    detail: CaseDetail


def case_content(detail: CaseDetail) -> Content:
    row = detail.row
    parts: list[Content] = [
        Content.assemble(
            line(row.case_id).stylize("bold"),
            "  ",
            Content.styled(row.status, STATUS_STYLES[row.status]),
            line(f"  · run {detail.run_id} · " + " · ".join(f"{k} {v}" for k, v in row.slices.items())).stylize(MUTED),
        ),
        Content.styled("Question", HEAD),
        plain(detail.question),
        Content.assemble(("Expected ", HEAD), line(detail.expected_behavior)),
    ]
    if detail.gold_answer:
        parts += [Content.styled("Gold answer", HEAD), plain(detail.gold_answer)]
    parts.append(Content.styled("Answer (abstained)" if detail.abstained else "Answer", HEAD))
    parts.append(plain(detail.answer) if detail.answer else Content.styled("(no answer)", MUTED))
    if detail.adapter_error:
        parts.append(Content.assemble(("adapter error: ", "bold $error"), plain(detail.adapter_error)))
    parts.append(Content.styled(f"Citations ({len(detail.citations)})", HEAD))
    for citation in detail.citations:
        parts.append(
            Content.assemble(line(f"[{citation['source_id']}] ").stylize("bold $accent"), plain(citation["quote"]))
        )
    parts.append(Content.styled("Sources (retrieved first, in rank order)", HEAD))
    for source in detail.sources:
        rank = f"#{source.retrieved_rank}" if source.retrieved_rank else "not retrieved"
        marks = "".join(f", {mark}" for mark, on in (("cited", source.cited), ("gold", source.gold)) if on)
        parts.append(
            Content.assemble(
                line(source.id).stylize("bold"),
                " · ",
                line(source.title).stylize("bold"),
                (f"  ({rank}{marks})", "$warning" if source.cited and not source.retrieved_rank else MUTED),
            )
        )
        parts.append(plain(source.text).stylize(MUTED if source.retrieved_rank is None else ""))
    parts.append(Content.styled("Checks", HEAD))
    for check in detail.checks:
        parts.append(
            Content.assemble(
                Content.styled(f"{check.status:<5}", CHECK_STYLES.get(check.status, "")),
                line(check.name).stylize("bold"),
                ": ",
                plain(check.detail),
            )
        )
    outcome = f" · outcome {row.outcome}" if row.outcome else ""
    parts.append(Content.assemble(("Judge ", HEAD), line(f"{row.verdict_status}{outcome}")))
    for axis in detail.verdict:
        score = "can't judge" if axis.score is None else str(axis.score)
        parts.append(
            Content.assemble(line(axis.axis).stylize("bold"), f": {score}  ", plain(axis.evidence).stylize(MUTED))
        )
    if detail.judge_reason:
        parts.append(Content.assemble(("reason: ", MUTED), plain(detail.judge_reason)))
    return Content("\n").join(parts)


class RunCaseScreen(AppScreen[None]):
    SCOPE = "run_case"
    BINDINGS = bindings("run_case")

    def __init__(self, context: AppContext, run_id: str, case_id: str) -> None:
        super().__init__(context)
        self.run_id = run_id
        self.case_id = case_id
        self.detail: CaseDetail | None = None

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="run-case-body"):
            yield Static(line(f"{self.case_id} · loading…"), id="run-case")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#run-case-body", VerticalScroll).focus()
        services, run_id, case_id, viewer = self.context.services, self.run_id, self.case_id, self.context.reviewer
        self.call("loading…", lambda: RunCaseLoaded(services.run_case(run_id, case_id, viewer or "")), "Not loaded")

    def on_run_case_loaded(self, message: RunCaseLoaded) -> None:
        self.settle()
        self.detail = message.detail
        self.query_one("#run-case", Static).update(case_content(message.detail))

    def action_back(self) -> None:
        self.dismiss(None)
