"""The flags queue scene: the demo reviewers' flags and notes, waiting for a curator."""

from __future__ import annotations

from tests.tui.scenes.review import AnyPilot, wait_until


async def play_flags(pilot: AnyPilot) -> None:
    from qaeval_tui.tui.screens.flags import FlagsScreen

    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, FlagsScreen) and app.screen.loaded and not app.screen.busy)
