"""`qaeval calibrate --out`: the versioned calibration artifact the gate reads, and the demo's committed one."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from qaeval_tui.cli.main import app
from qaeval_tui.core.config import load_config
from qaeval_tui.core.gate.calibration_file import read_calibration
from qaeval_tui.core.store.sqlite import Store
from tests.conftest import DEMO_GOLDEN, REPO

runner = CliRunner()
COMMITTED = REPO / "baselines" / "calibration.json"


@pytest.fixture
def labels_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty folder holding a copy of the demo labels, as the working directory: no config, no store."""
    shutil.copytree(REPO / "labels", tmp_path / "labels")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def calibrate(*args: str) -> Result:
    return runner.invoke(app, ["calibrate", *args])


def test_calibrate_out_writes_the_versioned_artifact_bound_to_judge_rubric_and_labels(labels_here: Path) -> None:
    made = calibrate("--labels", "labels", "--out", "calibration.json")
    assert made.exit_code == 1, made.output  # RETUNE: the artifact is written whatever the verdict
    assert "calibration artifact written to calibration.json" in made.stderr
    report = json.loads(calibrate("--labels", "labels", "--json").stdout)
    artifact = json.loads((labels_here / "calibration.json").read_text())
    assert artifact["format"] == "qaeval-calibration" and artifact["version"] == 1
    assert artifact["judge_config_hash"] == report["judge_config_hash"]
    assert artifact["rubric_version"] == report["rubric_version"] == "1"
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", artifact["labels_hash"])
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", artifact["verdicts_hash"])
    assert artifact["verdict"] == report["verdict"] and artifact["labels"] == report["labels"]
    assert list(artifact["axes"]) == list(report["axes"])
    for name, row in report["axes"].items():
        entry = artifact["axes"][name]
        assert (entry["verdict"], entry["reason"], entry["n"]) == (row["verdict"], row["verdict_reason"], row["n"])
        assert entry["figures"] == {k: v for k, v in row.items() if k not in ("verdict", "verdict_reason")}
    loaded = read_calibration(labels_here / "calibration.json", "--calibration")
    assert loaded.artifact.axes["citation_correctness"].verdict == "RETUNE"
    again = calibrate("--labels", "labels", "--out", "again.json")
    assert again.exit_code == 1
    assert (labels_here / "again.json").read_bytes() == (labels_here / "calibration.json").read_bytes()


def test_the_labels_hash_is_the_same_from_files_and_a_store_and_moves_with_labels_and_rulings(
    labels_here: Path,
) -> None:
    assert calibrate("--labels", "labels", "--out", "files.json").exit_code == 1
    db = str(labels_here / "q.db")
    assert runner.invoke(app, ["run", "--data", str(DEMO_GOLDEN), "--db", db]).exit_code == 0
    assert runner.invoke(app, ["labels", "import", "labels", "--db", db]).exit_code == 0
    assert calibrate("--db", db, "--out", "store.json").exit_code == 1

    def artifact(name: str) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((labels_here / name).read_text())
        return data

    assert artifact("files.json")["labels_hash"] == artifact("store.json")["labels_hash"]
    item_id = next(iter(artifact("store.json")["axes"]["faithfulness"]["figures"]["unresolved_items"]))
    with Store.open(Path(db)) as store:  # a curator's ruling on an item the reviewers split on
        store.insert_adjudication(item_id, "faithfulness", 2, "rubric anchor 3", "dana")
    assert calibrate("--db", db, "--out", "ruled.json").exit_code == 1
    assert artifact("ruled.json")["labels_hash"] != artifact("store.json")["labels_hash"]
    # One reviewer's scores changed in a copy of the files (each moved one step on the 0-2 scale): another hash.
    ana = labels_here / "labels" / "ana.jsonl"
    revisions = [json.loads(line) for line in ana.read_text().splitlines()]
    for revision in revisions:
        revision["scores"] = {a: None if s is None else (s + 1) % 3 for a, s in revision["scores"].items()}
    ana.write_text("".join(json.dumps(revision) + "\n" for revision in revisions))
    assert calibrate("--labels", "labels", "--out", "edited.json").exit_code in (0, 1, 3)
    assert artifact("edited.json")["labels_hash"] != artifact("files.json")["labels_hash"]


def test_calibrate_out_refuses_a_folder_or_a_second_claim_on_stdout_before_computing(labels_here: Path) -> None:
    (labels_here / "folder").mkdir()
    refused = calibrate("--labels", "labels", "--out", "folder")
    assert refused.exit_code == 2 and "folder: cannot write: it is a folder" in refused.stderr
    both = calibrate("--labels", "labels", "--out", "-", "--json")
    assert both.exit_code == 2 and "--json and --out - both write to stdout" in both.stderr
    printed = calibrate("--labels", "labels", "--out", "-")
    assert printed.exit_code == 1 and json.loads(printed.stdout)["format"] == "qaeval-calibration"


