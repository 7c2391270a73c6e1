"""A store URL's credentials never reach an output, however the URL is written (issue: a masker
that read URLs as web URLs showed the owner's password): read as libpq reads it, and when in
doubt show no credential at all. Swept through every command that opens a store, by `--db` and by
`$QAEVAL_DB`, against a port where nothing listens (the driver's own message included)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from qaeval_tui.cli.main import app
from qaeval_tui.core.store.urls import redacted, scrubbed, secrets
from tests.test_docs import all_commands

SECRET = "Own3rSecret"
HOSTILE_URLS = {
    "hash in the password": f"postgresql://owner:{SECRET}#x@127.0.0.1:1/qaeval",
    "question mark in the password": f"postgresql://owner:{SECRET}?x@127.0.0.1:1/qaeval",
    "at sign in the password": f"postgresql://owner:ab@{SECRET}@127.0.0.1:1/qaeval",
    "unclosed IPv6 bracket": f"postgresql://owner:{SECRET}@[::1:1/qaeval",
    "unclosed bracket, hash": f"postgres://owner:{SECRET}#@[fe80::1/qaeval",
    "password parameter with a hash": f"postgresql://owner@127.0.0.1:1/qaeval?password={SECRET}%23x",
    "sslpassword, odd case": f"postgresql://127.0.0.1:1/qaeval?SSLPassword={SECRET}",
    "control byte": f"postgresql://owner:{SECRET}@127.0.0.1:1/qa\x1b[31meval",
    "options parameter": f"postgresql://owner:{SECRET}@127.0.0.1:1/qaeval?options=-csearch_path%3Devil",
}
# Every command taking `--db` is swept, the apps too (nothing listens there: they stop before starting).
SKIPPED: set[str] = set()
DUMMY = {"trace_id": "t1", "label_id": "1", "flag_id": "1", "name": "ana", "paths": "none.jsonl"}


def _invocation(name: str, command: object) -> list[str]:
    args = name.split()
    for param in command.params:  # type: ignore[attr-defined]
        if not param.required:
            continue
        if param.param_type_name == "argument":
            args.append(DUMMY.get(param.name, "x"))
        else:
            args += [param.opts[0], "reviewer" if param.opts[0] == "--role" else "x"]
    return args


DB_COMMANDS = [
    (name, _invocation(name, command))
    for name, command in all_commands()
    if name not in SKIPPED and any("--db" in param.opts for param in command.params)
]


@pytest.mark.parametrize("url", HOSTILE_URLS.values(), ids=HOSTILE_URLS.keys())
def test_the_masker_shows_no_credential_of_a_hostile_url(url: str) -> None:
    shown = redacted(url)
    assert SECRET not in shown and "\x1b" not in shown
    assert SECRET in "".join(secrets(url)) or shown.endswith("(credentials hidden)")
    for secret in secrets(url):  # libpq quotes the whole URI, or one parameter's value, in its messages
        assert SECRET not in scrubbed(f'invalid URI "{url}"; bad value "{secret}"', url)


@pytest.mark.parametrize("how", ["--db", "QAEVAL_DB"])
@pytest.mark.parametrize("url", HOSTILE_URLS.values(), ids=HOSTILE_URLS.keys())
def test_no_command_prints_a_credential_of_the_store_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, url: str, how: str
) -> None:
    monkeypatch.chdir(tmp_path)
    assert len(DB_COMMANDS) >= 20
    runner = CliRunner()
    commands = [*DB_COMMANDS, ("store copy", ["store", "copy", "--from", url, "--to", "copy.db"])]
    commands.append(("store copy", ["store", "copy", "--from", "none.db", "--to", url]))
    for name, args in commands:
        env = {}
        if how == "--db" and name != "store copy":
            args = [*args, "--db", url]
        else:
            env["QAEVAL_DB"] = url
        result = runner.invoke(app, args, env=env)
        output = result.stdout + result.stderr
        assert result.exception is None or isinstance(result.exception, SystemExit), (name, result.exception)
        assert SECRET not in output, f"qaeval {' '.join(args)}:\n{output}"
        assert "\x1b" not in output and "Traceback" not in output, f"qaeval {name}:\n{output}"


@pytest.mark.parametrize("password", [f"{SECRET}#x", f"{SECRET}?x", f"{SECRET}%23x"])
def test_the_url_handed_to_a_member_holds_nothing_of_the_owners_password(password: str) -> None:
    from qaeval_tui.core.store.pg_team import member_url

    owner = f"postgresql://owner:{password}@db.example:5433/qaeval?sslmode=require&password={SECRET}"
    handed = member_url(owner, "ana", "her-pw")
    assert handed == "postgresql://ana:her-pw@db.example:5433/qaeval?sslmode=require"
    assert SECRET not in handed and "owner" not in handed
