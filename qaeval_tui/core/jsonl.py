"""Reading JSON-object-per-line files the same strict way everywhere."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from qaeval_tui.core.errors import Problem


class RefusedJSON(json.JSONDecodeError):
    """JSON that Python's parser reads but a user file must not hold: a duplicate key, or a number
    that is not finite (NaN, Infinity, 1e999). `field` is where it sits, e.g. `scores.faithfulness`."""

    def __init__(self, msg: str, doc: str, pos: int, field: str) -> None:
        super().__init__(msg, doc, pos)
        self.field = field


class _Refused(Exception):
    """Raised inside the parser's hooks; `loads` finds where and turns it into a RefusedJSON."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise _Refused
    return obj


def _no_constant(_name: str) -> float:
    raise _Refused


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused
    return value


def loads(text: str | bytes) -> Any:
    """json.loads for input from users: every way it fails on bad text is a JSONDecodeError.

    Python's parser lets a repeated key replace the first one silently (a second "reviewer"
    relabels a line) and reads NaN, Infinity and 1e999, which no JSON writer should produce and
    which compare and hash wrongly: those are a RefusedJSON naming the key and its column.
    Besides bad syntax, json.loads recurses once per nesting level (a RecursionError on a line of
    a hundred thousand "[") and refuses an integer of more than 4,300 digits with a plain
    ValueError: tracebacks, where every other bad line gets path:line. Undecodable bytes stay a
    UnicodeDecodeError, which names the byte.
    """
    try:
        return json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_no_constant, parse_float=_finite_float)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise
    except _Refused:
        document = text if isinstance(text, str) else text.decode("utf-8", "replace")
        raise first_refusal(document) or RefusedJSON(
            "duplicate key or a number that is not finite", document, 0, "(line)"
        ) from None
    except RecursionError:
        reason, position = "nested too deeply", 0
    except ValueError as exc:
        reason = str(exc).split(":")[0]  # "Exceeds the limit (4300 digits) for integer string conversion"
        digits = _LONG_DIGITS.search(text) if isinstance(text, str) else None
        position = digits.start() if digits else 0
    raise json.JSONDecodeError(reason, text if isinstance(text, str) else "", position) from None


_LONG_DIGITS = re.compile(r"\d{4301,}")

# The tokens that locate a refusal: strings (escapes included), brackets, separators, numbers and
# the non-finite constants. Everything else (whitespace, true, false, null) is stepped over.
_TOKEN = re.compile(
    r'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\],]|NaN|-?Infinity|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?'
)
_KEY_COLON = re.compile(r"[ \t\r\n]*:")
_CONSTANTS = frozenset({"NaN", "Infinity", "-Infinity"})
_FRACTION = re.compile(r"[.eE]")  # an integer token is a Python int: never infinite


def first_refusal(document: str) -> RefusedJSON | None:
    """The first duplicate key or non-finite number in a JSON document, or None.

    A token scan, not a parse: it is how `loads` says where the parser's hooks objected, and how a
    reader that parses another way (the golden loader's fast path) checks a suspicious line.
    """
    # One frame per open container: an object's keys so far and its current key, or an array's index.
    frames: list[tuple[set[str], list[str]] | list[int]] = []
    for match in _TOKEN.finditer(document):
        token = match.group()
        top = frames[-1] if frames else None
        if token in ("{", "["):
            frames.append((set(), [""]) if token == "{" else [0])
        elif token in ("}", "]"):
            if frames:
                frames.pop()
        elif token == ",":
            if isinstance(top, list):
                top[0] += 1
        elif token[0] == '"':
            if isinstance(top, tuple) and _KEY_COLON.match(document, match.end()):
                try:
                    key = json.loads(token)
                except ValueError:  # past the point the parser reached: compare keys as written
                    key = token
                keys, current = top
                current[0] = key
                if key in keys:
                    return RefusedJSON(f"duplicate key {key!r}", document, match.start(), _path(frames))
                keys.add(key)
        elif token in _CONSTANTS or (_FRACTION.search(token) and not math.isfinite(float(token))):
            what = "is not a JSON number" if token in _CONSTANTS else "is too large for a number"
            return RefusedJSON(f"{token} {what}; write a finite number", document, match.start(), _path(frames))
    return None


def _path(frames: list[tuple[set[str], list[str]] | list[int]]) -> str:
    """`scores.faithfulness`, `sources[1].id`: where the current token sits; `(line)` at the top."""
    path = ""
    for frame in frames:
        if isinstance(frame, list):
            path += f"[{frame[0]}]"
        else:
            path += f".{frame[1][0]}" if path else frame[1][0]
    return path or "(line)"


def json_problem(exc: json.JSONDecodeError, path: Path | str, line: int) -> Problem:
    """One bad JSON line as a Problem: a refusal names its field, any other error the whole line."""
    if isinstance(exc, RefusedJSON):
        return Problem(str(path), line, exc.field, f"invalid JSON: {exc.msg} at column {exc.colno}")
    return Problem(str(path), line, "(line)", f"invalid JSON: {exc.msg} at column {exc.colno}")


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
            problems.append(json_problem(exc, path, number))
            continue
        if not isinstance(value, dict):
            problems.append(Problem(str(path), number, "(line)", "each line must be a JSON object"))
            continue
        column = lone_surrogate_column(line)
        if column is not None:
            problems.append(Problem(str(path), number, "(line)", lone_surrogate_message(column)))
            continue
        yield number, value
