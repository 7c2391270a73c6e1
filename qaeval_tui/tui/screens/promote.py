"""The promote form: turn one production miss into a golden case, or reject it with a reason.

The miss and the golden set load in a worker (the set can be large). Every edit runs the core's
`validate_promotion` (the loader's own rules plus curation's) and its near-duplicate check, and
shows each problem under its field. Promoting calls the core's `promote`, which appends one line
to the living split atomically or writes nothing at all.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Input, LoadingIndicator, Static

from qaeval_tui.core.curation.inbox import InboxDecision
from qaeval_tui.core.curation.promotion import (
    CurationError,
    FieldError,
    PromotionContext,
    PromotionDraft,
    PromotionResult,
    draft_from_miss,
    validate_promotion,
)
from qaeval_tui.tui.commands import bindings
from qaeval_tui.tui.context import AppContext
from qaeval_tui.tui.literal import notice, plain
from qaeval_tui.tui.screens.base import AppScreen
from qaeval_tui.tui.widgets.key_bar import KeyBar
from qaeval_tui.tui.widgets.miss_view import MissView
from qaeval_tui.tui.widgets.promote_form import FIELDS, PromoteForm


@dataclass
class ContextLoaded(Message):
    context: PromotionContext


@dataclass
class Promoted(Message):
    result: PromotionResult


@dataclass
class PromotionRefused(Message):
    errors: tuple[FieldError, ...]
    written: str = "nothing was written"


@dataclass
class Rejected(Message):
    decision: InboxDecision


class PromoteScreen(AppScreen[PromotionResult | InboxDecision | None]):
    """One miss, its golden-case draft, and the verdict of validation as you type; it returns the
    promotion or the rejection it recorded (None: left without deciding)."""

    SCOPE = "promote"
    BINDINGS = bindings("promote")

    def __init__(self, context: AppContext, trace_id: str) -> None:
        super().__init__(context)
        self.trace_id = trace_id
        self.promotion: PromotionContext | None = None
        self.initial: PromotionDraft | None = None
        self.errors: list[FieldError] = []
        self.done = False
        self._leave_armed = False

    def compose(self) -> ComposeResult:
        yield Static(Content.assemble(("Promote ", "bold"), plain(self.trace_id)), id="promote-title")
        yield MissView()
        with Vertical(id="promote-loading"):
            yield LoadingIndicator()
            yield Static("Loading the miss and the golden set…", markup=False)
        yield Static("", id="promote-status")
        yield KeyBar()

    def on_mount(self) -> None:
        services, trace_id = self.context.services, self.trace_id
        self.call("loading…", lambda: ContextLoaded(services.promotion_context(trace_id)), "Not loaded")

    def worker_failed(self, group: str, text: str) -> None:
        super().worker_failed(group, text)
        if self.promotion is None:  # the miss or the golden set could not be loaded: say so where the form goes
            for indicator in self.query(LoadingIndicator):
                indicator.display = False
            self.query_one("#promote-loading Static", Static).update(plain(text).stylize("$error"))

    @property
    def form(self) -> PromoteForm | None:
        found = self.query(PromoteForm)
        return found.first() if found else None

    async def on_context_loaded(self, message: ContextLoaded) -> None:
        self.settle()
        context = self.promotion = message.context
        entry = context.entry
        self.initial = draft_from_miss(entry.miss, curator=self.context.curator, taken=context.snapshot.where)
        self.query_one(MissView).show(entry, with_question=False, with_sources=False)
        miss = entry.miss
        sources = PromoteForm.source_views(
            [s.model_dump(mode="json") for s in miss.sources], [c.model_dump(mode="json") for c in miss.citations]
        )
        await self.query_one("#promote-loading").remove()
        form = PromoteForm(self.initial, sources, blink=not self.context.deterministic)
        await self.mount(form, before=self.query_one("#promote-status"))
        self.validate()
        form.field_widget("case_id").focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("promote", "reject", "next_problem"):
            return True if self.form is not None and not self.done else None
        return True

    # -- validation as you type -------------------------------------------------------------------

    def on_promote_form_edited(self, _message: PromoteForm.Edited) -> None:
        self._leave_armed = False
        self.validate()

    def validate(self) -> None:
        form, context = self.form, self.promotion
        if form is None or context is None:
            return
        draft = form.draft()
        self.errors = validate_promotion(draft, context)
        form.show_problems(self.errors, context.near_duplicates(draft.question))
        self._show_status()

    def _show_status(self, text: Content | None = None) -> None:
        if text is None:
            count = len(self.errors)
            target = self.context.services.target.living
            text = (
                Content.assemble(
                    ("✗ ", "bold $error"), (f"{count} problem(s)", "bold $error"), " · ctrl+n goes to the next"
                )
                if count
                else Content.assemble(
                    ("✓ ready: ", "bold $success"), "ctrl+s appends this case to ", plain(str(target))
                )
            )
        self.query_one("#promote-status", Static).update(text)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.focus_next()

    # -- actions ----------------------------------------------------------------------------------

    def action_next_problem(self) -> None:
        self._focus_problem(from_start=False)

    def _focus_problem(self, *, from_start: bool) -> None:
        """Focus the next field with a problem after the focused one (or the first, `from_start`)."""
        form = self.form
        if form is None:
            return
        problem_fields = {error.field for error in self.errors}
        order = [name for name, _ in FIELDS]
        if not problem_fields & set(order):
            self.notify("No problem left in the form.", timeout=2)
            return
        current = None if from_start else next((n for n in order if form.field_widget(n).has_focus), None)
        start = order.index(current) + 1 if current else 0
        for name in order[start:] + order[:start]:
            if name in problem_fields:
                form.field_widget(name).focus()
                return

    def action_promote(self) -> None:
        form, context = self.form, self.promotion
        if form is None or context is None or self.busy:
            return
        self.validate()
        # A miss whose case is already in the set goes to the core anyway: it records that promotion.
        if self.errors and context.unrecorded_promotion is None:
            self.notify(
                f"{len(self.errors)} problem(s) below: fix them first (ctrl+n goes to the next). Nothing was written.",
                title="Not promoted",
                severity="error",
            )
            self._focus_problem(from_start=True)
            return
        draft, services, snapshot = form.draft(), self.context.services, context.snapshot

        def work() -> Message:
            try:
                return Promoted(services.promote(draft, snapshot))
            except CurationError as exc:
                return PromotionRefused(exc.errors, exc.written)

        self.call("promoting…", work, "Not promoted")

    def on_promotion_refused(self, message: PromotionRefused) -> None:
        self.settle()
        self.errors = list(message.errors)
        if self.form is not None and self.promotion is not None:
            self.form.show_problems(self.errors, self.promotion.near_duplicates(self.form.draft().question))
        self._show_status()
        self.notify(
            notice(f"The promotion was refused; {message.written}."),
            title="Not promoted",
            severity="error",
            markup=False,
        )

    def on_promoted(self, message: Promoted) -> None:
        self.settle()
        self.done = True
        loaded = message.result.loaded
        self.notify(
            notice(
                f"Promoted as {loaded.case.id} ({loaded.path}:{loaded.line}). "
                "Press r in the inbox to run it and queue it for review."
            ),
            title="Promoted",
            markup=False,
        )
        self.dismiss(message.result)

    def action_reject(self) -> None:
        form = self.form
        if form is None or self.busy:
            return
        from qaeval_tui.tui.screens.reject_dialog import RejectDialog

        curator = form.draft().curator
        self.app.push_screen(RejectDialog(self.trace_id, curator, blink=not self.context.deterministic), self._reject)

    def _reject(self, answer: tuple[str, str] | None) -> None:
        if answer is None:
            return
        reason, curator = answer
        services, trace_id = self.context.services, self.trace_id
        self.call("rejecting…", lambda: Rejected(services.reject(trace_id, reason, curator)), "Not rejected")

    def on_rejected(self, message: Rejected) -> None:
        self.settle()
        self.done = True
        self.notify(notice(f"{self.trace_id} rejected: {message.decision.reason}"), title="Rejected", markup=False)
        self.dismiss(message.decision)

    def action_back(self) -> None:
        form = self.form
        edited = form is not None and self.initial is not None and form.draft() != self.initial
        if edited and not self._leave_armed and not self.done:
            self._leave_armed = True
            self.notify("The draft has changes: escape again to leave without promoting.", severity="warning")
            return
        self.dismiss(None)
