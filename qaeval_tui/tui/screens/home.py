"""The home screen: the golden set at a glance, runs, this reviewer's progress, and every screen."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from qaeval_tui.core.review.session import Progress
from qaeval_tui.core.review.views import Role
from qaeval_tui.core.text import one_line
from qaeval_tui.core.usecases.prepare import StoreOverview, pace
from qaeval_tui.tui.commands import bindings, resolve_keys
from qaeval_tui.tui.context import AppContext
from qaeval_tui.tui.destinations import DESTINATIONS, Opener, offered
from qaeval_tui.tui.literal import plain, styled
from qaeval_tui.tui.messages import OverviewArrived
from qaeval_tui.tui.screens.base import AppScreen
from qaeval_tui.tui.widgets.key_bar import KeyBar
from qaeval_tui.tui.widgets.status_line import clock_text

OPENERS: tuple[Opener, ...] = tuple(entry.opener for entry in DESTINATIONS if entry.opener is not None)
"""Every screen reachable from home in either app."""

HOME_TITLES: dict[Role, tuple[str, str]] = {
    "reviewer": ("qaeval review", "  blind labeling"),
    "curator": ("qaeval curate", "  curation and oversight"),
}


def role_entries(role: Role) -> tuple[Opener, ...]:
    """The screens home lists in `role`'s app."""
    return tuple(entry.opener for entry in offered(role) if entry.opener is not None)


def counts_lines(title: str, counts: dict[str, int], width: int = 60) -> list[Content]:
    """`title  a 1  b 2 ...`, continued under the first count when longer than `width`."""
    lines: list[Content] = []
    current = ""
    for part in (f"{one_line(name, 40)} {count}" for name, count in counts.items()):  # split names, tags: data
        if current and len(current) + 2 + len(part) > width:
            lines.append(plain(current))
            current = part
        else:
            current = f"{current}  {part}" if current else part
    lines.append(plain(current))
    heads = [Content.styled(f"{title:<12}", "$foreground-muted")] + [Content(" " * 12)] * (len(lines) - 1)
    return [Content.assemble(head, line) for head, line in zip(heads, lines, strict=True)]


def golden_content(overview: StoreOverview) -> Content:
    lines = [Content.styled("Golden set", "bold $primary")]
    if overview.golden_problem:
        lines.append(styled(overview.golden_problem, "$error"))
    else:
        lines.append(Content.assemble(("cases       ", "$foreground-muted"), (str(overview.golden_cases), "bold")))
        for key, title in (
            ("split", "split"),
            ("difficulty", "difficulty"),
            ("behavior", "behaviour"),
            ("adversarial", "tags"),
        ):
            lines.extend(counts_lines(title, overview.golden_counts.get(key, {})))
    lines.append(Content(""))
    lines.append(Content.styled("Runs", "bold $primary"))
    for run in overview.runs[:5]:
        match = ("current golden set", "$success") if run.matches_golden else ("older golden set", "$warning")
        when = run.started_at[:16].replace("T", " ")
        lines.append(plain(run.run_id).stylize("bold"))
        lines.append(Content.assemble(plain(f"  {when} · {run.n_cases} cases · "), match))
    if not overview.runs:
        lines.append(Content.styled("no runs yet", "$foreground-muted"))
    lines.append(Content.assemble(("review items ", "$foreground-muted"), str(overview.review_items)))
    return Content("\n").join(lines)


def progress_content(reviewer: str, progress: Progress) -> Content:
    per_item = pace(progress)
    rows = [
        ("done", f"{progress.done} of {progress.assigned}"),
        ("left", str(progress.assigned - progress.done)),
        ("skipped", str(progress.skipped)),
        ("flagged", str(progress.flagged)),
        ("time", clock_text(progress.seconds_spent)),
        ("pace", f"{clock_text(per_item)} per item" if per_item is not None else "-"),
    ]
    lines = [Content.assemble(("Your progress · ", "bold $primary"), plain(reviewer).stylize("bold $accent"))]
    if not progress.assigned:  # a curator the roster does not make a reviewer: no queue of their own
        lines.append(Content.styled("no review queue of your own (labeling is `qaeval review`)", "$foreground-muted"))
        return Content("\n").join(lines)
    lines.extend(Content.assemble((f"{name:<10}", "$foreground-muted"), (value, "bold")) for name, value in rows)
    return Content("\n").join(lines)


