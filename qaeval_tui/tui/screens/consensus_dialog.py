"""Record a consensus label on one (item, axis): a scale value with its anchor, the reason, and
optionally the guideline section the ruling rests on (`core.guideline_sections`: the general
guidelines' headings and the axis's own)."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Select, Static
from textual.widgets.option_list import Option

from qaeval_tui.core.curation.adjudication import Disagreement
from qaeval_tui.core.guideline_sections import GuidelineSection
from qaeval_tui.core.rubric import Axis
from qaeval_tui.core.text import one_line
from qaeval_tui.tui.literal import editable, line, plain


@dataclass(frozen=True)
class Ruling:
    score: int
    reason: str
    adjudicator: str
    cites: str | None = None
    """The cited guideline section's id, or None."""


def scores_line(entry: Disagreement) -> Content:
    parts: list[Content] = []
    for score in entry.scores:
        value = "can't judge" if score.value is None else str(score.value)
        parts.append(Content.assemble(plain(score.reviewer).stylize("bold"), " ", (value, "bold $accent")))
    return Content("   ").join(parts)


def section_option(section: GuidelineSection) -> Text:
    """A section as the picker lists it: its title, then whose guidelines hold it (a Rich Text: never markup)."""
    return Text.assemble(one_line(section.title), (f"  {one_line(section.where)}", "dim"))


HINTS = {
    "consensus-value": "up/down choose a value · enter or tab: reason · escape cancel",
    "consensus-reason": "type the reason · tab: guideline section · enter record · escape cancel",
    "consensus-cites": "enter: pick the guideline section it rests on (optional) · tab: adjudicator · escape cancel",
    "consensus-adjudicator": "your name · shift+tab: section · enter record · escape cancel",
}
"""The dialog's hint for the field that has focus."""


class ConsensusDialog(ModalScreen[Ruling | None]):
    """Returns the chosen value, the reason, the cited section and who ruled, or None when cancelled."""

    BINDINGS = [Binding("escape", "cancel", "cancel")]  # noqa: RUF012 (Textual's own type)

    def __init__(
        self,
        entry: Disagreement,
        axis: Axis,
        value: int | None,
        adjudicator: str,
        *,
        sections: tuple[GuidelineSection, ...] = (),
        blink: bool = True,
    ) -> None:
        super().__init__()
        self.sections = sections
        """What the ruling may cite: the general guidelines' sections and this axis's."""
        self.entry = entry
        self.axis = axis
        self.value = value
        self.adjudicator = adjudicator
        self.blink = blink

    def compose(self) -> ComposeResult:
        entry, axis = self.entry, self.axis
        with Vertical():
            yield Static(
                Content.assemble(
                    "Consensus on ", line(axis.name).stylize("bold $accent"), " for ", line(entry.case_id)
                ),
                classes="title",
            )
            yield Static(Content.assemble(("blind labels  ", "$foreground-muted"), scores_line(entry)))
            if entry.ruling is not None:
                yield Static(Content.assemble(("now  ", "$foreground-muted"), plain(entry.ruling.text())))
            yield Static("Value", classes="field-label")
            yield OptionList(
                *(
                    Option(Content.assemble((f"{value}  ", "bold"), plain(anchor)), id=str(value))
                    for value, anchor in zip(axis.scale, axis.anchors, strict=True)
                ),
                id="consensus-value",
            )
            yield Static("Reason", classes="field-label")
            yield Input(placeholder="why this is the right label (required)", id="consensus-reason")
            yield Static("Cites guideline section", classes="field-label")
            yield Select[str](
                ((section_option(section), section.id) for section in self.sections),
                prompt="none (optional)" if self.sections else "none: the guidelines have no headings",
                id="consensus-cites",
                disabled=not self.sections,
                compact=True,
            )
            yield Static("Adjudicator", classes="field-label")
            yield Input(editable(self.adjudicator), placeholder="your name (required)", id="consensus-adjudicator")
            yield Static("", id="consensus-problem")
            yield Static(
                "Append-only: a later ruling supersedes this one, nothing is erased.", classes="hint", markup=False
            )
            yield Static(HINTS["consensus-value"], id="consensus-hint", classes="hint", markup=False)

    def on_descendant_focus(self) -> None:
        """The hint names the keys of the field that has focus."""
        focused = self.focused
        hint = HINTS.get(focused.id or "", "") if focused is not None else ""
        if hint:
            self.query_one("#consensus-hint", Static).update(hint)

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        reason = self.query_one("#consensus-reason", Input)
        for field in self.query(Input):
            field.cursor_blink = self.blink
        if self.value is not None and self.value in self.axis.scale:
            options.highlighted = self.axis.scale.index(self.value)
            reason.focus()
        else:
            options.highlighted = None
            options.focus()

    def chosen(self) -> int | None:
        index = self.query_one(OptionList).highlighted
        return None if index is None else self.axis.scale[index]

    def cited(self) -> str | None:
        value = self.query_one("#consensus-cites", Select).value
        return value if isinstance(value, str) else None

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.query_one("#consensus-reason", Input).focus()

    def on_select_changed(self, event: Select.Changed) -> None:
        """A section picked: on to the adjudicator, where enter records."""
        event.stop()
        if self.cited() is not None:
            self.query_one("#consensus-adjudicator", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        value = self.chosen()
        reason = self.query_one("#consensus-reason", Input).value.strip()
        adjudicator = self.query_one("#consensus-adjudicator", Input).value.strip()
        problem = self.query_one("#consensus-problem", Static)
        if value is None:
            problem.update("✗ choose a value first (up/down)")
            self.query_one(OptionList).focus()
        elif not reason:
            problem.update("✗ a reason is required")
            self.query_one("#consensus-reason", Input).focus()
        elif not adjudicator:
            problem.update("✗ your name is required")
            self.query_one("#consensus-adjudicator", Input).focus()
        else:
            self.dismiss(Ruling(value, reason, adjudicator, self.cited()))

    def action_cancel(self) -> None:
        self.dismiss(None)
