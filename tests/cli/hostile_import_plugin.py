"""A plug-in module whose import fails with a message that tries to print a second `error:` line."""

from tests.cli.hostile_plugins import FORGED

raise ValueError(FORGED)
