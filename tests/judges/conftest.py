"""Fixtures the judge tests share: the CLI tests' four-case suite, the same fixture, not a copy."""

from tests.cli.conftest import suite

__all__ = ["suite"]
