"""The judge's verdict on an item this reviewer has submitted, with agreement per axis, and the
other reviewers' labels and notes on it."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from qaeval_tui.core.review.session import RevealView
from qaeval_tui.core.text import one_line
from qaeval_tui.tui.literal import plain


def _value(value: int | None) -> str:
    return "can't judge" if value is None else str(value)


def reveal_content(view: RevealView, axes: tuple[str, ...]) -> Content:
    lines: list[Content] = [
        Content.assemble(("case ", "$foreground-muted"), plain(view.case_id).stylize("bold")),
        Content.assemble(
            ("judge ", "$foreground-muted"),
            plain(view.judge_name or "(none)"),
            ("  status ", "$foreground-muted"),
            plain(view.status),
        ),
        Content(""),
    ]
    if view.status == "missing":
        lines.append(Content.styled("No judge verdict is stored for this item.", "$warning"))
    names = {name: one_line(name, 40) for name in axes}  # axis names come from the config
    width = max(map(len, names.values())) + 2
    lines.append(Content.styled(f"{'axis'.ljust(width)}{'you':>12}{'judge':>12}   agree", "bold"))
    for name in axes:
        agrees = view.agrees.get(name)
        mark = (
            ("   yes", "bold $success") if agrees else (("   no", "bold $error") if agrees is False else ("   -", ""))
        )
        yours = _value(view.your_scores.get(name)) if name in view.your_scores else "-"
        judge = _value(view.judge_scores.get(name)) if name in view.judge_scores else "-"
        lines.append(Content.assemble(names[name].ljust(width), f"{yours:>12}", f"{judge:>12}", mark))
    lines.append(Content(""))
    lines.append(Content.styled("Other reviewers", "bold"))
    if not view.others:
        lines.append(Content.styled("No other reviewer has labelled this item yet.", "$foreground-muted"))
    for other in view.others:  # names, scores and notes are data: shown literally
        scores = " · ".join(f"{names[name]} {_value(other.scores.get(name))}" for name in axes if name in other.scores)
        lines.append(Content.assemble(plain(other.reviewer).stylize("bold"), "  ", plain(scores)))
        if other.note:
            lines.append(Content.assemble(("  note: ", "$foreground-muted"), plain(other.note)))
    for name in axes:
        if view.evidence.get(name):
            lines.append(Content(""))
            lines.append(Content.assemble((f"{names[name]} evidence: ", "bold"), plain(view.evidence[name])))
    return Content("\n").join(lines)


class RevealDialog(ModalScreen[None]):
    """Shown only after submit; a change made after this is stored as a post-reveal revision."""

    BINDINGS = [Binding("escape,enter,r", "close", "close")]  # noqa: RUF012 (Textual's own type)

    def __init__(self, view: RevealView, axes: tuple[str, ...]) -> None:
        super().__init__()
        self.view = view
        self.axes = axes

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide-dialog"):
            yield Static(
                "Judge verdict and other reviewers on the item you last submitted", classes="dialog-title", markup=False
            )
            with VerticalScroll():
                yield Static(reveal_content(self.view, self.axes))
            yield Static(
                "Changing this label now (u undo) is recorded as post-reveal.  escape close",
                classes="dialog-hint",
                markup=False,
            )

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).focus()

    def action_close(self) -> None:
        self.dismiss(None)
