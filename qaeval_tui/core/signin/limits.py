"""The failed sign-in limit: so many failures per name, and per address, within a window.

Once a name (or an address) has failed `per_name` (or `per_address`) times within `window_s`
seconds, every sign-in for it is refused, a right one included, until its oldest failure leaves
the window. A successful sign-in clears that name's failures (not the address's: one person
signing in must not reset a guesser's count on the same address).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class FailureLimit:
    """Counts failed sign-ins by name and by address; `clock` is seconds (monotonic)."""

    per_name: int = 5
    per_address: int = 20
    window_s: float = 15 * 60
    clock: Callable[[], float] = time.monotonic
    _failures: dict[str, deque[float]] = field(default_factory=dict)

    def _recent(self, key: str) -> deque[float]:
        times = self._failures.setdefault(key, deque())
        horizon = self.clock() - self.window_s
        while times and times[0] <= horizon:
            times.popleft()
        return times

    def wait_s(self, name: str, address: str) -> float:
        """0 when a sign-in of `name` from `address` may be tried; else the seconds until it may."""
        waits = []
        for key, limit in ((f"name:{name.strip().casefold()}", self.per_name), (f"addr:{address}", self.per_address)):
            times = self._recent(key)
            if len(times) >= limit:
                waits.append(times[len(times) - limit] + self.window_s - self.clock())
        return max(waits, default=0.0)

    def failed(self, name: str, address: str) -> None:
        now = self.clock()
        self._recent(f"name:{name.strip().casefold()}").append(now)
        self._recent(f"addr:{address}").append(now)

    def succeeded(self, name: str) -> None:
        self._failures.pop(f"name:{name.strip().casefold()}", None)
