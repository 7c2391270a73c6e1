"""Options a command cannot take together are refused (exit 2, one line naming them) before its store is
opened: nothing is created, nothing is issued, no server is asked."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from qaeval_tui.cli.main import app

runner = CliRunner()


def test_queue_more_labels_names_every_option_it_does_not_take(tmp_path: Path) -> None:
    db = tmp_path / "none.db"
    result = runner.invoke(app, ["queue", "--more-labels", "--overlap", "2", "--replace", "--db", str(db)])
    assert result.exit_code == 2, result.output
    assert "--more-labels assigns existing items and takes --reviewers and --seed only, not --overlap, --replace" in (
        result.stderr
    )
    assert not db.exists() and result.stdout == ""


@pytest.mark.parametrize("option", [["--tokens-only"], ["--new-token", "ana"]])
def test_serve_on_a_team_store_refuses_token_options_before_reaching_it(option: list[str]) -> None:
    # Port 9 (discard) on loopback: nothing answers there, so a refusal here was made before any connection.
    result = runner.invoke(app, ["serve", "--db", "postgresql://127.0.0.1:9/qaeval", "--port", "0", *option])
    assert result.exit_code == 2, result.output
    assert "--new-token, --tokens-only: a team store signs people in with their own login; no tokens" in result.stderr
    assert result.stdout == ""


def test_serve_on_a_sqlite_store_without_a_roster_issues_no_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no config: no roster
    db = tmp_path / "q.db"
    result = runner.invoke(app, ["serve", "--db", str(db), "--tokens-only"])
    assert result.exit_code == 2, result.output
    assert "review.roster: qaeval serve on a SQLite store signs in the members of [review] roster" in result.stderr
    assert list(tmp_path.iterdir()) == [] and result.stdout == ""