def entry_rows(keys: Mapping[str, str], role: Role = "reviewer") -> ComposeResult:
    """Each screen of `role`'s app with the key that opens it (`keys`: command name -> key as displayed).

    Two columns, so a description that wraps at 80 columns stays under itself, not under the key.
    """
    entries = role_entries(role)
    width = max(len(keys[opener.name]) for opener in entries) + 2
    for opener in entries:
        with Horizontal(classes="home-entry"):
            yield Static(
                Content.assemble(
                    (f"{one_line(keys[opener.name]):<{width}}", "bold $accent"), (f"{opener.entry:<14}", "bold")
                ),
                classes="home-entry-name",
            )
            yield Static(opener.purpose, classes="home-entry-text", markup=False)


@dataclass
class UnreviewedArrived(Message):
    """Golden cases not yet run or queued, in words (core: `UnreviewedCases.notice`), or None."""

    notice: str | None


class HomeScreen(AppScreen[None]):
    SCOPE = "home"
    BINDINGS = bindings("home")
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]  # noqa: RUF012 (Textual's own type)

    def __init__(self, context: AppContext) -> None:
        super().__init__(context)
        self.loaded = False

    def compose(self) -> ComposeResult:
        title, subtitle = HOME_TITLES[self.context.role]
        yield Static(Content.assemble((title, "bold"), (subtitle, "$foreground-muted")), id="home-title")
        with VerticalScroll(id="home"):
            with Horizontal(id="home-columns"):
                yield Static(Content.styled("Loading…", "$foreground-muted"), id="golden", classes="card")
                yield Static(Content(""), id="progress", classes="card")
            notice = Static(Content(""), id="home-notice", classes="card")
            notice.display = False
            yield notice
            with Vertical(id="screens", classes="card"):
                yield Static(Content.styled("Screens", "bold $primary"))
                yield from entry_rows(self.entry_keys(), self.context.role)
        yield KeyBar()

    def entry_keys(self) -> dict[str, str]:
        """The key of each home entry as displayed, after any `[review.keys]` remap."""
        keys = resolve_keys(self.context.services.config.review.keys)
        return {o.name: self.app.get_key_display(Binding(keys[o.name], o.name)) for o in OPENERS}

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Another role's screens are neither bound nor shown in the key bar here."""
        if action != "navigate":
            return True
        return any(entry.scope in parameters for entry in offered(self.context.role))

    def on_screen_resume(self) -> None:
        self.action_refresh()

    def action_refresh(self) -> None:
        services = self.context.services

        def work() -> None:
            self.post_message(OverviewArrived(services.overview(), services.progress()))
            self.post_message(UnreviewedArrived(services.unreviewed_notice()))

        self.run_core(work, group="overview", title="Not loaded", exclusive=True)

    def on_overview_arrived(self, message: OverviewArrived) -> None:
        self.query_one("#golden", Static).update(golden_content(message.overview))
        self.query_one("#progress", Static).update(progress_content(self.context.reviewer, message.progress))
        self.loaded = True

    def on_unreviewed_arrived(self, message: UnreviewedArrived) -> None:
        notice = self.query_one("#home-notice", Static)
        notice.update(styled(message.notice or "", "$warning"))
        notice.display = message.notice is not None

    def action_navigate(self, scope: str) -> None:
        """Go to a screen of the list: the app opens it (and refuses another role's, navigation.py)."""
        self.navigate(scope)
