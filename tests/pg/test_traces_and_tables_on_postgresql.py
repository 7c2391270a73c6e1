"""Trace imports and the export tables on the team store: what SQLite gives, PostgreSQL gives."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from qaeval_tui.cli.main import app
from tests.curation_fixtures import demo_copy
from tests.traces.exports import Recorder, genai_trace, langfuse_trace, otlp_json, write

runner = CliRunner()


def qaeval(*args: str) -> Result:
    return runner.invoke(app, list(args))


def _session(target: str, otlp: Path, langfuse: Path) -> dict[str, object]:
    first = qaeval(
        "inbox", "import", str(otlp), "--format", "otlp", "--where", "user.feedback=negative", "--db", target
    )
    assert first.exit_code == 0, first.output
    again = qaeval(
        "inbox", "import", str(otlp), "--format", "otlp", "--where", "user.feedback=negative", "--db", target
    )
    assert "imported 0 new production miss(es)" in again.stdout and "1 already in the inbox" in again.stdout
    assert qaeval("inbox", "import", str(langfuse), "--format", "langfuse", "--db", target).exit_code == 0
    listed = qaeval("inbox", "list", "--json", "--db", target)
    entries = json.loads(listed.stdout)
    for entry in entries:
        entry.pop("imported_at")
    ran = qaeval("run", "--db", target)
    assert ran.exit_code == 0, ran.output
    results = qaeval("results", "export", "--format", "csv", "--db", target).stdout
    verdicts = qaeval("verdicts", "export", "--format", "csv", "--db", target).stdout
    return {
        "inbox": entries,
        "results": re.sub(r"^[^,\n]+,", "RUN,", results, flags=re.MULTILINE),  # run ids differ
        "verdicts": re.sub(r",[^,\n]*$", ",T", verdicts, flags=re.MULTILINE),  # so do the times
    }


def test_the_same_exports_import_and_export_alike_on_both_stores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pg_url: str
) -> None:
    demo_copy(tmp_path)
    monkeypatch.chdir(tmp_path)
    rec = Recorder(seed=71)
    trace = genai_trace(rec)
    genai_trace(rec, feedback="positive")
    otlp = write(tmp_path / "traces.json", otlp_json(rec.spans()))
    langfuse = write(tmp_path / "langfuse.json", json.dumps([langfuse_trace("lf-pg-1")]))
    on_sqlite = _session("store.db", otlp, langfuse)
    on_postgresql = _session(pg_url, otlp, langfuse)
    assert on_postgresql == on_sqlite
    inbox = on_postgresql["inbox"]
    assert isinstance(inbox, list) and {entry["trace_id"] for entry in inbox} == {trace, "lf-pg-1"}
