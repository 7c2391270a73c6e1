"""An option several commands share means one thing: the same flag shows the same help text in every
command that has it (declared once, in cli/options.py), so `--db` cannot drift into four wordings."""

from __future__ import annotations

from collections import defaultdict

from tests.test_docs import all_commands

SHARED = [
    "--db",
    "--json",
    "--data",
    "--adapter",
    "--judge",
    "--workers",
    "--labels",
    "--markdown",
    "--html",
    "--include-post-reveal",
    "--curator",
]


def test_a_shared_option_reads_the_same_in_every_command() -> None:
    helps: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for name, command in all_commands():
        for param in command.params:
            for flag in getattr(param, "opts", []):
                if flag in SHARED:
                    helps[flag][param.help or ""].append(name)
    assert set(helps) == set(SHARED), f"no command has {set(SHARED) - set(helps)}"
    for flag, wordings in helps.items():
        assert len(wordings) == 1, f"{flag} has {len(wordings)} help texts: {dict(wordings)}"
    assert len(helps["--db"][next(iter(helps["--db"]))]) >= 12  # every command that opens the store
