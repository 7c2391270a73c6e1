"""A message from user code (an adapter, a judge, their factories) prints as one line, never two.

`ValueError("boom\\nerror: forged second line")` from a factory used to print a second line on
stderr that a person, or a CI log scanner, reads as another error from qaeval.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from qaeval_tui.cli.main import app
from qaeval_tui.core.models.run import SUTOutput
from qaeval_tui.core.running.adapters import describe_failure
from qaeval_tui.core.running.runner import call_adapter
from tests.cli.hostile_plugins import FORGED
from tests.conftest import DEMO_GOLDEN

runner = CliRunner()
PLUGINS = "tests.cli.hostile_plugins"


@pytest.mark.parametrize(
    ("option", "spec", "said"),
    [
        ("--adapter", f"{PLUGINS}:make_forging_factory", "the factory raised ValueError: boom error: forged"),
        ("--judge", f"{PLUGINS}:make_forging_factory", "the factory raised ValueError: boom error: forged"),
        ("--judge", f"{PLUGINS}:make_forging_config_judge", "reading the judge's config failed: ValueError: boom"),
        ("--adapter", "tests.cli.hostile_import_plugin:make", "failed: ValueError: boom error: forged"),
        ("--adapter", f"{PLUGINS}:make_forging_type", "the factory returned Hub error: forged second line\\x1b[31m,"),
        ("--judge", f"{PLUGINS}:make_forging_type", "the factory returned Hub error: forged second line\\x1b[31m,"),
    ],
)
def test_a_message_from_user_code_is_one_error_line(tmp_path: Path, option: str, spec: str, said: str) -> None:
    result = runner.invoke(app, ["run", "--data", str(DEMO_GOLDEN), "--db", str(tmp_path / "runs.db"), option, spec])
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {option} ")
    assert said in lines[0] and "\x1b" not in result.stderr


def test_a_case_failure_message_is_one_line_wherever_it_is_stored() -> None:
    class Forging:
        def answer(self, view: object) -> SUTOutput:
            raise ValueError(FORGED)

    assert describe_failure(ValueError(FORGED)) == "ValueError: boom error: forged second line\\x1b[31m"
    output = call_adapter(Forging(), object())  # type: ignore[arg-type]
    assert output.error == "ValueError: boom error: forged second line\\x1b[31m"
    named = type("Bad\nName", (Exception,), {})
    assert describe_failure(named("x\ny")) == "Bad Name: x y"
