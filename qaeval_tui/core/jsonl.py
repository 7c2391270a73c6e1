"""Reading JSON-object-per-line files the same strict way everywhere."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from qaeval_tui.core.errors import Problem


def json_object_lines(text: str, path: Path | str, problems: list[Problem]) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for every non-blank line; problems are collected, not raised.

    Splits on "\\n" only: str.splitlines() would also split inside a string holding U+2028 or a
    form feed, cutting one record in two and shifting every later line number.
    """
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(Problem(str(path), number, "(line)", f"invalid JSON: {exc.msg} at column {exc.colno}"))
            continue
        if not isinstance(value, dict):
            problems.append(Problem(str(path), number, "(line)", "each line must be a JSON object"))
            continue
        yield number, value
