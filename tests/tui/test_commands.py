"""The one declaration of commands: keys, remaps, bindings, the key bar's digit ranges, the draft."""

from __future__ import annotations

import pytest
from textual.binding import Binding

from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.review.session import AxisView, BlindItemView
from qaeval_tui.tui.commands import COMMANDS, SCOPE_TITLES, bindings, keymap, resolve_keys, scale_digits
from qaeval_tui.tui.draft import UNSCORED, LabelDraft
from qaeval_tui.tui.widgets.key_bar import join_keys

ISSUE_KEYS = {
    "next_axis": "tab",
    "previous_axis": "shift+tab",
    "cant_judge": "x",
    "note": "n",
    "flag": "f",
    "skip": "s",
    "submit": "enter",
    "undo": "u",
    "reveal": "r",
    "back": "escape",
    "quit": "ctrl+q",
    "help": "question_mark",
}


def test_default_keys_are_the_ones_the_issue_names() -> None:
    keys = resolve_keys({})
    assert {name: keys[name] for name in ISSUE_KEYS} == ISSUE_KEYS


def test_every_command_has_a_label_and_help_and_a_binding_id() -> None:
    for command in COMMANDS:
        assert command.label and command.help.endswith(".")
    review = [binding for binding in bindings("review") if isinstance(binding, Binding)]
    assert {binding.id for binding in review if binding.id} >= {"qaeval.submit", "qaeval.reveal"}
    assert [b.action for b in review if b.action.startswith("score(")] == [f"score({d})" for d in range(10)]
    adjudicate = [binding for binding in bindings("adjudicate") if isinstance(binding, Binding)]
    assert {b.description for b in adjudicate if b.action.startswith("rule_with(")} == {"rule as"}
    assert not [b for b in bindings("inbox") if isinstance(b, Binding) and b.key.isdigit()]  # no scale there


def test_every_scope_has_a_help_title_and_a_shared_name_has_one_default_key() -> None:
    assert {command.scope for command in COMMANDS} == set(SCOPE_TITLES)
    default: dict[str, str] = {}
    for command in COMMANDS:  # one binding id per name, so one key per name ("back" is escape everywhere)
        assert default.setdefault(command.name, command.key) == command.key, command.name


def test_remaps_become_a_keymap_and_bad_ones_are_refused() -> None:
    assert keymap({"submit": "ctrl+s"}) == {"qaeval.submit": "ctrl+s"}
    with pytest.raises(UsageError, match="unknown command"):
        resolve_keys({"nope": "k"})
    with pytest.raises(UsageError, match="bound to both"):
        resolve_keys({"note": "f"})
    with pytest.raises(UsageError, match="bound to both"):
        resolve_keys({"skip": "ctrl+q"})  # clashes with an app-wide key
    assert resolve_keys({"start_review": "s"})["start_review"] == "s"  # another screen may reuse a key
    with pytest.raises(UsageError, match="bound to both"):
        resolve_keys({"cycle_tag": "d"})  # a curation screen's keys are checked too


def test_digit_ranges_in_the_key_bar() -> None:
    assert scale_digits([(0, 1, 2), (1, 2, 3, 4, 5), (10, 20)]) == (0, 1, 2, 3, 4, 5)
    assert join_keys(["0", "1", "2"]) == "0-2"
    assert join_keys(["0", "2", "4"]) == "0/2/4"
    assert join_keys(["tab", "shift+tab"]) == "tab/shift+tab"


def _item(previous: dict[str, int | None]) -> BlindItemView:
    axes = (
        AxisView("a", (0, 1, 2), ("no", "some", "yes"), False),
        AxisView("b", (1, 2, 3, 4, 5), ("1", "2", "3", "4", "5"), True),
    )
    return BlindItemView("i", 1, 1, "q", "a", False, (), (), axes, "1", previous, "", False)


def test_draft_scores_advance_and_reopen_with_previous_scores() -> None:
    draft = LabelDraft.for_item(_item({}))
    assert draft.value_of("a") is UNSCORED and draft.cursor_value == 0
    draft.score(2)
    assert draft.focus == 1 and not draft.on_scale(0) and draft.on_scale(5)
    draft.score(None)
    assert draft.scores == {"a": 2, "b": None} and draft.focus == 1  # stays on the last axis
    reopened = LabelDraft.for_item(_item({"a": 1, "b": 4, "gone": 2}))
    assert reopened.scores == {"a": 1, "b": 4}
    reopened.move_focus(1)
    assert reopened.cursor_value == 4
    reopened.move_cursor(5)
    assert reopened.cursor_value == 5
