"""Every command of the TUI, declared once.

One declaration feeds the key binding, the key bar, the help screen and the command palette, so
they never disagree. Keys are remapped with `[review.keys]` in the config (action name -> key);
the scale digits are not remappable because they are the scale.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from qaeval_tui.core.errors import UsageError

if TYPE_CHECKING:
    from textual.binding import BindingType

OversightScope = Literal[
    "inbox",
    "promote",
    "adjudicate",
    "dashboard",
    "drilldown",
    "browse",
    "case",
    "flags",
    "runs",
    "run",
    "run_case",
    "run_diff",
]
"""The curation and oversight screens."""
Scope = Literal["app", "home", "review", "summary", OversightScope]
SCOPE_TITLES: dict[Scope, str] = {
    "review": "Review",
    "home": "Home",
    "summary": "End of queue",
    "inbox": "Inbox",
    "promote": "Promote",
    "adjudicate": "Adjudication",
    "dashboard": "Calibration dashboard",
    "drilldown": "Items behind a cell",
    "browse": "Golden browser",
    "case": "Golden case",
    "flags": "Flags queue",
    "runs": "Stored runs",
    "run": "A run's cases",
    "run_case": "One case of a run",
    "run_diff": "Two runs compared",
    "app": "Everywhere",
}
"""The help screen's heading for each scope's keys."""
BINDING_PREFIX = "qaeval."


@dataclass(frozen=True)
class Command:
    """One user command: its action, default key, short label and one-sentence help."""

    name: str
    key: str
    label: str
    help: str
    scope: Scope
    in_bar: bool = True
    priority: bool = False
    title: str = ""
    """The command palette's name for it, when the short label is ambiguous there."""

    @property
    def palette_title(self) -> str:
        return self.title or self.label.capitalize()


def _item_scroll(scope: Scope) -> tuple[Command, Command]:
    """Page through the item shown beside a list (adjudication, a confusion cell's items)."""
    return (
        Command(
            "detail_down",
            "pagedown",
            "scroll",
            "Scroll the item down a page.",
            scope,
            in_bar=False,
            title="Scroll item down",
        ),
        Command(
            "detail_up",
            "pageup",
            "scroll up",
            "Scroll the item up a page.",
            scope,
            in_bar=False,
            title="Scroll item up",
        ),
    )


