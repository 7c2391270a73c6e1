"""Reading JSON-object-per-line files the same strict way everywhere."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from qaeval_tui.core.errors import Problem


def loads(text: str | bytes) -> Any:
    """json.loads for input from users: every way it fails on bad text is a JSONDecodeError.

    Besides bad syntax, json.loads recurses once per nesting level (a RecursionError on a line of
    a hundred thousand "[") and refuses an integer of more than 4,300 digits with a plain
    ValueError: tracebacks, where every other bad line gets path:line. Undecodable bytes stay a
    UnicodeDecodeError, which names the byte.
    """
    try:
        return json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise
    except RecursionError:
        reason, position = "nested too deeply", 0
    except ValueError as exc:
        reason = str(exc).split(":")[0]  # "Exceeds the limit (4300 digits) for integer string conversion"
        digits = _LONG_DIGITS.search(text) if isinstance(text, str) else None
        position = digits.start() if digits else 0
    raise json.JSONDecodeError(reason, text if isinstance(text, str) else "", position) from None


_LONG_DIGITS = re.compile(r"\d{4301,}")


# One \uXXXX escape in the D800-DFFF range: half of a UTF-16 pair.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def lone_surrogate_column(line: str) -> int | None:
    """1-based column of the first escape in a parsed JSON line that is half a UTF-16 pair alone.

    json.loads accepts "\\ud800" on its own; it is no character, and SQLite and every UTF-8
    writer refuse it later. A high half directly followed by a low half is one character.
    """
    if not _SURROGATE_ESCAPE.search(line):
        return None
    index = line.find("\\")
    while index >= 0:
        code = _escape_code(line, index)
        if code is None:
            step = 2  # another escape (\\, \", \n, ...): skip the backslash and what it escapes
        elif not 0xD800 <= code < 0xE000:
            step = 6
        elif code < 0xDC00 and 0xDC00 <= (_escape_code(line, index + 6) or 0) < 0xE000:
            step = 12  # a high half and its low half: one character
        else:
            return index + 1
        index = line.find("\\", index + step)
    return None


def lone_surrogate_message(column: int) -> str:
    return f"invalid JSON: lone UTF-16 surrogate escape (half a character) at column {column}"


def _escape_code(line: str, index: int) -> int | None:
    """The code of a \\uXXXX escape at `index`, or None when something else starts there."""
    if line[index : index + 2] != "\\u":
        return None
    try:
        return int(line[index + 2 : index + 6], 16)
    except ValueError:
        return None


def json_object_lines(text: str, path: Path | str, problems: list[Problem]) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for every non-blank line; problems are collected, not raised.

    Splits on "\\n" only: str.splitlines() would also split inside a string holding U+2028 or a
    form feed, cutting one record in two and shifting every later line number.
    """
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            value = loads(line)
        except json.JSONDecodeError as exc:
            problems.append(Problem(str(path), number, "(line)", f"invalid JSON: {exc.msg} at column {exc.colno}"))
            continue
        if not isinstance(value, dict):
            problems.append(Problem(str(path), number, "(line)", "each line must be a JSON object"))
            continue
        column = lone_surrogate_column(line)
        if column is not None:
            problems.append(Problem(str(path), number, "(line)", lone_surrogate_message(column)))
            continue
        yield number, value
