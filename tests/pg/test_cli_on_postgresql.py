"""The CLI against a PostgreSQL URL does what it does against a SQLite file, and names a bad target on one line.

The same session (run the demo suite, import the demo labels, queue the run, export the labels,
agreement) goes once to a SQLite file and once to a PostgreSQL database: every output is the
same, and the exported label files are byte for byte the same.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import psycopg
import pytest
from typer.testing import CliRunner, Result

from qaeval_tui.cli.main import app
from tests.conftest import REPO
from tests.curation_fixtures import demo_copy
from tests.pg.server import PgServer

runner = CliRunner()


def qaeval(*args: str) -> Result:
    return runner.invoke(app, list(args))


def _session(target: str, out: str) -> dict[str, str]:
    """What the user sees of one session against `target`; run ids (new each run) and the store's name replaced."""
    ran = qaeval("run", "--db", target)
    assert ran.exit_code == 0, ran.output
    imported = qaeval("labels", "import", "labels", "--db", target)
    assert imported.exit_code == 0, imported.output
    queued = qaeval("queue", "--reviewers", "ana,ben,chloe", "--overlap", "2", "--seed", "7", "--db", target)
    assert queued.exit_code == 0, queued.output
    exported = qaeval("labels", "export", "--verdicts", "--db", target, "--out", out)
    assert exported.exit_code == 0, exported.output
    agreement = qaeval("agreement", "--json", "--db", target)
    assert agreement.exit_code == 0, agreement.output
    outputs = {"run": ran.stdout, "import": imported.stdout, "queue": queued.stdout, "agreement": agreement.stdout}
    run_ids = set(re.findall(r"\b\d{8}T\d{6}[\w-]*", ran.stdout + queued.stdout))
    for name, text in outputs.items():
        for run_id in run_ids:
            text = text.replace(run_id, "RUN")
        text = re.sub(r'"source": "store [^"]*"', '"source": "store STORE"', text)  # names the store it read
        outputs[name] = text.replace(out, "OUT")
    return outputs


def _files(folder: Path) -> dict[str, bytes]:
    """The exported files; the verdicts' times (when each run judged) replaced, every label file byte for byte."""
    files = {path.name: path.read_bytes() for path in sorted(folder.iterdir())}
    stamp = rb'"created_at": "[^"]*"'
    files["judge-verdicts.jsonl"] = re.sub(stamp, b'"created_at": "T"', files["judge-verdicts.jsonl"])
    return files


def test_a_session_against_postgresql_gives_what_it_gives_against_sqlite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pg_url: str
) -> None:
    demo_copy(tmp_path)
    shutil.copytree(REPO / "labels", tmp_path / "labels")
    monkeypatch.chdir(tmp_path)
    on_sqlite = _session("store.db", "out-sqlite")
    on_postgresql = _session(pg_url, "out-postgresql")
    assert on_postgresql == on_sqlite
    exported = _files(tmp_path / "out-postgresql")
    assert exported == _files(tmp_path / "out-sqlite") and "ana.jsonl" in exported
    with psycopg.connect(pg_url) as conn:  # the session's writes are in the database, not a file beside it
        assert conn.execute("SELECT count(*) FROM runs").fetchone() == (1,)
    assert not Path("postgresql:").exists()


def test_qaeval_db_names_the_store_unless_db_is_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pg_url: str
) -> None:
    demo_copy(tmp_path)
    (tmp_path / "qaeval.toml").write_text('[paths]\nstore = "from-config.db"\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("QAEVAL_DB", pg_url)
    assert qaeval("run").exit_code == 0
    assert qaeval("run", "--db", "given.db").exit_code == 0
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT count(*) FROM runs").fetchone() == (1,)
    assert Path("given.db").is_file() and not Path("from-config.db").exists()
    monkeypatch.delenv("QAEVAL_DB")
    assert qaeval("run").exit_code == 0 and Path("from-config.db").is_file()


def test_paths_store_may_be_a_postgresql_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pg_url: str) -> None:
    demo_copy(tmp_path)
    (tmp_path / "qaeval.toml").write_text(f'[paths]\nstore = "{pg_url}"\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("QAEVAL_DB", raising=False)
    assert qaeval("run").exit_code == 0
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT count(*) FROM runs").fetchone() == (1,)


@pytest.mark.parametrize(
    ("target", "shown"),
    [
        ("postgresql://ana:s3cret-pw@127.0.0.1:{closed}/qaeval", "postgresql://ana:***@127.0.0.1:{closed}/qaeval"),
        ("postgres://ana@127.0.0.1:{port}/no_such_db?password=s3cret-pw", "postgres://ana@127.0.0.1:{port}/no_such_db"),
        ("postgresql://postgres:s3cret-pw@127.0.0.1:{port}/postgres", "postgresql://postgres:***@127.0.0.1:{port}"),
        ("mysql://ana:s3cret-pw@db/qaeval", "mysql://ana:***@db/qaeval: not a store"),
        (  # the client key's passphrase is as secret as the login's
            "postgresql://ana@127.0.0.1:{closed}/qaeval?sslpassword=s3cret-pw",
            "postgresql://ana@127.0.0.1:{closed}/qaeval?sslpassword=***",
        ),
    ],
)
def test_an_unusable_store_url_is_exit_2_naming_it_without_its_password(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pg_server: PgServer, target: str, shown: str
) -> None:
    demo_copy(tmp_path)
    monkeypatch.chdir(tmp_path)
    closed = 1  # nothing listens there
    target = target.format(closed=closed, port=pg_server.port)
    result = qaeval("queue", "--db", target)
    assert result.exit_code == 2, result.output
    assert "s3cret-pw" not in result.output
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: ") and shown.format(closed=closed, port=pg_server.port) in line
    assert sorted(path.name for path in tmp_path.iterdir()) == ["golden", "qaeval.toml"]  # no file made of a URL
