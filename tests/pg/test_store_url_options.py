"""Server settings that move the store's tables out of reach (a URL's `options`, `PGOPTIONS`) are one
line naming the store (exit 2), never a traceback; a URL's `options` parameter is refused outright."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from qaeval_tui.cli.main import app


@pytest.mark.parametrize("command", [["flags", "list"], ["agreement"], ["team", "list"]])
@pytest.mark.parametrize("option", ["options=-csearch_path%3Devil", "options=-c%20search_path%3Dpg_catalog"])
def test_a_url_with_server_options_is_refused_in_one_line(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str], option: str
) -> None:
    monkeypatch.chdir(tmp_path)
    url = pg_url + ("&" if "?" in pg_url else "?") + option
    result = CliRunner().invoke(app, [*command, "--db", url])
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit)
    (line,) = result.stderr.strip().splitlines()
    assert "`options` parameter is refused" in line


@pytest.mark.parametrize("setting", ["-csearch_path=evil", "-csearch_path=pg_catalog"])
def test_pgoptions_that_hide_the_store_are_one_line_not_a_traceback(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, setting: str
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PGOPTIONS", setting)
    result = CliRunner().invoke(app, ["flags", "list", "--db", pg_url])
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit), result.exception
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: ") and "Traceback" not in result.output
