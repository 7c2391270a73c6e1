"""Every screen the apps can open, declared once: who may open it, how, and its own keys.

One `Destination` per screen feeds the home screen's list and keys, the key bar, the help screen,
the command palette, `[review.keys]` remaps and the navigation (`navigation.py`'s one factory,
which imports the screen on first use and refuses a seat the destination is not for). A screen
opened with a selection (a miss, a case, a cell) has no `Opener`: the screen below asks for it by
name (`AppScreen.navigate`). Pure data: importing it loads no screen and no textual.
"""

from __future__ import annotations

from dataclasses import dataclass

from qaeval_tui.core.review.views import Role

Scope = str
"""A destination's scope (its screen's `SCOPE`), or "home" or "app": whose keys a command is."""


@dataclass(frozen=True)
class Command:
    """One user command: its action, default key, short label and one-sentence help."""

    name: str
    key: str
    label: str
    help: str
    scope: Scope = ""
    """Filled from the destination that declares it (commands.py)."""
    in_bar: bool = True
    priority: bool = False
    title: str = ""
    """The command palette's name for it, when the short label is ambiguous there."""
    action: str = ""
    """The action its key runs, when it is not `name` (home's keys run `navigate('<scope>')`)."""

    @property
    def palette_title(self) -> str:
        return self.title or self.label.capitalize()

    @property
    def runs(self) -> str:
        """The action its binding and its palette entry run."""
        return self.action or self.name


@dataclass(frozen=True)
class Opener:
    """How home (its key and its line) and the palette (from any screen) open a destination."""

    name: str
    """The command's name: `[review.keys]` remaps it (`open_inbox = "n"`)."""
    key: str
    label: str
    """Its label in the key bar."""
    help: str
    """One sentence, in help and the palette."""
    entry: str
    """Home's name for the screen."""
    purpose: str
    """Home's line on what it is for."""
    title: str = ""
    """The palette's name for it; by default "Open <the destination's title>"."""
    anywhere: bool = True
    """Also offered by the palette on every other screen once the store is prepared."""


@dataclass(frozen=True)
class ScaleKeys:
    """A screen's scale digits: each runs `action(value)`; the key bar shows them as one range."""

    action: str
    label: str
    """Their one label in the key bar."""
    title: str
    """The palette's name for each, followed by the digit ("Score 2")."""
    help: str
    """One sentence, in help."""
    palette_help: str = ""
    """The palette's line for each; by default `help`."""


SCORE_KEYS = ScaleKeys(
    "score",
    "score",
    "Score",
    "Score the focused axis with this scale value and move to the next axis.",
    "Score the focused axis and move on.",
)
RULE_KEYS = ScaleKeys(
    "rule_with", "rule as", "Rule as", "Record this scale value as the consensus (asks for a reason)."
)


@dataclass(frozen=True)
class Destination:
    """One screen: its name, who may open it, its screen (imported when first opened) and its keys."""

    scope: Scope
    """Its name: what `Navigate` asks for, its screen's `SCOPE`, the scope of its commands."""
    title: str
    """The help screen's heading for its keys."""
    screen: str
    """`module:Class` of its screen, built as `Class(context, *selection)`."""
    role: Role
    """The app that offers it; the factory refuses any other seat (a reviewer never sees a curator screen)."""
    opener: Opener | None = None
    """Home's key for it; None when another screen opens it with a selection."""
    commands: tuple[Command, ...] = ()
    """The screen's own keys (the app's help and quit work everywhere)."""
    scale: ScaleKeys | None = None
    """The scale digits it binds, if any (the rubric's values: not remappable, they are the scale)."""

    def opener_command(self) -> Command | None:
        """Home's command that opens it."""
        if self.opener is None:
            return None
        o = self.opener
        title = o.title or f"Open {self.title[:1].lower()}{self.title[1:]}"
        return Command(o.name, o.key, o.label, o.help, "home", title=title, action=f"navigate({self.scope!r})")