COMMANDS: tuple[Command, ...] = (
    Command("next_axis", "tab", "axis", "Move to the next axis.", "review", title="Next axis"),
    Command("previous_axis", "shift+tab", "axis", "Move to the previous axis.", "review", title="Previous axis"),
    Command(
        "value_left",
        "left",
        "value",
        "Move along the scale of the focused axis and read its anchor.",
        "review",
        in_bar=False,
        title="Scale cursor left",
    ),
    Command(
        "value_right",
        "right",
        "value",
        "Move along the scale of the focused axis and read its anchor.",
        "review",
        in_bar=False,
        title="Scale cursor right",
    ),
    Command(
        "score_cursor",
        "space",
        "score here",
        "Score the focused axis with the value under the cursor.",
        "review",
        in_bar=False,
    ),
    Command("cant_judge", "x", "can't judge", "Mark the focused axis as can't judge and move on.", "review"),
    Command("note", "n", "note", "Write or edit a note on this item.", "review"),
    Command("flag", "f", "flag", "Flag this item for a curator (toggle).", "review"),
    Command(
        "guidelines",
        "g",
        "guidelines",
        "Show or hide the labeling guidelines of the focused axis and the rubric.",
        "review",
        in_bar=False,
    ),
    Command("skip", "s", "skip", "Skip this item without scoring it; it is recorded as skipped.", "review"),
    Command(
        "submit",
        "enter",
        "submit",
        "Save the label (one committed transaction), then show the next item.",
        "review",
    ),
    Command(
        "undo", "u", "undo", "Reopen the item you last submitted or skipped; a change is a new revision.", "review"
    ),
    Command(
        "reveal",
        "r",
        "reveal",
        "Show the judge verdict on your last submitted item, and agreement.",
        "review",
    ),
    Command(
        "next_citation",
        "right_square_bracket",
        "cite",
        "Select the next citation and jump to its span in the sources.",
        "review",
        title="Next citation",
    ),
    Command(
        "previous_citation",
        "left_square_bracket",
        "prev cite",
        "Select the previous citation and jump to its span.",
        "review",
        in_bar=False,
        title="Previous citation",
    ),
    Command(
        "sources_down",
        "pagedown",
        "scroll",
        "Scroll the sources down a page.",
        "review",
        in_bar=False,
        title="Scroll sources down",
    ),
    Command(
        "sources_up",
        "pageup",
        "scroll up",
        "Scroll the sources up a page.",
        "review",
        in_bar=False,
        title="Scroll sources up",
    ),
    Command(
        "back",
        "escape",
        "back",
        "Go home; an item with scores not yet submitted asks once first, and nothing partial is saved.",
        "review",
    ),
    Command("start_review", "enter", "review", "Start or resume labeling where you left off.", "home"),
    Command(
        "open_inbox",
        "i",
        "inbox",
        "Open the production-miss inbox: promote a miss or reject it.",
        "home",
        title="Open inbox",
    ),
    Command(
        "open_adjudication",
        "a",
        "adjudicate",
        "Open the disagreements between blind reviewers, worst first.",
        "home",
        title="Open adjudication",
    ),
    Command(
        "open_dashboard",
        "c",
        "calibration",
        "Open the calibration dashboard: agreement and judge vs human per axis.",
        "home",
        title="Open calibration dashboard",
    ),
    Command(
        "open_browse",
        "b",
        "browse",
        "Open the golden browser: every case, filtered and searched.",
        "home",
        title="Open golden browser",
    ),
    Command(
        "open_flags",
        "f",
        "flags",
        "Open the flags queue: reviewers' flags and notes, each resolved with a note.",
        "home",
        title="Open flags queue",
    ),
    Command(
        "open_runs",
        "r",
        "runs",
        "Open the stored runs: each run's cases, and two runs compared.",
        "home",
        title="Open stored runs",
    ),
    Command("refresh", "ctrl+r", "refresh", "Reload the golden set, runs and your progress.", "home"),
    Command("undo_last", "u", "undo", "Reopen the item you last submitted.", "summary"),
    Command("home", "escape", "home", "Go to the home screen.", "summary"),
    Command("open_miss", "enter", "open", "Open the selected miss in the promote form.", "inbox", title="Open miss"),
    Command("search", "slash", "search", "Search the list (enter or escape returns to it).", "inbox"),
    Command("cycle_status", "f", "status", "Show pending, promoted, rejected or every miss, in turn.", "inbox"),
    Command("import_misses", "i", "import", "Import a production-miss file: every line or none.", "inbox"),
    Command(
        "run_and_queue",
        "r",
        "run & queue",
        "Run new golden cases and queue them for the roster.",
        "inbox",
        title="Run new cases and queue them",
    ),
    Command("back", "escape", "back", "Go back to the previous screen.", "inbox"),
    Command("resolve_flag", "r", "resolve", "Resolve the selected flag with a note.", "flags", title="Resolve flag"),
    Command("search", "slash", "search", "Search notes, item ids and case ids.", "flags"),
    Command(
        "cycle_state", "s", "state", "Show open, resolved or every flag, in turn.", "flags", title="Cycle flag state"
    ),
    Command(
        "cycle_axis",
        "a",
        "axis",
        "Show flags about one axis (scored can't judge, or named in the note), each axis in turn, then all.",
        "flags",
        title="Cycle flag axis",
    ),
    Command("back", "escape", "back", "Go back to the previous screen.", "flags"),
    Command(
        "promote", "ctrl+s", "promote", "Append the case to the living split; nothing is written if invalid.", "promote"
    ),
    Command("reject", "ctrl+r", "reject", "Reject this miss with a reason; it stays out of the golden set.", "promote"),
    Command("next_problem", "ctrl+n", "next problem", "Move to the next field with a problem.", "promote"),
    Command("back", "escape", "back", "Go back to the inbox; an edited draft asks first.", "promote"),
    Command("rule", "enter", "rule", "Record the consensus on the selected disagreement, with a reason.", "adjudicate"),
    Command("toggle_settled", "a", "show settled", "Show or hide disagreements already adjudicated.", "adjudicate"),
    Command(
        "toggle_short",
        "o",
        "short of labels",
        "Switch to the items short of blind labels (one reviewer only) and back.",
        "adjudicate",
    ),
    *_item_scroll("adjudicate"),
    Command("back", "escape", "back", "Go back to the previous screen.", "adjudicate"),
    Command(
        "drill",
        "enter",
        "items",
        "Open the items behind the selected confusion-matrix cell.",
        "dashboard",
        title="Items behind the cell",
    ),
    Command("recompute", "r", "recompute", "Recompute every figure from the store.", "dashboard"),
    Command("back", "escape", "back", "Go back to the previous screen.", "dashboard"),
    *_item_scroll("drilldown"),
    Command("back", "escape", "back", "Go back to the dashboard.", "drilldown"),
    Command("open_case", "enter", "open", "Open the selected case with its sources.", "browse", title="Open case"),
    Command("search", "slash", "search", "Search the list (enter or escape returns to it).", "browse"),
    Command(
        "cycle_split",
        "s",
        "split",
        "Filter by split, in turn (frozen, living, any).",
        "browse",
        title="Filter by split",
    ),
    Command(
        "cycle_difficulty", "d", "difficulty", "Filter by difficulty, in turn.", "browse", title="Filter by difficulty"
    ),
    Command(
        "cycle_behavior",
        "b",
        "behaviour",
        "Filter by expected behaviour, in turn.",
        "browse",
        title="Filter by behaviour",
    ),
    Command(
        "cycle_tag", "t", "tag", "Filter by adversarial tag, in turn (none: untagged).", "browse", title="Filter by tag"
    ),
    Command("clear_filters", "c", "clear", "Clear every filter and the search.", "browse", title="Clear filters"),
    Command("back", "escape", "back", "Go back to the previous screen.", "browse"),
    Command("back", "escape", "back", "Go back to the case list.", "case"),
    Command(
        "open_run", "enter", "open", "Open the selected run: its case × check/metric table.", "runs", title="Open run"
    ),
    Command(
        "mark_run",
        "m",
        "mark A",
        "Mark the selected run as A, the run others are compared against (again: unmark).",
        "runs",
        title="Mark run as A",
    ),
    Command(
        "compare_runs",
        "d",
        "compare",
        "Compare the selected run (B) with the marked run A, or with the run before it.",
        "runs",
        title="Compare two runs",
    ),
    Command("back", "escape", "back", "Go back to the previous screen.", "runs"),
    Command(
        "open_run_case", "enter", "open", "Open the selected case: answer, sources, checks.", "run", title="Open case"
    ),
    Command("cycle_slice", "s", "slice", "Filter by slice, in turn (each split, difficulty and tag).", "run"),
    Command("toggle_failing", "f", "failing", "Show only the cases that did not pass (toggle).", "run"),
    Command("toggle_judge_errors", "j", "judge errors", "Show only the cases the judge failed on (toggle).", "run"),
    Command("clear_filters", "c", "clear", "Clear every filter.", "run", title="Clear filters"),
    Command("back", "escape", "back", "Go back to the runs.", "run"),
    Command("back", "escape", "back", "Go back to the run's cases.", "run_case"),
    *_item_scroll("run_diff"),
    Command("back", "escape", "back", "Go back to the runs.", "run_diff"),
    Command("help", "question_mark", "help", "Show every key and what it does.", "app"),
    Command(
        "quit",
        "ctrl+q",
        "quit",
        "Quit (a partly scored item asks once first). Every submitted label is already saved.",
        "app",
        priority=True,
    ),
)
"""Scale digits are added per rubric: "score" on the review screen, "rule as" on adjudication."""

