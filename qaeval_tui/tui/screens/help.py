"""The help screen (`?`): every key of the screen below and of the app, from the one declaration."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from qaeval_tui.tui.commands import (
    SCALE_KEYS,
    SCOPE_TITLES,
    SCORE_HELP,
    Scope,
    commands_for,
    resolve_keys,
)
from qaeval_tui.tui.literal import line
from qaeval_tui.tui.widgets.key_bar import join_keys


def open_help(screen: Screen[Any], overrides: dict[str, str], hidden: frozenset[str] = frozenset()) -> None:
    """The one help path: the help screen for `screen`'s scope, over it, unless help is already up.

    `hidden` names commands this app does not offer (another role's screens): not listed. A screen
    with scale digits (review, adjudication) lists the digits it has bound now: the rubric's values.
    """
    app = screen.app
    if isinstance(app.screen, HelpScreen):
        return
    scope: Scope = getattr(screen, "SCOPE", "app")
    scale = SCALE_KEYS.get(scope)
    digits = sorted(
        key
        for key, active in screen.active_bindings.items()
        if scale is not None and active.binding.action.startswith(f"{scale.action}(")
    )
    app.push_screen(HelpScreen(scope, overrides, join_keys(digits), scale.help if scale else "", hidden))


class HelpScreen(ModalScreen[None]):
    """Keys with their effective binding (after `[review.keys]`) and what each does."""

    BINDINGS = [Binding("escape,question_mark,q", "close", "close")]  # noqa: RUF012 (Textual's own type)

    def __init__(
        self,
        scope: Scope,
        overrides: dict[str, str],
        digits: str,
        digits_help: str = SCORE_HELP,
        hidden: frozenset[str] = frozenset(),
    ) -> None:
        """`digits` are the screen's scale keys ("0-2"), if it has any, and `digits_help` what they do;
        `hidden` the commands this app does not offer."""
        super().__init__()
        self.hidden = hidden
        self.scope = scope
        self.keys = resolve_keys(overrides)
        self.digits = digits
        self.digits_help = digits_help

    def _rows(self, scope: Scope) -> list[tuple[str, str]]:
        rows = [(self.digits, self.digits_help)] if scope != "app" and self.digits else []
        for command in (command for command in commands_for(scope) if command.name not in self.hidden):
            rows.append((self.app.get_key_display(Binding(self.keys[command.name], command.name)), command.help))
        return rows

    def compose(self) -> ComposeResult:
        sections: list[tuple[str, list[tuple[str, str]]]] = []
        if self.scope != "app":
            sections.append((SCOPE_TITLES[self.scope], self._rows(self.scope)))
        app_rows = [*self._rows("app"), ("ctrl+p", "Command palette: every command, searchable.")]
        sections.append((SCOPE_TITLES["app"], app_rows))
        with Vertical(classes="dialog wide-dialog"):
            yield Static("Keys", classes="dialog-title", markup=False)
            with VerticalScroll():
                for title, rows in sections:
                    yield Static(Content.styled(title, "bold $primary"), classes="help-section")
                    for key, text in rows:
                        # Two columns, so a long explanation wraps under itself, not under the key.
                        with Horizontal(classes="help-row"):
                            yield Static(line(key).stylize("bold $accent"), classes="help-key")  # keys come from config
                            yield Static(text, classes="help-text", markup=False)
            yield Static(
                'Remap keys in qaeval.toml under [review.keys], e.g. submit = "ctrl+s".  escape close',
                classes="dialog-hint",
                markup=False,
            )

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).focus()

    def action_close(self) -> None:
        self.dismiss(None)
