"""What every curation and oversight screen shares: core calls in workers, its help."""

from __future__ import annotations

from typing import ClassVar

from qaeval_tui.tui.commands import RULE_HELP, OversightScope
from qaeval_tui.tui.context import OversightContext
from qaeval_tui.tui.screens.core_calls import CoreCallScreen
from qaeval_tui.tui.widgets.key_bar import join_keys


class OversightScreen(CoreCallScreen[None]):
    """A `CoreCallScreen` on an `OversightContext`; closes the services when it opened it."""

    SCOPE: ClassVar[OversightScope]

    def __init__(self, context: OversightContext, *, owns_gateway: bool = False) -> None:
        super().__init__()
        self.context = context
        self.owns_gateway = owns_gateway

    def on_unmount(self) -> None:
        if self.owns_gateway:
            self.context.services.close()

    def action_help(self) -> None:
        """The app's help screen for this scope, with the rule digits this screen has bound now."""
        from qaeval_tui.tui.screens.help import HelpScreen

        if isinstance(self.app.screen, HelpScreen):
            return
        digits = sorted(
            key for key, active in self.active_bindings.items() if active.binding.action.startswith("rule_with(")
        )
        overrides = dict(self.context.services.config.review.keys)
        self.app.push_screen(HelpScreen(self.SCOPE, overrides, join_keys(digits), RULE_HELP))
