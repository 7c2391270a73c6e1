"""What every screen is handed at construction: the gateway, the clock, the reviewer."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from qaeval_tui.tui.gateway import Gateway


@dataclass
class ReviewContext:
    """Shared, read-mostly state of one `qaeval review` process."""

    gateway: Gateway
    clock: Callable[[], float]
    """Seconds, monotonic; tests pass a fixed clock so time on item is reproducible."""
    deterministic: bool = False
    """No animations or blinking cursors (tests and screenshots)."""
    reviewer: str = ""
