"""The collector's settings while a reviewer labels: what lives as long as the screen is frozen out of its scans.

Showing one item allocates some thousands of container objects (styles, strips, messages), so the
collector runs its young generation about a dozen times per submit, and every few dozen submits a
full collection walks every object the process holds (the modules, Textual's classes, the store's
caches): 20 to 180 ms, the tail of submit → next. Once the first item is on screen, everything that
exists is long-lived, so it is frozen (`gc.freeze`: moved out of every generation the collector scans)
and the young generation's threshold is raised, so a submit costs about one young collection and a
full collection scans only what was allocated since. Garbage stays collectable: objects allocated
later are collected as ever, and `release` (when the screen leaves) unfreezes what was frozen, so a
process running many apps one after another (the tests' Pilot) keeps none of a finished app alive.
"""

from __future__ import annotations

import gc

YOUNG = 10_000
"""Allocations (net, container objects) between young collections while the screen is up; Python's default is 700."""

_held = 0
_saved: tuple[int, int, int] | None = None


def settle() -> None:
    """Freeze what exists now and raise the young threshold, until the matching `release`."""
    global _held, _saved
    gc.freeze()
    if _held == 0:
        _saved = gc.get_threshold()
        gc.set_threshold(YOUNG, _saved[1], _saved[2])
    _held += 1


def release() -> None:
    """Undo one `settle`: with none left, the frozen objects are collectable again and the threshold as it was."""
    global _held, _saved
    if _held == 0:
        return
    _held -= 1
    if _held == 0:
        gc.unfreeze()
        if _saved is not None:
            gc.set_threshold(*_saved)
        _saved = None
