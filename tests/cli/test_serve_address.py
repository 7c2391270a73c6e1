"""`qaeval serve` on a team store checks the address before it listens: the server keeps no password."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from qaeval_tui.cli.main import app


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("postgresql://owner:s3cret-pw@127.0.0.1:9/qaeval", "leave the password out"),
        ("postgresql://127.0.0.1:9/qaeval?password=s3cret-pw", "leave the password out"),
        ("postgresql://127.0.0.1:9/qaeval?sslmode=bogus&nosuchkey=1", "not a PostgreSQL URL libpq can read"),
        ("postgresql://127.0.0.1:9/qaeval?options=-csearch_path%3Devil", "options"),
    ],
)
def test_a_team_address_with_a_password_or_unreadable_is_refused_before_listening(url: str, said: str) -> None:
    result = CliRunner().invoke(app, ["serve", "--db", url, "--port", "0"])
    assert result.exit_code == 2, result.output
    assert said in result.stderr and "s3cret-pw" not in result.stdout + result.stderr
