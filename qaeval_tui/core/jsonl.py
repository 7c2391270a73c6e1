"""Reading JSON-object-per-line files the same strict way everywhere."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from qaeval_tui.core.errors import Problem


def loads(text: str | bytes) -> Any:
    """json.loads for input from users: nesting too deep for the parser is a JSONDecodeError too.

    json.loads recurses once per nesting level and raises RecursionError on a line such as
    a hundred thousand "[": a traceback, where every other bad line gets path:line.
    """
    try:
        return json.loads(text)
    except RecursionError:
        doc = text if isinstance(text, str) else ""
        raise json.JSONDecodeError("nested too deeply", doc, 0) from None


# A \uD800-\uDFFF escape: half of a UTF-16 pair, fine when its other half follows.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def has_lone_surrogate(line: str, value: object) -> bool:
    """True when the parsed line holds a lone surrogate: no character, and not storable as UTF-8.

    json.loads accepts "\\ud800" on its own; SQLite and every UTF-8 writer refuse it later.
    """
    if not _SURROGATE_ESCAPE.search(line):
        return False
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


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
        if has_lone_surrogate(line, value):
            problems.append(Problem(str(path), number, "(line)", "invalid JSON: lone UTF-16 surrogate escape"))
            continue
        yield number, value
