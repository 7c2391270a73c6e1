"""What every screen is handed at construction: the app's one services object, the clock, who works."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from qaeval_tui.core.review.views import Role, Seat
from qaeval_tui.tui.services import Services


@dataclass
class AppContext:
    """Shared, read-mostly state of one `qaeval review` or `qaeval curate` process, the same object on every screen."""

    services: Services
    clock: Callable[[], float] = field(default=time.monotonic)
    """Seconds, monotonic; tests pass a fixed clock so time on item is reproducible."""
    deterministic: bool = False
    """No animations or blinking cursors (tests and screenshots)."""
    reviewer: str = ""
    """Who works: set once the reviewer is known (the prompt, or before the app starts)."""
    role: Role = "reviewer"
    """Which app this is: `qaeval review` (reviewer) or `qaeval curate` (curator); fixed at start."""

    @property
    def seat(self) -> Seat:
        """Who works as what, which every curator-only screen checks before it is built."""
        return Seat(self.reviewer, self.role)

    @property
    def curator(self) -> str:
        """The reviewer as curator: prefilled wherever a curation decision records a name."""
        return self.reviewer
