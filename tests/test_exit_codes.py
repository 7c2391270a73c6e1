"""The README's exit-code table is a contract: every command has a row, every code in a row has a real
scenario that produces it (tests/exit_scenarios.py), and no scenario exits with a code its row lacks.

A README change that adds, drops or reassigns a code therefore fails here until a scenario shows it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from itertools import takewhile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from qaeval_tui.cli.main import app
from tests.exit_scenarios import SCENARIOS, Scenario
from tests.test_docs import README, all_commands

COMMANDS = [name for name, _ in all_commands()]


def exit_table() -> dict[str, dict[int, str]]:
    """Rows of the README's "Exit codes" table: command (without `qaeval`) -> code -> what it means."""
    if "\n### Exit codes\n" not in README:
        return {}
    section = README.split("\n### Exit codes\n", 1)[1]
    section = re.split(r"\n#{2,3} ", section, maxsplit=1)[0]
    table: dict[str, dict[int, str]] = {}
    for command, cell in re.findall(r"^\| `(qaeval[^`]*)` \| (.+?) \|$", section, re.MULTILINE):
        name = command.removeprefix("qaeval").strip()
        assert name not in table, f"two exit-code rows for `{command}`"
        codes = [re.fullmatch(r"\*\*(\d)\*\*\s*(.*)", part.strip(), re.DOTALL) for part in cell.split(" · ")]
        assert all(codes), f"`{command}`: each exit code is written **N** meaning, separated by ' · ': {cell}"
        table[name] = {int(m.group(1)): m.group(2) for m in codes if m}
    return table


EXIT_TABLE = exit_table()


def command_sections() -> list[tuple[list[str], str]]:
    """Each `### \\`qaeval ...\\`` section of the README: the commands its heading names, and its text."""
    sections = []
    for heading, body in re.findall(r"^### (`qaeval.*?)\n(.*?)(?=^#{1,3} |\Z)", README, re.MULTILINE | re.DOTALL):
        names: list[str] = []
        for usage in re.findall(r"`([^`]+)`", heading):
            words = usage.split()
            words = words[1:] if words[0] == "qaeval" else words
            name = " ".join(takewhile(lambda word: re.fullmatch(r"[a-z]+(-[a-z]+)*", word) is not None, words))
            if name not in names:
                names.append(name)
        sections.append((names, body))
    return sections


def stated_codes(text: str, pattern: str) -> list[set[int]]:
    """The codes of every "Exit ..." sentence in `text`, each code written as `pattern` matches it."""
    sentences = re.findall(r"\bExit\s+(.*?\.)(?=\s|$)", text, re.DOTALL)
    return [{int(code) for code in re.findall(pattern, sentence)} for sentence in sentences]


# -- the table is complete, and the rest of the docs agree with it --------------------------------------------


def test_every_command_has_a_row_in_the_exit_code_table() -> None:
    assert len(COMMANDS) >= 17
    missing = [name for name in COMMANDS if name not in EXIT_TABLE]
    assert not missing, f"no documented exit codes for: {', '.join(missing)}"
    stale = [name for name in EXIT_TABLE if name and name not in COMMANDS]
    assert not stale, f"exit codes documented for commands that do not exist: {', '.join(stale)}"
    assert "" in EXIT_TABLE, "qaeval itself (--version, no command) needs a row"
    for name, codes in EXIT_TABLE.items():
        assert 0 in codes and 2 in codes, f"`qaeval {name}`: every command exits 0 on success and 2 on misuse"
        assert all(meaning.strip() for meaning in codes.values()), f"`qaeval {name}`: say what each code means"


def test_each_command_section_states_the_codes_of_its_rows() -> None:
    seen: list[str] = []
    for names, body in command_sections():
        sentences = stated_codes(body, r"\*\*(\d)\*\*")
        assert len(sentences) == 1, f"section of {names}: one 'Exit **N** ...' sentence, found {len(sentences)}"
        expected = set().union(*(EXIT_TABLE[name] for name in names))
        assert sentences[0] == expected, (
            f"section of {names} says exit {sorted(sentences[0])}, table {sorted(expected)}"
        )
        seen.extend(names)
    assert sorted(seen) == sorted(EXIT_TABLE), "every row of the table has a command section, and only one"


