"""First screen when no reviewer name is known: who is labeling? Chosen from the team (`[review] roster`)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Input, Static

from qaeval_tui.core.review.roster import (
    choose_reviewer,
    last_reviewer,
    remember_reviewer,
    roster_of,
    roster_problem,
)
from qaeval_tui.core.usecases.prepare import picker_note
from qaeval_tui.tui.context import AppContext
from qaeval_tui.tui.literal import line, plain, styled
from qaeval_tui.tui.messages import TeamStanding
from qaeval_tui.tui.screens.base import AppScreen
from qaeval_tui.tui.widgets.key_bar import KeyBar


class ReviewerScreen(AppScreen[str]):
    """Returns the reviewer name in the roster's spelling; a name not on the team is refused with it shown."""

    def __init__(self, context: AppContext) -> None:
        super().__init__(context)
        self.config = context.services.config
        self.known = tuple(m.name for m in roster_of(self.config) if "reviewer" in m.roles)
        last = last_reviewer()
        self.last = last if last is not None and roster_problem(self.config, last) is None else None
        self.blink = not context.deterministic
        self.standing: str | None = None
        """The team's standing line once read from the store (None until then)."""

    def compose(self) -> ComposeResult:
        with Vertical(classes="page"):
            yield Static(Content.styled("Who is reviewing?", "bold $primary"))
            yield Static(
                "Your labels are stored under this name. Set it for good with --reviewer, QAEVAL_REVIEWER "
                "or review.reviewer in qaeval.toml.",
                markup=False,
            )
            if self.known:
                label = "Team (review.roster): " if self.config.review.roster else "Configured reviewers: "
                known = line(", ".join(self.known))  # from the config: shown literally
                yield Static(Content.assemble((label, "$foreground-muted"), known))
            yield Static("", id="standing", markup=False)
            yield Input(value=self.last or "", placeholder="your name (letters, digits, . _ -)", id="reviewer")
            yield Static("", id="problem", markup=False)
        yield KeyBar()

    def on_mount(self) -> None:
        name = self.query_one("#reviewer", Input)
        name.cursor_blink = self.blink
        name.focus()
        services, names = self.context.services, self.known
        if names:
            self.run_core(
                lambda: self.post_message(TeamStanding(picker_note(services.team_standing(names)))),
                group="standing",
                title="Team not read",
            )

    def on_team_standing(self, message: TeamStanding) -> None:
        self.standing = message.text
        self.query_one("#standing", Static).update(plain(message.text))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        problem = roster_problem(self.config, event.value)
        if problem:
            self.query_one("#problem", Static).update(styled(problem, "$error"))  # quotes what was typed
            return
        name = choose_reviewer(self.config, event.value)
        remember_reviewer(name)
        self.dismiss(name)