SCORE_HELP = "Score the focused axis with this scale value and move to the next axis."
RULE_HELP = "Record this scale value as the consensus (asks for a reason)."


def commands_for(scope: Scope) -> tuple[Command, ...]:
    return tuple(command for command in COMMANDS if command.scope == scope)


def binding_id(name: str) -> str:
    return BINDING_PREFIX + name


def remappable_names() -> tuple[str, ...]:
    return tuple(dict.fromkeys(command.name for command in COMMANDS))


def resolve_keys(overrides: Mapping[str, str]) -> dict[str, str]:
    """Effective key per command name after `[review.keys]`; raises UsageError on a bad remap.

    A remap may not name an unknown command, use a scale digit, or take a key another command
    of the same screen (or an app-wide command) already uses.
    """
    names = set(remappable_names())
    unknown = sorted(set(overrides) - names)
    if unknown:
        raise UsageError(f"review.keys: unknown command(s) {', '.join(unknown)}; known: {', '.join(sorted(names))}")
    keys = {command.name: overrides.get(command.name, command.key) for command in COMMANDS}
    for name, key in overrides.items():
        if not key.strip():
            raise UsageError(f"review.keys.{name}: empty key")
        if key.isdigit():
            raise UsageError(f"review.keys.{name}: {key!r} is a scale digit and scores the focused axis")
    for scope in {command.scope for command in COMMANDS} - {"app"}:
        taken: dict[str, str] = {}
        for command in COMMANDS:
            if command.scope not in (scope, "app"):
                continue
            key = keys[command.name]
            if key in taken and taken[key] != command.name:
                raise UsageError(f"review.keys: {key!r} is bound to both {taken[key]} and {command.name}")
            taken[key] = command.name
    return keys


def keymap(overrides: Mapping[str, str]) -> dict[str, str]:
    """The Textual keymap (binding id -> key) for the overrides."""
    return {binding_id(name): key for name, key in resolve_keys(overrides).items() if name in overrides}


def scale_digits(scales: Iterable[tuple[int, ...]]) -> tuple[int, ...]:
    """Scale values that a single digit key can enter, across every axis, in order."""
    return tuple(sorted({value for scale in scales for value in scale if 0 <= value <= 9}))


def bindings(scope: Scope, digits: Iterable[int] = ()) -> list[BindingType]:
    """Textual bindings for one screen: its commands (with ids, so the keymap remaps them) and digits.

    Digit bindings share the label "score"; the key bar shows them as one range.
    """
    from textual.binding import Binding

    result: list[BindingType] = [
        Binding(c.key, c.name, c.label, show=c.in_bar, priority=c.priority, id=binding_id(c.name))
        for c in commands_for(scope)
    ]
    result.extend(Binding(str(digit), f"score({digit})", "score") for digit in digits)
    return result