def test_help_text_that_states_exit_codes_agrees_with_the_readme() -> None:
    for name, command in all_commands():
        help_text = " ".join((command.help or "").split())
        for codes in stated_codes(help_text, r"(?<![\w.])(\d)(?!\w|\.\d)"):
            assert codes == set(EXIT_TABLE[name]), f"qaeval {name} --help says exit {sorted(codes)}"


# -- every documented code has a scenario, and every scenario a documented code -----------------------------------


def unknown_option(command: str) -> Scenario:
    return Scenario(command, 2, "unknown option", lambda _: [*command.split(), "--no-such-option"], "usage", True)


BAD_OPTION = [unknown_option(name) for name in COMMANDS]
ALL_SCENARIOS = SCENARIOS + BAD_OPTION


def test_every_documented_code_has_a_scenario() -> None:
    covered = {(s.command, s.code) for s in ALL_SCENARIOS}
    missing = [
        f"qaeval {name} -> {code}"
        for name, codes in EXIT_TABLE.items()
        for code in codes
        if (name, code) not in covered
    ]
    assert not missing, f"documented exit codes no scenario produces: {missing}"


def test_every_scenario_expects_a_documented_code_in_its_documented_sense() -> None:
    for s in ALL_SCENARIOS:
        assert s.command in EXIT_TABLE, f"{s.id}: no exit-code row for {s.command!r}"
        meaning = EXIT_TABLE[s.command].get(s.code)
        assert meaning is not None, f"{s.id}: exit {s.code} is not documented for qaeval {s.command}"
        assert s.means.lower() in meaning.lower(), f"{s.id}: README's exit {s.code} means {meaning!r}, not {s.means!r}"
        others = [
            code for code, text in EXIT_TABLE[s.command].items() if code != s.code and s.means.lower() in text.lower()
        ]
        assert not (s.means and others), f"{s.id}: {s.means!r} does not single out exit {s.code} from {others}"


def test_every_command_has_a_bad_input_scenario_of_its_own() -> None:
    """Beyond the unknown option every command gets: a missing file, a bad line, a bad value."""
    lacking = [name for name in EXIT_TABLE if not any(s.command == name and s.bad_input for s in SCENARIOS)]
    assert not lacking, f"no bad-input scenario for: {lacking}"


def run_cli(args: list[str]) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, args)
    crashed = result.exception is not None and not isinstance(result.exception, SystemExit)
    assert not crashed, f"qaeval {' '.join(args)} raised {result.exception!r}"
    return result.exit_code, result.stdout, result.stderr


def run_tui(args: list[str], root: Path, seconds: int) -> tuple[int, str, str]:
    """The real `qaeval review`, headless: it takes a screenshot after `seconds` and quits (Textual's own hook)."""
    env = {
        **os.environ,
        "TEXTUAL_DRIVER": "textual.drivers.headless_driver:HeadlessDriver",
        "TEXTUAL_SCREENSHOT": str(seconds),
        "TEXTUAL_SCREENSHOT_LOCATION": str(root),
    }
    done = subprocess.run(
        [sys.executable, "-m", "qaeval_tui", *args],
        cwd=root,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=seconds + 60,
        check=False,
    )
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize("case", ALL_SCENARIOS, ids=[s.id for s in ALL_SCENARIOS])
def test_scenario_exits_with_its_documented_code(
    case: Scenario, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no stray config, store or labels is picked up
    for variable in ("QAEVAL_REVIEWER", "QAEVAL_CURATOR"):
        monkeypatch.delenv(variable, raising=False)
    args = case.build(tmp_path)
    if case.tui_seconds is None:
        code, out, err = run_cli(args)
    else:
        code, out, err = run_tui(args, tmp_path, case.tui_seconds)
    assert code == case.code, f"qaeval {' '.join(args)} exited {code}, README says {case.code}\n{out}\n{err}"
    assert "Traceback" not in out + err
    if case.bad_input:
        assert err.strip(), "a user mistake is explained on stderr"
