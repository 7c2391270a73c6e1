"""The one literal-rendering path: data text made safe for a terminal, a screen or a report.

Sources, answers, notes, tags, split and axis names come from files, the config or an adapter.
A stray ESC, OSC 52 (clipboard write) or C1 CSI in them must show as text and never reach the
terminal; a bidi override must not reorder what a person reads; an invisible format character
must be seen. `literal()` is the single place that decides which characters those are and how
they are shown; every renderer calls it, directly or through the helpers below:

- consoles (`cli/literal_console.py`) and screens (`tui/literal.py`) never parse data as markup
  or emoji codes, and show it through `literal()` / `one_line()`;
- `markdown_text()`, `html_text()` and `xml_text()` add the escaping of their format on top;
- `json_visible()` writes the same characters as JSON `\\u` escapes (lossless) for JSON on stdout.
"""

from __future__ import annotations

import html
import re

# Shown escaped, never sent: C0 controls but tab and newline, DEL and C1 (0x80-0x9f); every Unicode
# format character (category Cf: bidi embeddings, overrides and isolates, marks, zero-width and
# invisible operators, tags) except ZWNJ and ZWJ (U+200C/U+200D), which scripts and emoji need;
# the line and paragraph separators; lone surrogates (they cannot be encoded); and U+FFFE/U+FFFF,
# which XML forbids. `tests/core/test_text.py` keeps the Cf part equal to Python's Unicode table.
_HIDDEN_CLASS = (
    "\x00-\x08\x0b-\x1f\x7f-\x9f"
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e"
    "\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f"
    "\ud800-\udfff\ufeff\ufff9-\ufffb\ufffe\uffff"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0001\U000e0020-\U000e007f"
)
_HIDDEN = re.compile(f"[{_HIDDEN_CLASS}]")
_PARTIAL_ESCAPE = re.compile(r"\\(?:x[0-9a-f]?|u[0-9a-f]{0,3}|U[0-9a-f]{0,7})?$")
# Inline Markdown (CommonMark + GitHub): emphasis, code, links, HTML, tables, headings, strikethrough,
# entities and math. A backslash makes any ASCII punctuation literal.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]|#~&$])")


def escape(char: str) -> str:
    """How one hidden character is shown: `\\x1b`, `\\u202e`, `\\U000e0041`."""
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _escaped(match: re.Match[str]) -> str:
    return escape(match.group(0))


def literal(text: str) -> str:
    """`text` with every hidden character (see above) replaced by a visible escape; tab and newline kept."""
    return _HIDDEN.sub(_escaped, text)


def has_hidden(text: str) -> bool:
    """Whether `literal(text)` would change anything."""
    return _HIDDEN.search(text) is not None


def one_line(text: str, width: int | None = None) -> str:
    """`literal(text)` folded onto one line, optionally cut to `width` characters with an ellipsis.

    The cut never leaves half an escape (`\\x1` of `\\x1b`) behind.
    """
    flat = " ".join(literal(text).split())
    if width is not None and len(flat) > width:
        cut = flat[: max(width - 1, 0)]
        return _PARTIAL_ESCAPE.sub("", cut) + "…"
    return flat


def markdown_text(text: str, width: int | None = None) -> str:
    """Data as inert inline Markdown: one line, every markup character backslash-escaped.

    Fits a heading, a list item or a table cell: a `|` cannot end a cell, a newline cannot start a
    heading or a row, backticks, brackets and `<script>` show as typed.
    """
    escaped = _MARKDOWN_SPECIAL.sub(r"\\\1", one_line(text, width))
    return escaped.replace("<", "&lt;").replace(">", "&gt;")


def html_text(text: str) -> str:
    """Data as HTML text or attribute value: entities escaped, hidden characters shown."""
    return html.escape(literal(text), quote=True)


def xml_text(text: str) -> str:
    """Data for an XML 1.0 text or attribute through an XML writer (which escapes `<`, `&`, quotes).

    Every character XML 1.0 forbids (C0 controls, lone surrogates, U+FFFE/U+FFFF) is hidden, so
    escaped; tab and newline stay.
    """
    return literal(text)


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def json_visible(document: str) -> str:
    """A JSON document (from `json.dumps`) with every hidden character as a `\\u` escape.

    Lossless: it parses back to the same data. Outside strings JSON holds no such character, so
    the whole text can be rewritten. Use it for JSON meant for a terminal (stdout).
    """
    return _HIDDEN.sub(_json_escape, document)
