"""The promote form's fields: each with its problems shown right under it as the curator types.

The form holds what is typed and turns it into a `PromotionDraft`; what is wrong with the draft
is the core's `validate_promotion`, which the screen runs on every edit and hands back here.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.suggester import SuggestFromList
from textual.widget import Widget
from textual.widgets import Input, RadioButton, RadioSet, SelectionList, Static, TextArea
from textual.widgets.selection_list import Selection

from qaeval_tui.core.curation.promotion import BEHAVIORS, DIFFICULTIES, KNOWN_TAGS, FieldError, PromotionDraft
from qaeval_tui.core.golden.neardup import SimilarCase
from qaeval_tui.core.review.views import SourceView, content_views
from qaeval_tui.tui.literal import editable, marked, plain, styled
from qaeval_tui.tui.widgets.source_block import CITED_STYLE

FIELDS: tuple[tuple[str, str], ...] = (
    ("case_id", "Case id"),
    ("question", "Question"),
    ("expected_behavior", "Behaviour"),
    ("gold_answer", "Gold answer"),
    ("gold_source_ids", "Gold sources"),
    ("difficulty", "Difficulty"),
    ("adversarial", "Tag"),
    ("checkpoints", "Checkpoints"),
    ("curator", "Curator"),
    ("reason", "Reason"),
)
"""Draft field -> label, in form order (the order `next problem` walks)."""
MUTED = "$foreground-muted"


def problem_lines(field: str, errors: Sequence[FieldError]) -> Content:
    lines = []
    for error in errors:
        where = f"#{error.index + 1}: " if error.index is not None and field == "checkpoints" else ""
        lines.append(Content.assemble(("✗ ", "bold $error"), plain(where + error.message).stylize("$error")))
    return Content("\n").join(lines)


def near_duplicate_lines(similar: Sequence[SimilarCase]) -> Content:
    if not similar:
        return Content.styled("no existing case asks anything close to this", MUTED)
    lines = [Content.styled("⚠ close to existing case(s) — promote only if this one asks something new:", "$warning")]
    for case in similar:
        lines.append(
            Content.assemble(
                ("  ", ""), plain(case.case_id).stylize("bold $warning"), (f" ({case.score:.2f}) ", MUTED),
                "“", plain(case.question), "”",
            )
        )  # fmt: skip
    return Content("\n").join(lines)


class PromoteForm(VerticalScroll, can_focus=False):
    """Every field of a golden case, prefilled from the draft; posts `Edited` on any change."""

    DEFAULT_CSS = """
    PromoteForm { height: 1fr; padding: 0 1; }
    PromoteForm .row { height: auto; margin-bottom: 1; }
    PromoteForm .label { width: 14; text-style: bold; color: $primary; }
    PromoteForm .cell { height: auto; width: 1fr; }
    PromoteForm .problems { height: auto; }
    PromoteForm .problems.-empty { display: none; }
    PromoteForm .hint { color: $foreground-muted; height: auto; }
    PromoteForm TextArea { height: 3; }
    PromoteForm #f-question { height: 2; }
    PromoteForm RadioSet { layout: horizontal; width: auto; }
    PromoteForm RadioSet > RadioButton { width: auto; margin-right: 2; }
    PromoteForm SelectionList { height: auto; max-height: 8; }
    PromoteForm #source-text { padding: 0 1; margin-top: 1; border-left: thick $panel-lighten-2; height: auto; }
    PromoteForm #near { height: auto; }
    """

    class Edited(Message):
        """A field changed; read the draft with `PromoteForm.draft`."""

    def __init__(self, initial: PromotionDraft, sources: Sequence[SourceView], *, blink: bool, id: str | None = None):
        super().__init__(id=id)
        self.initial = initial
        self.sources = tuple(sources)
        self.blink = blink

    @classmethod
    def source_views(
        cls, miss_sources: list[dict[str, object]], citations: list[dict[str, object]]
    ) -> tuple[SourceView, ...]:
        return content_views({"sources": miss_sources}, {"citations": citations})[1]

    def _row(self, field: str, label: str, *widgets: Widget) -> Horizontal:
        cell = Vertical(*widgets, Static("", id=f"e-{field}", classes="problems -empty"), classes="cell")
        return Horizontal(Static(label, classes="label", markup=False), cell, classes="row")

    def compose(self) -> ComposeResult:
        draft = self.initial
        yield Static("", id="e-general", classes="problems -empty")
        yield self._row("case_id", "Case id", Input(editable(draft.case_id), id="f-case_id", compact=True))
        yield self._row(
            "question",
            "Question",
            TextArea(editable(draft.question), id="f-question", soft_wrap=True, compact=True),
            Static("", id="near"),
        )
        yield self._row(
            "expected_behavior",
            "Behaviour",
            RadioSet(
                *(RadioButton(b, value=b == draft.expected_behavior) for b in BEHAVIORS),
                id="f-expected_behavior",
                compact=True,
            ),
        )
        yield self._row(
            "gold_answer", "Gold answer", TextArea(editable(draft.gold_answer), id="f-gold_answer", compact=True)
        )
        choices = [
            Selection(
                Content.assemble(plain(s.source_id).stylize("bold"), " ", plain(s.title or "(untitled)")),
                s.source_id,
                s.source_id in draft.gold_source_ids,
            )
            for s in self.sources
        ]
        yield self._row(
            "gold_source_ids",
            "Gold sources",
            SelectionList[str](*choices, id="f-gold_source_ids", compact=True),
            Static("", id="source-text"),
        )
        yield self._row(
            "difficulty",
            "Difficulty",
            RadioSet(
                *(RadioButton(d, value=d == draft.difficulty) for d in DIFFICULTIES), id="f-difficulty", compact=True
            ),
        )
        yield self._row(
            "adversarial",
            "Tag",
            Input(
                editable(draft.adversarial),
                placeholder="empty: no tag",
                suggester=SuggestFromList(KNOWN_TAGS, case_sensitive=False),
                id="f-adversarial",
                compact=True,
            ),
            Static(f"known tags: {', '.join(KNOWN_TAGS)}", classes="hint", markup=False),
        )
        yield self._row(
            "checkpoints",
            "Checkpoints",
            TextArea(editable("\n".join(draft.checkpoints)), id="f-checkpoints", compact=True),
            Static("one per line: retrieve:SOURCE_ID or value:NAME=VALUE", classes="hint", markup=False),
        )
        yield self._row(
            "curator", "Curator", Input(editable(draft.curator), placeholder="your name", id="f-curator", compact=True)
        )
        yield self._row("reason", "Reason", Input(editable(draft.reason), id="f-reason", compact=True))

    def on_mount(self) -> None:
        for field in self.query(Input):
            field.cursor_blink = self.blink
        for area in self.query(TextArea):
            area.cursor_blink = self.blink
        self.show_source(0)

    # -- reading the form -------------------------------------------------------------------------

    def _text(self, field: str) -> str:
        widget = self.query_one(f"#f-{field}")
        return widget.text if isinstance(widget, TextArea) else widget.value if isinstance(widget, Input) else ""

    def _choice(self, field: str, options: Sequence[str]) -> str:
        index = self.query_one(f"#f-{field}", RadioSet).pressed_index
        return options[index] if 0 <= index < len(options) else ""

    def draft(self) -> PromotionDraft:
        checkpoints = tuple(line.strip() for line in self._text("checkpoints").splitlines() if line.strip())
        return self.initial.with_changes(
            case_id=self._text("case_id"),
            question=self._text("question"),
            expected_behavior=self._choice("expected_behavior", BEHAVIORS),
            gold_answer=self._text("gold_answer"),
            gold_source_ids=tuple(self.query_one("#f-gold_source_ids", SelectionList).selected),
            difficulty=self._choice("difficulty", DIFFICULTIES),
            adversarial=self._text("adversarial"),
            checkpoints=checkpoints,
            curator=self._text("curator"),
            reason=self._text("reason"),
        )

    def field_widget(self, field: str) -> Widget:
        return self.query_one(f"#f-{field}")

    # -- showing problems -------------------------------------------------------------------------

    def show_problems(self, errors: Sequence[FieldError], similar: Sequence[SimilarCase]) -> None:
        known = {name for name, _ in FIELDS}
        for name, _ in FIELDS:
            self._problems(f"#e-{name}", problem_lines(name, [e for e in errors if e.field == name]))
        general = [e for e in errors if e.field not in known]
        self._problems("#e-general", Content("\n").join(styled(f"✗ {e}", "bold $error") for e in general))
        self.query_one("#near", Static).update(near_duplicate_lines(similar))

    def _problems(self, selector: str, content: Content) -> None:
        shown = self.query_one(selector, Static)
        shown.update(content)
        shown.set_class(not content.plain, "-empty")

    def show_source(self, index: int) -> None:
        if not self.sources:
            self.query_one("#source-text", Static).update(Content.styled("this miss has no sources", MUTED))
            return
        source = self.sources[max(0, min(index, len(self.sources) - 1))]
        marks = [(start, end, CITED_STYLE) for start, end in source.cited_spans]
        heading = Content.assemble(plain(source.source_id).stylize("bold"), " · ", plain(source.title or "(untitled)"))
        note = Content.styled("  (highlighted: what production cited)", MUTED) if marks else Content("")
        self.query_one("#source-text", Static).update(Content.assemble(heading, note, "\n", marked(source.text, marks)))

    # -- events -----------------------------------------------------------------------------------

    def on_selection_list_selection_highlighted(self, event: SelectionList.SelectionHighlighted[str]) -> None:
        self.show_source(event.selection_index)

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.Edited())

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        event.stop()
        self.post_message(self.Edited())

    def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        event.stop()
        self.post_message(self.Edited())

    def on_selection_list_selected_changed(self, event: SelectionList.SelectedChanged[str]) -> None:
        event.stop()
        self.post_message(self.Edited())
