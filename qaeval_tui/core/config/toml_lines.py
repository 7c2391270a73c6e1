"""Where in a TOML file a key was set, so a config error names its line."""

from __future__ import annotations

import re


class TomlLines:
    """Which line of a TOML file set a key, so a config error names it as path:line: field.

    tomllib gives values, not positions. Headers (`[gate.tolerances]`, `[[rubric.axes]]`) and
    `key = value` lines are enough for a config: a problem inside an inline table or a multi-line
    array is placed on the line of the key that holds it.
    """

    _HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
    _KEY = re.compile(r"^\s*([A-Za-z0-9_.\-\"' ]+?)\s*=")

    def __init__(self, text: str, prefix: tuple[str, ...] = ()) -> None:
        self._places: dict[tuple[str | int, ...], int] = {}
        table: tuple[str | int, ...] = ()
        arrays: dict[tuple[str, ...], int] = {}
        for number, line in enumerate(text.split("\n"), start=1):
            header = self._HEADER.match(line)
            if header:
                names = self._names(header[2])
                if header[1] == "[[":
                    arrays[names] = arrays.get(names, -1) + 1
                    table = (*names, arrays[names])
                else:
                    table = names
                self._places.setdefault(table, number)
                continue
            key = self._KEY.match(line)
            if key:
                self._places.setdefault((*table, *self._names(key[1])), number)
        self._prefix = prefix

    @staticmethod
    def _names(dotted: str) -> tuple[str, ...]:
        return tuple(part.strip().strip("\"'") for part in dotted.split("."))

    def line_of(self, loc: tuple[str | int, ...]) -> int | None:
        """The line of `loc` (a pydantic error location), or of the nearest enclosing key that has one."""
        full = (*self._prefix, *loc)
        for end in range(len(full), 0, -1):
            line = self._places.get(full[:end])
            if line is not None:
                return line
        return None
