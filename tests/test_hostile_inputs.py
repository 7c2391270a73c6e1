"""The hostile-input sweep (tests/hostile.py) over the inputs issue 20 added or hardened: store URLs,
plan and gate numbers, HTTP system replies, verdict and label files, stored label rows and their
quarantine. Each runs through the CLI; none may end in a traceback or send a raw control byte
(ESC, C1, BEL, a bidi control) to the terminal, and a credential in a URL is never shown.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from qaeval_tui.cli.main import app
from tests.conftest import REPO
from tests.hostile import HOSTILE, raw_controls
from tests.judgeops.sut_server import Reply, serve
from tests.judgeops.test_http_adapter import configure, golden, run

runner = CliRunner()
SECRET = "Own3rSecret"
BASELINE = str(REPO / "baselines" / "demo.json")


def clean(result: Result, *, codes: tuple[int, ...] = (0, 1, 2, 3)) -> str:
    """Both streams, checked: a documented exit, no traceback, no raw control byte."""
    both = result.stdout + result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code in codes, both
    assert raw_controls(both) == [], both
    assert "Traceback" not in both
    return both


# -- store URLs ------------------------------------------------------------------------------------

URLS = [
    f"postgresql://owner:{SECRET}{HOSTILE}@127.0.0.1:1/qaeval",
    f"postgresql://owner:{SECRET}@127.0.0.1:1/{HOSTILE}",
    f"postgresql://{HOSTILE}:{SECRET}@127.0.0.1:1/qaeval",
    f"postgresql://owner:{SECRET}@127.0.0.1:1/qaeval?application_name={HOSTILE}",
    f"postgresql://owner:{SECRET}@[{HOSTILE}/qaeval",
    f"postgres://owner:{SECRET}@127.0.0.1:1/qaeval?options={HOSTILE}",
    f"mysql://owner:{SECRET}@{HOSTILE}",
]


@pytest.mark.parametrize("url", URLS, ids=range(len(URLS)))
@pytest.mark.parametrize("command", [["agreement"], ["labels", "check"], ["team", "list"], ["flags", "list"]])
def test_hostile_store_urls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, url: str, command: list[str]) -> None:
    monkeypatch.chdir(tmp_path)
    for result in (
        runner.invoke(app, [*command, "--db", url]),
        runner.invoke(app, command, env={"QAEVAL_DB": url}),
        runner.invoke(app, ["store", "copy", "--from", url, "--to", "copy.db"]),
    ):
        assert SECRET not in clean(result, codes=(2,))


# -- plan and gate numbers -------------------------------------------------------------------------


@pytest.mark.parametrize("mde", ["nan", "inf", "-inf", "-0", "0", "1e-400", "1e400", "5e-324", "1e-155", HOSTILE])
def test_hostile_plan_targets(mde: str) -> None:
    clean(runner.invoke(app, ["plan", "--baseline", BASELINE, "--mde", mde]), codes=(0, 2))


@pytest.mark.parametrize("tolerance", ["nan", "inf", "-0.0", "1e-300", "5e-324", "1e-400", json.dumps(HOSTILE)])
def test_hostile_gate_tolerances(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tolerance: str) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "qaeval.toml").write_text(
        f'[gate]\nmode = "statistical"\n[gate.tolerances]\ncitation_coverage = {tolerance}\n', encoding="utf-8"
    )
    clean(runner.invoke(app, ["plan", "--baseline", BASELINE]), codes=(0, 2))
    clean(runner.invoke(app, ["gate", "--baseline", BASELINE, "--data", str(REPO / "golden")]))


# -- HTTP system replies ---------------------------------------------------------------------------

HOSTILE_BYTES = HOSTILE.encode()
REPLIES = [
    Reply(body={"answer": HOSTILE, "citations": [{"source_id": HOSTILE}], "computed": {HOSTILE: HOSTILE}}),
    Reply(body={HOSTILE: 1, "answer": "x"}),  # an unknown key named by the data
    Reply(
        body=b'{"answer": "x", "'
        + json.dumps(HOSTILE)[1:-1].encode()
        + b'": 1, "'
        + json.dumps(HOSTILE)[1:-1].encode()
        + b'": 2}'
    ),  # a key, named by the data, given twice
    Reply(body=b"\x1b[2J" + HOSTILE_BYTES),  # not JSON
    Reply(body=b"\xff\xfe" + HOSTILE_BYTES),  # not UTF-8
    Reply(status=503, headers={"Retry-After": "\x1b[2J"}, body={"answer": "x"}),
    Reply(body=b'{"answer": "x", "abstained": NaN}'),
]


@pytest.mark.parametrize("reply", REPLIES, ids=range(len(REPLIES)))
def test_hostile_http_replies(tmp_path: Path, reply: Reply) -> None:
    golden(tmp_path, 1)
    with serve(lambda request, attempt: reply) as system:
        result = run(tmp_path, configure(tmp_path, system.url, max_retries=0, max_reply_bytes=100_000))
    clean(result, codes=(0,))


# -- verdict and label files, stored label rows ----------------------------------------------------


def test_hostile_verdict_and_label_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    lines = [
        {"item_id": HOSTILE, "case_id": HOSTILE, "faithfulness": HOSTILE, "scores": {"faithfulness": HOSTILE}},
        {"item_id": "i1", "case_id": "c1", "faithfulness": 2, "scores": {"faithfulness": 0}},
        {"item_id": "i2", "case_id": "c2", HOSTILE: 1, "created_at": HOSTILE},
    ]
    (tmp_path / "v.jsonl").write_text("\n".join(map(json.dumps, lines)) + "\n", encoding="utf-8")
    both = clean(runner.invoke(app, ["verdicts", "import", "v.jsonl", "--judge-name", HOSTILE, "--out", "o.jsonl"]))
    assert "given twice" in both
    label = {
        "item_id": "i1", "case_id": "c1", "reviewer": "ana", "scores": {"faithfulness": 2}, "note": HOSTILE * 2_000,
        "flagged": False, "skipped": False, "rubric_version": "1", "revealed": False, "revision": 1,
        "created_at": HOSTILE, "seconds_spent": 1.0,
    }  # fmt: skip
    dated = {**label, "note": "", "revision": 2}  # a note too long stops the line before its date is read
    (tmp_path / "ana.jsonl").write_text(json.dumps(label) + "\n" + json.dumps(dated) + "\n", encoding="utf-8")
    both = clean(runner.invoke(app, ["labels", "import", "ana.jsonl", "--db", "s.db"]), codes=(1,))
    assert "ana.jsonl:1: note" in both and "ana.jsonl:2: created_at" in both


def test_hostile_stored_label_rows_and_their_quarantine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert runner.invoke(app, ["labels", "import", str(REPO / "labels"), "--db", "s.db"]).exit_code == 0
    good = {"scores_json": '{"faithfulness": 2}', "note": "", "created_at": "2026-11-02T00:00:00Z"}
    bad_rows = {
        9001: {"created_at": HOSTILE},
        9002: {"scores_json": json.dumps({HOSTILE: 1})},
        9003: {"scores_json": HOSTILE},
        9004: {"note": HOSTILE * 2_000},
    }
    with sqlite3.connect(tmp_path / "s.db") as conn:
        for row_id, changed in bad_rows.items():
            values = {**good, **changed}
            conn.execute(
                """INSERT INTO labels (id, item_id, case_id, reviewer, revision, scores_json, note, flagged, skipped,
                                       rubric_version, revealed, created_at, seconds_spent, origin)
                   SELECT ?, item_id, case_id, ?, 1, ?, ?, 0, 0, rubric_version, 0, ?, 1.0, 'hand'
                   FROM labels LIMIT 1""",
                (row_id, f"zed{row_id}", values["scores_json"], values["note"], values["created_at"]),
            )
    listed = clean(runner.invoke(app, ["labels", "check", "--db", "s.db"]), codes=(1,))
    assert all(f"{row_id}" in listed for row_id in bad_rows)
    for command in (["labels", "check", "--json"], ["agreement"], ["labels", "export", "--out", "out"]):
        clean(runner.invoke(app, [*command, "--db", "s.db"]), codes=(1, 2))
    for row_id in bad_rows:
        result = runner.invoke(
            app, ["labels", "quarantine", str(row_id), "--reason", HOSTILE, "--curator", "dana", "--db", "s.db"]
        )
        clean(result, codes=(0,))
    clean(runner.invoke(app, ["labels", "check", "--db", "s.db"]), codes=(0,))
    clean(runner.invoke(app, ["labels", "check", "--json", "--db", "s.db"]), codes=(0,))
    clean(runner.invoke(app, ["agreement", "--db", "s.db"]), codes=(0,))
