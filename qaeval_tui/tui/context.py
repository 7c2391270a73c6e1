"""What every screen is handed at construction: the app's one services object, the clock, who works."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from qaeval_tui.tui.services import Services


@dataclass
class ReviewContext:
    """Shared, read-mostly state of one `qaeval review` process."""

    services: Services
    clock: Callable[[], float]
    """Seconds, monotonic; tests pass a fixed clock so time on item is reproducible."""
    deterministic: bool = False
    """No animations or blinking cursors (tests and screenshots)."""
    reviewer: str = ""


@dataclass
class OversightContext:
    """What every curation and oversight screen is handed: the same services as the app's."""

    services: Services
    curator: str = ""
    """Who is curating (the app's reviewer name); prefilled wherever a decision records a name."""
    deterministic: bool = False
    """No blinking cursors (tests and screenshots)."""