def test_an_existing_artifact_is_replaced_whole_keeping_its_permissions(labels_here: Path) -> None:
    target = labels_here / "calibration.json"
    target.write_text("old")
    os.chmod(target, 0o640)
    assert calibrate("--labels", "labels", "--out", str(target)).exit_code == 1
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert json.loads(target.read_text())["format"] == "qaeval-calibration"
    assert not [p.name for p in labels_here.iterdir() if p.name.endswith(".tmp")]


def test_the_committed_calibration_is_what_make_calibration_makes_of_the_committed_labels(labels_here: Path) -> None:
    # The same command the Makefile runs (`make calibration`), in a folder with the labels and the repo's
    # config alone: a repo [calibration] or [rubric] must reach the committed artifact.
    makefile = (REPO / "Makefile").read_text()
    assert "--config qaeval.toml calibrate --labels labels" in makefile and "baselines/calibration.json" in makefile
    assert "cp qaeval.toml" in makefile
    shutil.copy(REPO / "qaeval.toml", labels_here / "qaeval.toml")
    runner.invoke(app, ["--config", "qaeval.toml", "calibrate", "--labels", "labels", "--out", "calibration.json"])
    fresh = (labels_here / "calibration.json").read_text()
    assert fresh == COMMITTED.read_text(), (
        "baselines/calibration.json is stale for the committed labels, judge and calibration rules: "
        "run `make calibration` and commit the diff"
    )


def test_the_demo_config_gates_with_the_committed_calibration(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    config = load_config()
    assert config.gate.calibration is not None and config.path(config.gate.calibration) == REPO / COMMITTED.relative_to(
        REPO
    )
    committed = json.loads(COMMITTED.read_text())
    args = ["gate", "--data", "golden", "--baseline", "baselines/demo.json", "--db", str(tmp_path / "ci.db")]
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["calibration"]["status"] == "calibrated"
    assert document["calibration"]["path"] == "baselines/calibration.json"
    assert document["axis_trust"] == {name: row["verdict"] for name, row in committed["axes"].items()}
    assert "baselines/calibration.json" in (REPO / ".ci" / "run").read_text()


def test_the_console_bar_names_the_sizes_that_decide_trust(labels_here: Path) -> None:
    # Review of issue 12, item 7: "bar: exact >= 0.70 with n >= 20" suggested 20 items could make an axis
    # TRUSTED; under the interval rule alpha's interval needs 50, and the bar says so.
    console = calibrate("--labels", "labels")
    bar = next(line for line in console.stdout.splitlines() if "bar: " in line)
    assert "with n >= 20 on every axis" not in bar
    assert "lower bounds of exact agreement >= 0.70 and of alpha above 0.00" in bar
    assert "alpha's interval needs n >= 50" in bar and "interval rule" in bar
    (labels_here / "qaeval.toml").write_text('[calibration]\nrule = "point"\n')
    point = runner.invoke(app, ["--config", "qaeval.toml", "calibrate", "--labels", "labels"])
    bar = next(line for line in point.stdout.splitlines() if "bar: " in line)
    assert "bar: exact >= 0.70 with n >= 20 on every axis (point rule)" in bar


def test_calibrate_check_matches_the_committed_artifact_and_names_each_field_a_forgery_rewrote(
    labels_here: Path,
) -> None:
    # Review of issue 12, item 4: a forgery that rewrites the figures with the verdicts agrees with itself,
    # so the gate cannot catch it; recalibrating from the labels does.
    from tests.cli.test_gate_trust import trusting_artifact

    shutil.copy(REPO / "qaeval.toml", labels_here / "qaeval.toml")
    check = ["--config", "qaeval.toml", "calibrate", "--labels", "labels", "--check"]
    same = runner.invoke(app, [*check, str(COMMITTED)])
    assert same.exit_code == 0, same.output
    assert f"{COMMITTED}: matches a calibration of these labels" in same.stdout
    text = json.dumps(trusting_artifact(json.loads(COMMITTED.read_text())), indent=2)
    (labels_here / "forged.json").write_text(text)
    forged = runner.invoke(app, [*check, "forged.json"])
    assert forged.exit_code == 1, forged.output
    verdict_line = text[: text.index('"faithfulness": {')].count("\n") + 2
    assert (
        f'forged.json:{verdict_line}: axes.faithfulness.verdict: is "TRUSTED"; a calibration of these labels '
        'gives "RETUNE"' in forged.stdout
    )
    assert 'forged.json:9: verdict: is "TRUSTED"' in forged.stdout
    assert "forged.json differs from a calibration of these labels" in forged.stdout
    # A check is no writer and no report: --out or --json with it is a usage error; a missing artifact exit 2.
    assert runner.invoke(app, [*check, str(COMMITTED), "--out", "x.json"]).exit_code == 2
    assert not (labels_here / "x.json").exists()
    missing = runner.invoke(app, [*check, "none.json"])
    assert missing.exit_code == 2 and "none.json (--check): calibration artifact not found" in missing.stderr
