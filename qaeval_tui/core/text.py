"""Make data text safe to put on a terminal.

Sources, answers and notes come from outside; a stray ESC or OSC 52 sequence in them must
show as text, never reach the terminal. Markup is handled by the renderers (they never parse
data as markup); this module handles control characters.
"""

from __future__ import annotations

import re

# C0 controls except tab and newline, DEL, and C1 controls (0x80-0x9f).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _visible(match: re.Match[str]) -> str:
    return f"\\x{ord(match.group(0)):02x}"


def literal(text: str) -> str:
    """`text` with every control character replaced by a visible `\\xNN` escape."""
    return _CONTROL.sub(_visible, text)


def one_line(text: str, width: int | None = None) -> str:
    """`literal(text)` folded onto one line, optionally cut to `width` characters with an ellipsis."""
    flat = " ".join(literal(text).split())
    if width is not None and len(flat) > width:
        return flat[: max(width - 1, 0)] + "…"
    return flat
