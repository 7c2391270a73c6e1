"""`labels export --verdicts` writes one verdict per item per judge config (the latest), merged into
the file like label files: every rerun stores verdicts again, and the export must not grow with them."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from qaeval_tui.cli.main import app
from tests.conftest import DEMO_GOLDEN

runner = CliRunner()


def test_three_runs_export_one_verdict_per_item_and_a_teammates_line_is_kept(tmp_path: Path) -> None:
    db, out = str(tmp_path / "s.db"), tmp_path / "labels"
    for _ in range(3):
        assert runner.invoke(app, ["run", "--data", str(DEMO_GOLDEN), "--db", db]).exit_code == 0
    assert runner.invoke(app, ["queue", "--db", db]).exit_code == 0
    exported = runner.invoke(app, ["labels", "export", "--db", db, "--out", str(out), "--verdicts"])
    assert exported.exit_code == 0, exported.output
    path = out / "judge-verdicts.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    keys = {(json.loads(line)["item_id"], json.loads(line)["judge"]["config_hash"]) for line in lines}
    assert len(lines) == len(keys) == 39

    teammate = json.loads(lines[0])
    teammate["item_id"], teammate["created_at"] = "f" * 33, "2026-01-01T00:00:00Z"
    path.write_text("\n".join([*lines, json.dumps(teammate)]) + "\n", encoding="utf-8")
    assert runner.invoke(app, ["run", "--data", str(DEMO_GOLDEN), "--db", db]).exit_code == 0
    again = runner.invoke(app, ["labels", "export", "--db", db, "--out", str(out), "--verdicts"])
    assert again.exit_code == 0, again.output
    assert path.read_text(encoding="utf-8").splitlines() == [*lines, json.dumps(teammate)]


def test_a_line_that_is_no_verdict_is_named_and_nothing_is_written(tmp_path: Path) -> None:
    db, out = str(tmp_path / "s.db"), tmp_path / "labels"
    assert runner.invoke(app, ["run", "--data", str(DEMO_GOLDEN), "--db", db]).exit_code == 0
    out.mkdir()
    (out / "judge-verdicts.jsonl").write_text('{"not": "a verdict"}\n', encoding="utf-8")
    result = runner.invoke(app, ["labels", "export", "--db", db, "--out", str(out), "--verdicts"])
    assert result.exit_code == 1
    assert "judge-verdicts.jsonl:1: (line): not a judge verdict line" in result.stderr
    assert (out / "judge-verdicts.jsonl").read_text(encoding="utf-8") == '{"not": "a verdict"}\n'
