"""CLI tables in a CI log (stdout not a terminal) are not cut at rich's 80 columns; `COLUMNS` still wins."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner, Result

from qaeval_tui.cli.main import app
from tests.conftest import write_jsonl
from tests.curation_fixtures import demo_copy, make_miss

runner = CliRunner()

LONG_QUESTION = (
    "Does the ten-year warranty on the HB-10 heat pump still apply when the outdoor unit was installed "
    "by a contractor who is not on the certified installer list?"
)  # 150 characters: a line of the inbox table is ~190 wide


def inbox_list(tmp_path: Path, env: dict[str, str]) -> Result:
    root = demo_copy(tmp_path)
    misses = write_jsonl(root / "long.jsonl", [make_miss("tr-long-question", question=LONG_QUESTION)])
    config = ["--config", str(root / "qaeval.toml")]
    assert runner.invoke(app, [*config, "inbox", "import", str(misses)]).exit_code == 0
    return runner.invoke(app, [*config, "inbox", "list", "--status", "pending", "--search", "tr-long"], env=env)


def test_a_table_written_to_a_pipe_is_not_cut_at_80_columns(tmp_path: Path) -> None:
    result = inbox_list(tmp_path, env={"COLUMNS": None})  # type: ignore[dict-item]  # None unsets it
    assert result.exit_code == 0
    row = next(line for line in result.stdout.splitlines() if "tr-long-question" in line)
    assert LONG_QUESTION in row and len(row) > 80


def test_columns_set_by_the_user_is_respected(tmp_path: Path) -> None:
    result = inbox_list(tmp_path, env={"COLUMNS": "100"})
    assert result.exit_code == 0
    row = next(line for line in result.stdout.splitlines() if "tr-long-question" in line)
    assert LONG_QUESTION not in row and len(row) <= 100