_SCREENS = "qaeval_tui.tui.screens."
ITEM_SCROLL = (
    Command(
        "detail_down", "pagedown", "scroll", "Scroll the item down a page.", in_bar=False, title="Scroll item down"
    ),
    Command("detail_up", "pageup", "scroll up", "Scroll the item up a page.", in_bar=False, title="Scroll item up"),
)
"""Page through the item shown beside a list (adjudication, a confusion cell's items, a run diff)."""
BACK = Command("back", "escape", "back", "Go back to the previous screen.")

DESTINATIONS: tuple[Destination, ...] = (
    Destination(
        "review",
        "Review",
        _SCREENS + "review:ReviewScreen",
        "reviewer",
        # The queue is entered from home, so its summary returns there.
        Opener(
            "start_review",
            "enter",
            "review",
            "Start or resume labeling where you left off.",
            "Review",
            "blind-label your queue, resuming where you left off",
            title="Review",
            anywhere=False,
        ),
        commands=(
            Command("next_axis", "tab", "axis", "Move to the next axis.", title="Next axis"),
            Command("previous_axis", "shift+tab", "axis", "Move to the previous axis.", title="Previous axis"),
            Command(
                "value_left",
                "left",
                "value",
                "Move along the scale of the focused axis and read its anchor.",
                in_bar=False,
                title="Scale cursor left",
            ),
            Command(
                "value_right",
                "right",
                "value",
                "Move along the scale of the focused axis and read its anchor.",
                in_bar=False,
                title="Scale cursor right",
            ),
            Command(
                "score_cursor",
                "space",
                "score here",
                "Score the focused axis with the value under the cursor.",
                in_bar=False,
            ),
            Command("cant_judge", "x", "can't judge", "Mark the focused axis as can't judge and move on."),
            Command("note", "n", "note", "Write or edit a note on this item."),
            Command("flag", "f", "flag", "Flag this item for a curator (toggle)."),
            Command(
                "guidelines",
                "g",
                "guidelines",
                "Show or hide the labeling guidelines of the focused axis and the rubric.",
                in_bar=False,
            ),
            Command("skip", "s", "skip", "Skip this item without scoring it; it is recorded as skipped."),
            Command(
                "submit", "enter", "submit", "Save the label (one committed transaction), then show the next item."
            ),
            Command("undo", "u", "undo", "Reopen the item you last submitted or skipped; a change is a new revision."),
            Command("reveal", "r", "reveal", "Show the judge verdict on your last submitted item, and agreement."),
            Command(
                "next_citation",
                "right_square_bracket",
                "cite",
                "Select the next citation and jump to its span in the sources.",
                title="Next citation",
            ),
            Command(
                "previous_citation",
                "left_square_bracket",
                "prev cite",
                "Select the previous citation and jump to its span.",
                in_bar=False,
                title="Previous citation",
            ),
            Command(
                "sources_down",
                "pagedown",
                "scroll",
                "Scroll the sources down a page.",
                in_bar=False,
                title="Scroll sources down",
            ),
            Command(
                "sources_up",
                "pageup",
                "scroll up",
                "Scroll the sources up a page.",
                in_bar=False,
                title="Scroll sources up",
            ),
            Command(
                "back",
                "escape",
                "back",
                "Go home; an item with scores not yet submitted asks once first, and nothing partial is saved.",
            ),
        ),
        scale=SCORE_KEYS,
    ),
    Destination(
        "summary",
        "End of queue",
        _SCREENS + "summary:SummaryScreen",
        "reviewer",
        commands=(
            Command("undo_last", "u", "undo", "Reopen the item you last submitted."),
            Command("home", "escape", "home", "Go to the home screen."),
        ),
    ),
    Destination(
        "inbox",
        "Inbox",
        _SCREENS + "inbox:InboxScreen",
        "curator",
        Opener(
            "open_inbox",
            "i",
            "inbox",
            "Open the production-miss inbox: promote a miss or reject it.",
            "Inbox",
            "production misses to promote into the living split, or reject",
        ),
        commands=(
            Command("open_miss", "enter", "open", "Open the selected miss in the promote form.", title="Open miss"),
            Command("search", "slash", "search", "Search the list (enter or escape returns to it)."),
            Command("cycle_status", "f", "status", "Show pending, promoted, rejected or every miss, in turn."),
            Command("import_misses", "i", "import", "Import a production-miss file: every line or none."),
            Command(
                "run_and_queue",
                "r",
                "run & queue",
                "Run new golden cases and queue them for the roster.",
                title="Run new cases and queue them",
            ),
            BACK,
        ),
    ),
    Destination(
        "promote",
        "Promote",
        _SCREENS + "promote:PromoteScreen",
        "curator",
        commands=(
            Command(
                "promote", "ctrl+s", "promote", "Append the case to the living split; nothing is written if invalid."
            ),
            Command("reject", "ctrl+r", "reject", "Reject this miss with a reason; it stays out of the golden set."),
            Command("next_problem", "ctrl+n", "next problem", "Move to the next field with a problem."),
            Command("back", "escape", "back", "Go back to the inbox; an edited draft asks first."),
        ),
    ),
    Destination(
        "adjudicate",
        "Adjudication",
        _SCREENS + "adjudicate:AdjudicationScreen",
        "curator",
        Opener(
            "open_adjudication",
            "a",
            "adjudicate",
            "Open the disagreements between blind reviewers, worst first.",
            "Adjudication",
            "settle disagreements between blind reviewers",
        ),
        commands=(
            Command("rule", "enter", "rule", "Record the consensus on the selected disagreement, with a reason."),
            Command("toggle_settled", "a", "show settled", "Show or hide disagreements already adjudicated."),
            Command(
                "toggle_short",
                "o",
                "short of labels",
                "Switch to the items short of blind labels (one reviewer only) and back.",
            ),
            *ITEM_SCROLL,
            BACK,
        ),
        scale=RULE_KEYS,
    ),
    Destination(
        "dashboard",
        "Calibration dashboard",
        _SCREENS + "dashboard:DashboardScreen",
        "curator",
        Opener(
            "open_dashboard",
            "c",
            "calibration",
            "Open the calibration dashboard: agreement and judge vs human per axis.",
            "Calibration",
            "judge vs human and agreement per axis, with drill-down",
        ),
        commands=(
            Command(
                "drill",
                "enter",
                "items",
                "Open the items behind the selected confusion-matrix cell.",
                title="Items behind the cell",
            ),
            Command("recompute", "r", "recompute", "Recompute every figure from the store."),
            BACK,
        ),
    ),
    Destination(
        "drilldown",
        "Items behind a cell",
        _SCREENS + "drilldown:DrilldownScreen",
        "curator",
        commands=(*ITEM_SCROLL, Command("back", "escape", "back", "Go back to the dashboard.")),
    ),
    Destination(
        "browse",
        "Golden browser",
        _SCREENS + "browse:BrowseScreen",
        "curator",
        Opener(
            "open_browse",
            "b",
            "browse",
            "Open the golden browser: every case, filtered and searched.",
            "Browse",
            "every golden case, filtered and searched",
        ),
        commands=(
            Command("open_case", "enter", "open", "Open the selected case with its sources.", title="Open case"),
            Command("search", "slash", "search", "Search the list (enter or escape returns to it)."),
            Command(
                "cycle_split", "s", "split", "Filter by split, in turn (frozen, living, any).", title="Filter by split"
            ),
            Command(
                "cycle_difficulty", "d", "difficulty", "Filter by difficulty, in turn.", title="Filter by difficulty"
            ),
            Command(
                "cycle_behavior",
                "b",
                "behaviour",
                "Filter by expected behaviour, in turn.",
                title="Filter by behaviour",
            ),
            Command(
                "cycle_tag", "t", "tag", "Filter by adversarial tag, in turn (none: untagged).", title="Filter by tag"
            ),
            Command("clear_filters", "c", "clear", "Clear every filter and the search.", title="Clear filters"),
            BACK,
        ),
    ),
    Destination(
        "case",
        "Golden case",
        _SCREENS + "case_detail:CaseDetailScreen",
        "curator",
        commands=(Command("back", "escape", "back", "Go back to the case list."),),
    ),
    Destination(
        "flags",
        "Flags queue",
        _SCREENS + "flags:FlagsScreen",
        "curator",
        Opener(
            "open_flags",
            "f",
            "flags",
            "Open the flags queue: reviewers' flags and notes, each resolved with a note.",
            "Flags",
            "reviewers' flags and notes, each resolved with a note",
        ),
        commands=(
            Command("resolve_flag", "r", "resolve", "Resolve the selected flag with a note.", title="Resolve flag"),
            Command("search", "slash", "search", "Search notes, item ids and case ids."),
            Command(
                "cycle_state", "s", "state", "Show open, resolved or every flag, in turn.", title="Cycle flag state"
            ),
            Command(
                "cycle_axis",
                "a",
                "axis",
                "Show flags about one axis (scored can't judge, or named in the note), each axis in turn, then all.",
                title="Cycle flag axis",
            ),
            BACK,
        ),
    ),
    Destination(
        "runs",
        "Stored runs",
        _SCREENS + "runs:RunsScreen",
        "curator",
        Opener(
            "open_runs",
            "r",
            "runs",
            "Open the stored runs: each run's cases, and two runs compared.",
            "Runs",
            "stored runs: each case's checks, metrics and verdict; two runs compared",
        ),
        commands=(
            Command(
                "open_run", "enter", "open", "Open the selected run: its case × check/metric table.", title="Open run"
            ),
            Command(
                "mark_run",
                "m",
                "mark A",
                "Mark the selected run as A, the run others are compared against (again: unmark).",
                title="Mark run as A",
            ),
            Command(
                "compare_runs",
                "d",
                "compare",
                "Compare the selected run (B) with the marked run A, or with the run before it.",
                title="Compare two runs",
            ),
            BACK,
        ),
    ),
    Destination(
        "run",
        "A run's cases",
        _SCREENS + "run_table:RunTableScreen",
        "curator",
        commands=(
            Command(
                "open_run_case", "enter", "open", "Open the selected case: answer, sources, checks.", title="Open case"
            ),
            Command("cycle_slice", "s", "slice", "Filter by slice, in turn (each split, difficulty and tag)."),
            Command("toggle_failing", "f", "failing", "Show only the cases that did not pass (toggle)."),
            Command("toggle_judge_errors", "j", "judge errors", "Show only the cases the judge failed on (toggle)."),
            Command("clear_filters", "c", "clear", "Clear every filter.", title="Clear filters"),
            Command("back", "escape", "back", "Go back to the runs."),
        ),
    ),
    Destination(
        "run_case",
        "One case of a run",
        _SCREENS + "run_case:RunCaseScreen",
        "curator",
        commands=(Command("back", "escape", "back", "Go back to the run's cases."),),
    ),
    Destination(
        "run_diff",
        "Two runs compared",
        _SCREENS + "run_diff:RunDiffScreen",
        "curator",
        commands=(*ITEM_SCROLL, Command("back", "escape", "back", "Go back to the runs.")),
    ),
)
"""Every screen but home (the app's root), in home's order."""


def destination(scope: Scope) -> Destination:
    """The destination named `scope`; KeyError for a name nothing declares."""
    for entry in DESTINATIONS:
        if entry.scope == scope:
            return entry
    raise KeyError(scope)


def offered(role: Role) -> tuple[Destination, ...]:
    """What home lists in `role`'s app, in order: the reviewer reviews; the curator curates and oversees."""
    return tuple(entry for entry in DESTINATIONS if entry.role == role and entry.opener is not None)


def from_anywhere(role: Role) -> tuple[tuple[Destination, Command], ...]:
    """What the palette of `role`'s app offers on every screen, each with home's command for it."""
    found = []
    for entry in offered(role):
        command = entry.opener_command()
        if command is not None and entry.opener is not None and entry.opener.anywhere:
            found.append((entry, command))
    return tuple(found)


def hidden_commands(role: Role) -> frozenset[str]:
    """The openers of another role's screens: neither bound, listed, nor in the palette of `role`'s app."""
    return frozenset(entry.opener.name for entry in DESTINATIONS if entry.opener and entry.role != role)
