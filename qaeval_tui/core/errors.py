"""Errors the CLI and TUI turn into clear messages and exit codes (never tracebacks)."""

from __future__ import annotations

from dataclasses import dataclass

from qaeval_tui.core.text import one_line


class QaevalError(Exception):
    """Base for user-facing errors: the message is meant to be read by a person."""

    exit_code = 2


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong with one line of one input file."""

    path: str
    line: int
    field: str
    message: str

    def __str__(self) -> str:
        # One problem, one line: a newline in a column name or a quoted value must not print a
        # second line that reads like another (made-up) problem.
        return f"{one_line(self.path)}:{self.line}: {one_line(self.field)}: {one_line(self.message)}"


@dataclass(frozen=True, order=True)
class SpanProblem(Problem):
    """One thing wrong with one span (or trace, or observation) of a trace export, located by its id.

    `line` is the span's position in the file, so problems sort in file order; it is not printed.
    """

    span: str = ""

    def __str__(self) -> str:
        return f"{one_line(self.path)}:{one_line(self.span)}: {one_line(self.field)}: {one_line(self.message)}"


class InputError(QaevalError):
    """Invalid input data: every problem found, each naming file, line and field.

    Nothing is loaded or written when this is raised.
    """

    exit_code = 1

    def __init__(self, problems: list[Problem], what: str = "input") -> None:
        self.problems = sorted(problems)
        self.what = what
        count = len(self.problems)
        super().__init__(
            f"{count} problem{'s' if count != 1 else ''} in {what}:\n" + "\n".join(map(str, self.problems))
        )


class UsageError(QaevalError):
    """A mistake in how a command was called or configured (exit 2)."""

    exit_code = 2


class ConfigError(UsageError):
    """An invalid configuration file (exit 2)."""
