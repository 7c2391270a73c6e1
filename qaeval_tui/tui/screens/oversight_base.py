"""What every curation and oversight screen shares: core calls in workers, its help."""

from __future__ import annotations

from typing import ClassVar

from qaeval_tui.tui.commands import OversightScope
from qaeval_tui.tui.context import OversightContext
from qaeval_tui.tui.screens.core_calls import CoreCallScreen


class OversightScreen(CoreCallScreen[None]):
    """A `CoreCallScreen` on an `OversightContext`, whose services belong to the app (never closed here)."""

    SCOPE: ClassVar[OversightScope]

    def __init__(self, context: OversightContext) -> None:
        super().__init__()
        self.context = context

    def action_help(self) -> None:
        """Bound on the screen so its help opens in any app; the path is the app's one (`open_help`)."""
        from qaeval_tui.tui.screens.help import open_help

        open_help(self, dict(self.context.services.config.review.keys))
