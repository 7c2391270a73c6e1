"""Adjudication: where blind reviewers disagree, per axis, worst first; record a consensus with a reason.

The list is the core's `adjudication_queue`; the item below it shows every blind label and note
side by side with the question, the gold and the answer. `o` switches to the items short of blind
labels (`too_few_reviewers`: one reviewer only, or one value beside a "can't judge"), which
calibration leaves unresolved; a line under the list says why the selected entry is listed and
what resolves it: a ruling, or another blind label (`qaeval queue --more-labels` offers it).
The judge verdict is not shown here: a consensus settled with the judge in view would flatter
the judge in calibration. A ruling is appended to the store (never overwriting) and calibration
reads it as the human consensus.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.content import Content
from textual.message import Message
from textual.widgets import DataTable, Static

from qaeval_tui.core.curation.adjudication import AdjudicationQueue, Disagreement
from qaeval_tui.core.curation.dossier import ItemDossier
from qaeval_tui.core.guideline_sections import guideline_sections
from qaeval_tui.tui.commands import bindings
from qaeval_tui.tui.context import AppContext
from qaeval_tui.tui.literal import cell, notice, plain, styled
from qaeval_tui.tui.screens.base import AppScreen
from qaeval_tui.tui.screens.consensus_dialog import ConsensusDialog, Ruling
from qaeval_tui.tui.widgets.dossier_view import DossierView
from qaeval_tui.tui.widgets.key_bar import KeyBar
from qaeval_tui.tui.widgets.pick_table import PickTable


@dataclass
class QueueLoaded(Message):
    queue: AdjudicationQueue
    notice: str = ""


@dataclass
class DossierArrived(Message):
    dossier: ItemDossier


def labels_text(entry: Disagreement) -> str:
    return " · ".join(f"{s.reviewer} {'cj' if s.value is None else s.value}" for s in entry.scores)


def is_short(entry: Disagreement, min_reviewers: int) -> bool:
    """Fewer blind values than a consensus needs and no ruling: what `too_few_reviewers` lists."""
    values = [score.value for score in entry.scores if score.value is not None]
    return not entry.adjudicated and len(values) < min_reviewers and len(set(values)) < 2


def why_text(entry: Disagreement, min_reviewers: int) -> str:
    """Why the entry is listed and what resolves it, in one line."""
    if not is_short(entry, min_reviewers):
        if entry.adjudicated:
            return "Listed: blind reviewers disagreed; a curator ruled. A new ruling supersedes it (enter)."
        return (
            f"Listed: blind reviewers disagree by {entry.spread} step(s). "
            "Fix: rule on it (enter, or a digit), with a reason."
        )
    reviewers = [score.reviewer for score in entry.scores]
    if len(reviewers) < min_reviewers:
        return (
            f"Listed: only {' and '.join(reviewers)} labelled it blind; calibration needs {min_reviewers}. "
            "Fix: another blind label (qaeval queue --more-labels offers it) or rule on it (enter)."
        )
    unsure = [score.reviewer for score in entry.scores if score.value is None]
    return (
        f"Listed: {' and '.join(unsure)} said can't judge, one value is left; calibration needs {min_reviewers}. "
        "Fix: another reviewer's blind label or rule on it (enter)."
    )


def why_content(entry: Disagreement, min_reviewers: int, refused: str | None) -> Content:
    """The line under the list: why the entry is listed (or why it is locked), then the ruling in
    force with its reason and cited guideline section, when a curator ruled."""
    why = plain(f"Locked: {refused}." if refused else why_text(entry, min_reviewers))
    if entry.ruling is None:
        return why
    return Content.assemble(why, "\n", styled(f"In force: {entry.ruling.text()}", "$text-success"))


def standing_text(entry: Disagreement, min_reviewers: int = 2) -> tuple[str, str]:
    """What calibration uses now, and a Rich style for it."""
    if is_short(entry, min_reviewers):
        return ("one reviewer" if len(entry.scores) < min_reviewers else "one value"), "red"
    if entry.adjudicated:
        return f"ruled {'-' if entry.consensus is None else entry.consensus}", "green"
    if entry.consensus_source == "median":
        return f"median {entry.consensus}", "yellow"
    return "unresolved", "red"


class AdjudicationScreen(AppScreen[None]):
    SCOPE = "adjudicate"
    BINDINGS = bindings("adjudicate")

    def __init__(self, context: AppContext) -> None:
        super().__init__(context)
        self.queue: AdjudicationQueue | None = None
        self.shown: list[Disagreement] = []
        self.show_settled = False
        self.show_short = False
        self.dossier: ItemDossier | None = None
        self.loaded = False

    @property
    def axes(self) -> tuple[str, ...]:
        return self.context.services.config.rubric.axis_names

    @property
    def min_reviewers(self) -> int:
        return self.context.services.config.calibration.min_reviewers

    def compose(self) -> ComposeResult:
        yield Static(Content.styled("Adjudication · loading…", "bold"), id="adj-title")
        yield PickTable(id="adj-list")
        yield Static("", id="adj-why", markup=False)
        yield DossierView()
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one(PickTable).focus()
        services = self.context.services
        viewer = self.context.reviewer
        self.call("loading…", lambda: QueueLoaded(services.adjudication_queue(viewer)), "Not loaded")

    def selected(self) -> Disagreement | None:
        """The disagreement under the cursor; None before the list is composed (Textual may check the
        screen's actions, which ask this, before its children mount)."""
        tables = self.query(PickTable)
        if not tables:
            return None
        row = tables.first().cursor_row
        return self.shown[row] if self.shown and 0 <= row < len(self.shown) else None

    def on_queue_loaded(self, message: QueueLoaded) -> None:
        self.settle()
        keep = self.selected()
        self.queue = message.queue
        self._fill(keep)
        self.refresh_bindings()
        self.loaded = True
        if message.notice:
            self.notify(notice(message.notice), title="Consensus recorded", markup=False)

    def _fill(self, keep: Disagreement | None) -> None:
        queue = self.queue
        if queue is None:
            return
        if self.show_short:
            self.shown = list(queue.too_few_reviewers)
        else:
            self.shown = [e for e in queue.entries if e.open or self.show_settled]
        table = self.query_one(PickTable)
        table.clear(columns=True)
        widths = (("axis", 20), ("case", max(16, self.size.width - 76)), ("blind labels", 22), ("spread", 6))
        for title, width in (*widths, ("now used", 12)):
            table.add_column(title, width=width)
        for entry in self.shown:
            standing, style = standing_text(entry, self.min_reviewers)
            table.add_row(
                cell(entry.axis),
                cell(entry.case_id),
                cell(labels_text(entry)),
                cell("-" if self.show_short else str(entry.spread)),
                cell(standing, style),
            )
        short = len(queue.too_few_reviewers)
        if self.show_short:
            heading = Content.assemble(
                ("Adjudication  ", "bold"),
                (f"{short} short of blind labels", "bold $warning" if short else "bold $success"),  # (item, axis)
                (f" · o: back to {queue.open_count} disagreement(s) · judge hidden", "$foreground-muted"),
            )
        else:
            settled = f"{queue.adjudicated_count} settled ({'shown' if self.show_settled else 'hidden'})"
            heading = Content.assemble(
                ("Adjudication  ", "bold"),
                (f"{queue.open_count} open disagreement(s)", "bold $warning" if queue.open_count else "bold $success"),
                (f" · {short} short of labels (o)", "$warning" if short else "$foreground-muted"),
                (f" · {settled} · judge hidden", "$foreground-muted"),
            )
        self.query_one("#adj-title", Static).update(heading)
        if keep is not None:
            same = [i for i, e in enumerate(self.shown) if (e.item_id, e.axis) == (keep.item_id, keep.axis)]
            if same:
                table.move_cursor(row=same[0], animate=False)
        self._load_dossier()

    def on_resize(self) -> None:
        self._fill(self.selected())

    def on_data_table_row_highlighted(self, _event: DataTable.RowHighlighted) -> None:
        self.refresh_bindings()
        self._load_dossier()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_rule()

    def _load_dossier(self) -> None:
        entry = self.selected()
        why = self.query_one("#adj-why", Static)
        refused = None if entry is None else entry.ruling_refused(self.context.curator)
        why.update("" if entry is None else why_content(entry, self.min_reviewers, refused))
        if entry is None:
            self.dossier = None
            empty = (
                "Nothing short of blind labels: every item has enough blind reviewers or a ruling."
                if self.show_short
                else "Nothing to adjudicate: blind reviewers agree."
            )
            self.call_later(self.query_one(DossierView).clear, empty)
            return
        services, item_id, viewer = self.context.services, entry.item_id, self.context.reviewer

        def work() -> None:
            self.post_message(
                DossierArrived(services.dossier(item_id, with_judge=False, viewer=viewer, view="adjudication"))
            )

        self.run_core(work, group="dossier", title="Not loaded", exclusive=True)

    async def on_dossier_arrived(self, message: DossierArrived) -> None:
        entry = self.selected()
        if entry is None or entry.item_id != message.dossier.item_id:
            return  # the cursor moved on while it loaded
        self.dossier = message.dossier
        await self.query_one(DossierView).show(message.dossier, self.axes, entry.axis)

    # -- actions ----------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        entry = self.selected()
        if action in ("rule", "rule_with") and entry is not None and entry.ruling_refused(self.context.curator):
            return None if action == "rule" or self._on_some_scale(parameters[0]) else False  # locked: shown disabled
        if action == "rule_with":
            # Digits off every scale are hidden; those off this axis's scale are shown disabled.
            if not self._on_some_scale(parameters[0]):
                return False
            scale = self.context.services.config.rubric.axis(entry.axis).scale if entry else ()
            return True if parameters[0] in scale else None
        if action == "rule":
            return True if self.selected() is not None else None
        return True

    def _on_some_scale(self, value: object) -> bool:
        return any(value in axis.scale for axis in self.context.services.config.rubric.axes)

    def action_rule(self) -> None:
        self._open_dialog(None)

    def action_rule_with(self, value: int) -> None:
        self._open_dialog(value)

    def _open_dialog(self, value: int | None) -> None:
        entry = self.selected()
        if entry is None or self.busy:
            return
        refused = entry.ruling_refused(self.context.curator)
        if refused:
            self.notify(notice(refused), title="Locked", severity="warning", markup=False)
            return
        rubric = self.context.services.config.rubric
        dialog = ConsensusDialog(
            entry,
            rubric.axis(entry.axis),
            value,
            self.context.curator,
            sections=guideline_sections(rubric, entry.axis),
            blink=not self.context.deterministic,
        )
        self.app.push_screen(dialog, lambda ruling: self._record(entry, ruling))

    def _record(self, entry: Disagreement, ruling: Ruling | None) -> None:
        if ruling is None:
            return
        services = self.context.services
        notice = f"{entry.case_id}: {entry.axis} = {ruling.score} (calibration now uses it)"

        def work() -> QueueLoaded:
            services.record_consensus(
                entry.item_id, entry.axis, ruling.score, ruling.reason, ruling.adjudicator, ruling.cites
            )
            return QueueLoaded(services.adjudication_queue(), notice)

        self.call("recording…", work, "Not recorded")

    def action_toggle_settled(self) -> None:
        self.show_settled = not self.show_settled
        self._fill(self.selected())

    def action_toggle_short(self) -> None:
        self.show_short = not self.show_short
        self.query_one(PickTable).move_cursor(row=0, animate=False)
        self._fill(None)

    def action_detail_down(self) -> None:
        self.query_one(DossierView).scroll_page_down(animate=False)

    def action_detail_up(self) -> None:
        self.query_one(DossierView).scroll_page_up(animate=False)

    def action_back(self) -> None:
        self.dismiss(None)
