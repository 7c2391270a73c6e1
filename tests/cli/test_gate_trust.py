"""The gate's trust markers come from a committed calibration artifact, never from the local store
(DESIGN §6, issue 12): the same commit prints the same trust on every machine, a fresh CI store
included; no artifact for this judge config marks every judge metric uncalibrated, in every output."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from qaeval_tui.cli.main import app
from qaeval_tui.core.statistics.intervals import wilson_cc_interval
from qaeval_tui.core.statistics.verdict import RULE_POINT_NOTE
from tests.conftest import DEMO_GOLDEN, REPO

runner = CliRunner()
BASELINE = str(REPO / "baselines" / "demo.json")
JUDGE_AXES = ["answer_correctness", "citation_correctness", "faithfulness"]
JUDGE_METRICS = {"faithfulness_rate", "answer_correctness", "citation_correctness"}


def qaeval(folder: Path, *args: str) -> Result:
    """`qaeval` as run in `folder` with the config there (an empty one unless the test wrote it)."""
    config = folder / "qaeval.toml"
    if not config.exists():
        config.write_text("", encoding="utf-8")
    return runner.invoke(app, ["--config", str(config), *args])


def gate(folder: Path, db: Path, *extra: str, code: int = 0) -> tuple[Result, dict[str, Any], str, str]:
    """Gate the demo set from `folder`; returns the console run, the JSON, the Markdown and the JUnit."""
    args = ["gate", "--data", str(DEMO_GOLDEN), "--baseline", BASELINE, "--db", str(db), *extra]
    console = qaeval(folder, *args)
    assert console.exit_code == code, console.output
    as_json = qaeval(folder, *args, "--json")
    assert as_json.exit_code == code, as_json.output
    markdown, junit = folder / "gate.md", folder / "gate.xml"
    reports = qaeval(folder, *args, "--markdown", str(markdown), "--junit", str(junit))
    assert reports.exit_code == code, reports.output
    return console, json.loads(as_json.stdout), markdown.read_text(), junit.read_text()


def junit_metric_names(junit: str) -> set[str]:
    return {
        tc.get("name", "") for tc in ET.fromstring(junit).iter("testcase") if tc.get("classname") == "qaeval.metrics"
    }


@pytest.fixture(scope="module")
def calibrated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, Any]]:
    """Machine A: a store with a demo run and the demo labels, calibrated into an artifact.

    Returns the folder, the store and `calibrate --json` of that store."""
    folder = tmp_path_factory.mktemp("machine-a")
    db = folder / "a.db"
    assert qaeval(folder, "run", "--data", str(DEMO_GOLDEN), "--db", str(db)).exit_code == 0
    imported = qaeval(folder, "labels", "import", str(REPO / "labels"), "--db", str(db))
    assert imported.exit_code == 0, imported.output
    made = qaeval(folder, "calibrate", "--db", str(db), "--out", str(folder / "calibration.json"))
    assert made.exit_code == 1, made.output  # RETUNE: the demo labels show one axis the judge has not earned
    report = json.loads(qaeval(folder, "calibrate", "--db", str(db), "--json").stdout)
    return folder, db, report


def trusting_artifact(artifact: dict[str, Any]) -> dict[str, Any]:
    """`artifact` with every axis TRUSTED, and figures rewritten to match (60 items, a perfect judge): a forgery
    the gate cannot tell from a calibration, as the README says (only recalibrating from the labels can)."""
    forged = json.loads(json.dumps(artifact))
    for row in forged["axes"].values():
        row["verdict"], row["n"] = "TRUSTED", 60
        figures = row["figures"]
        figures.update(n=60, exact=1.0, exact_ci=list(wilson_cc_interval(60, 60)), alpha=1.0, alpha_ci=[0.9, 1.0])
        figures["reasons"]["alpha_ci"] = None
        figures["human_bar"] = {
            "n_items": 60,
            "judge_agreement": 0.9,
            "human_agreement": 0.9,
            "gap": 0.0,
            "gap_ci": [-0.03, 0.03],
            "reason": None,
        }
        figures["confusion"]["counts"] = [[20 if h == j else 0 for j in range(3)] for h in range(3)]
    forged["verdict"] = "TRUSTED"
    return forged


def trust_of(document: dict[str, Any]) -> dict[str, Any]:
    """Everything the JSON report says about trust."""
    return {
        "axis_trust": document["axis_trust"],
        "untrusted_axes": document["untrusted_axes"],
        "calibration": document["calibration"],
        "metrics": [(m["name"], m["trusted"], m["trust_note"]) for m in document["metrics"]],
        "failures": [f["message"] for f in document["failures"]],
    }


def test_no_calibration_marks_every_judge_metric_uncalibrated_in_every_output(tmp_path: Path) -> None:
    console, document, markdown, junit = gate(tmp_path, tmp_path / "q.db")
    assert document["axis_trust"] == dict.fromkeys(JUDGE_AXES, "UNCALIBRATED")
    assert document["untrusted_axes"] == JUDGE_AXES
    assert document["calibration"]["status"] == "uncalibrated" and document["calibration"]["path"] is None
    marked = {m["name"] for m in document["metrics"] if m["trusted"] is False}
    assert marked == JUDGE_METRICS
    assert "judge calibration: none; every judge metric is uncalibrated" in console.stdout
    assert console.stdout.count("(uncalibrated)") == len(JUDGE_METRICS)  # beside each judge metric in the table
    for name in JUDGE_METRICS:
        assert f"| {name.replace('_', chr(92) + '_')} (uncalibrated) |" in markdown
        assert f"{name} (uncalibrated)" in junit_metric_names(junit)
    assert "Judge calibration: none; every judge metric is uncalibrated" in markdown


def test_labels_in_the_local_store_are_not_read_by_the_gate(calibrated: tuple[Path, Path, dict[str, Any]]) -> None:
    folder, db, report = calibrated
    assert report["axes"]["citation_correctness"]["verdict"] == "RETUNE"  # the store could say so...
    _, document, _, _ = gate(folder, db)
    assert document["axis_trust"] == dict.fromkeys(JUDGE_AXES, "UNCALIBRATED")  # ...but only an artifact does


def test_a_fresh_store_with_the_artifact_prints_the_trust_of_the_machine_that_calibrated(
    calibrated: tuple[Path, Path, dict[str, Any]], tmp_path: Path
) -> None:
    folder, db, report = calibrated
    on_a = gate(folder, db, "--calibration", str(folder / "calibration.json"))
    # Machine B: another folder, nothing but the committed artifact and a config naming it.
    machine_b = tmp_path / "checkout"
    (machine_b / "baselines").mkdir(parents=True)
    shutil.copy(folder / "calibration.json", machine_b / "baselines" / "calibration.json")
    (machine_b / "qaeval.toml").write_text('[gate]\ncalibration = "baselines/calibration.json"\n')
    fresh = machine_b / "fresh.db"
    on_b = gate(machine_b, fresh)
    expected = {axis: row["verdict"] for axis, row in report["axes"].items()}
    assert on_a[1]["axis_trust"] == on_b[1]["axis_trust"] == expected
    assert on_b[1]["untrusted_axes"] == sorted(a for a, verdict in expected.items() if verdict != "TRUSTED")
    assert on_b[1]["untrusted_axes"], "the demo labels are meant to show an axis the bundled judge has not earned"
    reasons = {axis: row["reason"] for axis, row in on_b[1]["calibration"]["axes"].items()}
    assert reasons == {axis: row["verdict_reason"] for axis, row in report["axes"].items()}
    assert {k: v for k, v in trust_of(on_a[1]).items() if k != "calibration"} == {
        k: v for k, v in trust_of(on_b[1]).items() if k != "calibration"
    }
    a_source, b_source = on_a[1]["calibration"], on_b[1]["calibration"]
    assert {k: v for k, v in a_source.items() if k not in ("path", "named_by", "summary")} == {
        k: v for k, v in b_source.items() if k not in ("path", "named_by", "summary")
    }
    assert b_source["path"] == "baselines/calibration.json" and b_source["named_by"] == "gate.calibration"
    # Markdown and JUnit: the same trust lines and metric names, the artifact named as each machine named it.
    a_md = on_a[2].replace(str(folder / "calibration.json"), "baselines/calibration.json")
    assert a_md == on_b[2]
    assert "citation\\_correctness (untrusted)" in on_b[2] and "faithfulness\\_rate (untrusted) |" in on_b[2]
    assert junit_metric_names(on_a[3]) == junit_metric_names(on_b[3])
    assert "citation_correctness (untrusted)" in junit_metric_names(on_b[3])
    assert "judge calibration: baselines/calibration.json (judge config" in on_b[0].stdout


def test_the_artifact_of_another_judge_or_rubric_leaves_every_judge_metric_uncalibrated(
    calibrated: tuple[Path, Path, dict[str, Any]], tmp_path: Path
) -> None:
    folder, _, _ = calibrated
    document = json.loads((folder / "calibration.json").read_text())
    for field, value, said in [
        ("judge_config_hash", "0" * 64, "is for judge config 000000000000, this run's judge is"),
        ("rubric_version", "2", "is for rubric version '2', this run's is '1'"),
    ]:
        other = tmp_path / f"{field}.json"
        other.write_text(json.dumps({**document, field: value}, indent=2))
        console, result, markdown, _ = gate(tmp_path, tmp_path / "q.db", "--calibration", str(other))
        assert result["axis_trust"] == dict.fromkeys(JUDGE_AXES, "UNCALIBRATED"), field
        assert said in result["calibration"]["summary"] and said in console.stdout
        assert "faithfulness\\_rate (uncalibrated)" in markdown


def test_require_trusted_fails_tier_2_naming_the_metric_its_axis_and_the_reason(
    calibrated: tuple[Path, Path, dict[str, Any]], tmp_path: Path
) -> None:
    folder, _, report = calibrated
    artifact = str(folder / "calibration.json")
    console, document, markdown, junit = gate(
        tmp_path, tmp_path / "q.db", "--calibration", artifact, "--require-trusted", code=1
    )
    axis_of = {"faithfulness_rate": "faithfulness", "answer_correctness": "answer_correctness"}
    messages = []
    for metric in sorted(JUDGE_METRICS):
        row = report["axes"][axis_of.get(metric, metric)]
        if row["verdict"] != "TRUSTED":
            messages.append(
                f"{metric} is scored on judge axis {axis_of.get(metric, metric)}, which is {row['verdict']}, and "
                f"require_trusted gates only on TRUSTED axes: {row['verdict_reason']}"
            )
    assert messages, "the demo labels are meant to show an axis the bundled judge has not earned"
    assert sorted(f["message"] for f in document["failures"] if f["kind"] == "trust") == messages
    assert document["verdict"] == "BLOCK" and document["tiers"]["tier2"]["passed"] is False
    assert all(message in console.stdout for message in messages) and "GATE: BLOCK" in console.stdout
    assert "which is RETUNE" in markdown
    failures = [f for tc in ET.fromstring(junit).iter("testcase") for f in tc.iter("failure")]
    assert [f.get("type") for f in failures] == ["trust"] * len(messages)
    # No artifact: every gated judge metric is uncalibrated, and each one fails.
    _, bare, _, _ = gate(tmp_path, tmp_path / "q.db", "--require-trusted", code=1)
    assert {f["name"] for f in bare["failures"] if f["kind"] == "trust"} == JUDGE_METRICS
    # The config key does the same; an artifact that trusts every axis passes.
    (tmp_path / "qaeval.toml").write_text("[gate]\nrequire_trusted = true\n")
    assert qaeval(tmp_path, "gate", "--data", str(DEMO_GOLDEN), "--baseline", BASELINE).exit_code == 1
    trusting = trusting_artifact(json.loads((folder / "calibration.json").read_text()))
    (tmp_path / "trusting.json").write_text(json.dumps(trusting))
    _, passed, _, _ = gate(tmp_path, tmp_path / "q.db", "--calibration", str(tmp_path / "trusting.json"))
    assert passed["verdict"] == "PASS" and passed["calibration"]["require_trusted"] is True


BAD_EDITS = [  # (what the file said, what it says now, the line, the field, the message)
    (
        '"faithfulness": {\n      "verdict": "RETUNE"',
        '"faithfulness": {\n      "verdict": "MAYBE"',
        None,
        "axes.faithfulness.verdict",
        "Input should be",
    ),
    ('"n": 26,\n      "figures"', '"n": "26",\n      "figures"', None, "axes.faithfulness.n", "valid integer"),
    ('"version": 1', '"version": true', 3, "version", "this qaeval reads version 1"),
    ('"qaeval-calibration"', '"qaeval-baseline"', 2, "format", "not a qaeval calibration"),
    ('"verdict": "RETUNE"', '"verdict": "RETUNE",\n  "trusted": true', None, "trusted", "Extra inputs"),
    ('"mae": 0.5,', '"mae": NaN,', None, "axes.citation_correctness.figures.mae", "NaN is not"),
    ('"judge_name": "mechanical",', '"judge_name": "mechanical",\n  "judge_name": "x",', 6, "judge_name", "duplicate"),
]


@pytest.mark.parametrize(("before", "after", "line", "field", "message"), BAD_EDITS)
def test_a_bad_artifact_named_by_the_user_is_exit_2_naming_file_line_and_field(
    calibrated: tuple[Path, Path, dict[str, Any]],
    tmp_path: Path,
    before: str,
    after: str,
    line: int | None,
    field: str,
    message: str,
) -> None:
    folder, _, _ = calibrated
    text = (folder / "calibration.json").read_text()
    assert before in text
    bad = tmp_path / "calibration.json"
    bad.write_text(text.replace(before, after, 1))
    db = tmp_path / "q.db"
    result = qaeval(tmp_path, "gate", "--data", str(DEMO_GOLDEN), "--baseline", BASELINE, "--db", str(db),
                    "--calibration", str(bad))  # fmt: skip
    assert result.exit_code == 2, result.output
    located = [row for row in result.stderr.splitlines() if row.startswith(f"{bad}:")]
    assert located and f": {field}: " in located[0] and message in located[0], result.stderr
    if line is not None:
        assert located[0].startswith(f"{bad}:{line}: {field}: ")
    assert "Traceback" not in result.output and not db.exists()  # refused before the suite ran


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda root: root / "none.json", "calibration artifact not found"),
        (lambda root: root, "not a file"),
        (lambda root: (root / "x.json").write_text("{not json") and root / "x.json", "not valid JSON"),
        (lambda root: (root / "x.json").write_bytes(b"\xff\xfe") and root / "x.json", "not UTF-8"),
        (lambda root: (root / "x.json").write_text("[]") and root / "x.json", "must be a JSON object"),
    ],
)
def test_a_missing_or_unreadable_artifact_is_exit_2_naming_it(tmp_path: Path, make: Any, message: str) -> None:
    path = make(tmp_path)
    db = tmp_path / "q.db"
    result = qaeval(tmp_path, "gate", "--data", str(DEMO_GOLDEN), "--baseline", BASELINE, "--db", str(db),
                    "--calibration", str(path))  # fmt: skip
    assert result.exit_code == 2 and str(path) in result.stderr and message in result.stderr, result.output
    assert "Traceback" not in result.output and not db.exists()


def test_the_configured_artifact_resolves_against_the_config_folder_and_a_missing_one_is_named(
    tmp_path: Path,
) -> None:
    config_folder = tmp_path / "project"
    config_folder.mkdir()
    config = config_folder / "qaeval.toml"
    config.write_text('[gate]\ncalibration = "missing.json"\n')
    result = runner.invoke(
        app, ["--config", str(config), "gate", "--data", str(DEMO_GOLDEN), "--baseline", BASELINE,
              "--db", str(tmp_path / "q.db")],
    )  # fmt: skip
    assert result.exit_code == 2
    assert f"{config_folder / 'missing.json'} (gate.calibration): calibration artifact not found" in result.stderr


@pytest.mark.parametrize(
    ("toml", "field"), [('calibration = ""', "gate.calibration"), ('require_trusted = "yes"', "gate.require_trusted")]
)
def test_bad_gate_trust_keys_are_config_errors(tmp_path: Path, toml: str, field: str) -> None:  # fmt: skip
    (tmp_path / "qaeval.toml").write_text(f"[gate]\n{toml}\n")
    result = qaeval(tmp_path, "gate", "--data", str(DEMO_GOLDEN), "--baseline", BASELINE)
    assert result.exit_code == 2 and f"qaeval.toml:2: {field}: " in result.stderr, result.output


def test_text_from_the_artifact_is_printed_literally(
    calibrated: tuple[Path, Path, dict[str, Any]], tmp_path: Path
) -> None:
    folder, _, _ = calibrated
    hostile = json.loads((folder / "calibration.json").read_text())
    hostile["axes"]["citation_correctness"]["reason"] = "[bold red]fine[/] \x1b[2J\nTier 2: passed"
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(hostile))
    console, document, markdown, junit = gate(
        tmp_path, tmp_path / "q.db", "--calibration", str(path), "--require-trusted", code=1
    )
    assert "[bold red]fine[/] \\x1b[2J Tier 2: passed" in console.stdout and "\x1b" not in console.stdout
    assert not [line for line in console.stdout.splitlines() if line.startswith("Tier 2")]  # no made-up line
    assert "\\[bold red\\]fine\\[/\\]" in markdown and "\x1b" not in markdown
    assert "\x1b" not in junit and "\\x1b[2J" in junit
    assert (
        document["calibration"]["axes"]["citation_correctness"]["reason"]
        == hostile["axes"]["citation_correctness"]["reason"]
    )


COMMITTED = REPO / "baselines" / "calibration.json"


def line_with(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


def test_an_artifact_whose_verdicts_contradict_its_own_figures_is_exit_2_naming_the_field(tmp_path: Path) -> None:
    # Review of issue 12, item 4: every axis verdict edited to TRUSTED, figures and reasons left as they were
    # (faithfulness: a constant judge). The gate decides each axis again from the artifact's bar and figures.
    text = COMMITTED.read_text()
    document = json.loads(text)
    assert document["axes"]["faithfulness"]["figures"]["decided_by"] == "constant_judge"
    forged_text = text.replace('"verdict": "RETUNE"', '"verdict": "TRUSTED"').replace(
        '"verdict": "INSUFFICIENT"', '"verdict": "TRUSTED"'
    )
    forged = tmp_path / "forged.json"
    forged.write_text(forged_text)
    db = tmp_path / "q.db"
    args = ["gate", "--data", str(DEMO_GOLDEN), "--baseline", BASELINE, "--db", str(db), "--require-trusted"]
    result = qaeval(tmp_path, *args, "--calibration", str(forged))
    assert result.exit_code == 2, result.output
    for axis in ("faithfulness", "citation_correctness", "answer_correctness"):
        line = line_with(forged_text, f'"{axis}": {{') + 1
        expected = document["axes"][axis]["verdict"]
        message = f"{forged}:{line}: axes.{axis}.verdict: is TRUSTED, but the artifact's own bar and figures give "
        assert f"{message}{expected} (" in result.stderr, result.stderr
    assert "Traceback" not in result.output and not db.exists()  # refused before the suite ran
    # The axes left alone, only the top-level verdict edited: it must be the aggregate of the axes.
    top = tmp_path / "top.json"
    top.write_text(text.replace('"verdict": "RETUNE"', '"verdict": "TRUSTED"', 1))
    result = qaeval(tmp_path, *args, "--calibration", str(top))
    assert result.exit_code == 2, result.output
    assert f"{top}:9: verdict: is TRUSTED, but its axes give RETUNE" in result.stderr, result.stderr
    # The committed artifact agrees with itself.
    assert qaeval(tmp_path, *args[:-1], "--calibration", str(COMMITTED)).exit_code == 0


def test_a_point_rule_artifact_says_so_in_every_output_and_never_trusts_a_constant_judge(tmp_path: Path) -> None:
    # Review of issue 12, item 5: calibrated under rule = "point", the demo's constant faithfulness judge
    # (all 26 items a 2, exact 0.77 >= 0.70) was TRUSTED in the gate, and no gate output named the rule.
    maker = tmp_path / "maker"
    maker.mkdir()
    shutil.copytree(REPO / "labels", maker / "labels")
    (maker / "qaeval.toml").write_text('[calibration]\nrule = "point"\n')
    made = runner.invoke(
        app, ["--config", str(maker / "qaeval.toml"), "calibrate", "--labels", str(maker / "labels"),
              "--out", str(tmp_path / "point.json")],
    )  # fmt: skip
    assert made.exit_code == 1, made.output
    point = str(tmp_path / "point.json")
    console, document, markdown, junit = gate(
        tmp_path, tmp_path / "q.db", "--calibration", point, "--require-trusted", code=1
    )
    assert document["axis_trust"]["faithfulness"] == "RETUNE"
    assert any("faithfulness_rate is scored on judge axis faithfulness, which is RETUNE" in f["message"]
               for f in document["failures"])  # fmt: skip
    assert document["calibration"]["rule"] == "point" and document["calibration"]["rule_note"] == RULE_POINT_NOTE
    assert RULE_POINT_NOTE in document["calibration"]["summary"]
    assert RULE_POINT_NOTE in " ".join(console.stdout.split())
    assert "a TRUSTED here may not hold" in markdown and "point estimates" in markdown
    properties = {p.get("name"): p.get("value") for p in ET.fromstring(junit).iter("property")}
    assert RULE_POINT_NOTE in (properties.get("qaeval.calibration") or "")
    # An interval-rule artifact carries no such note.
    _, interval, _, _ = gate(tmp_path, tmp_path / "q.db", "--calibration", str(COMMITTED))
    assert interval["calibration"]["rule"] == "interval" and interval["calibration"]["rule_note"] is None
    assert "point estimates" not in interval["calibration"]["summary"]


def test_an_artifact_held_to_a_weaker_bar_than_the_repo_asks_is_warned_about(tmp_path: Path) -> None:
    # The committed artifact was made with min_exact 0.70 and 2 reviewers; this repo asks 0.80 and 3.
    (tmp_path / "qaeval.toml").write_text("[calibration]\nmin_exact = 0.8\nmin_reviewers = 3\nhuman_margin = 0.02\n")
    console, document, markdown, junit = gate(tmp_path, tmp_path / "q.db", "--calibration", str(COMMITTED))
    warning = "its bar is weaker than this repo's [calibration] (min_exact 0.7 < 0.8, min_reviewers 2 < 3)"
    warning = warning.replace("2 < 3)", "2 < 3, human_margin 0.05 > 0.02)")
    assert warning in document["calibration"]["summary"]
    assert warning in " ".join(console.stdout.split()) and "its bar is weaker than this repo's" in markdown
    properties = {p.get("name"): p.get("value") for p in ET.fromstring(junit).iter("property")}
    assert warning in (properties.get("qaeval.calibration") or "")
    # The repo's own bar: no warning.
    (tmp_path / "qaeval.toml").write_text("")
    _, same, _, _ = gate(tmp_path, tmp_path / "q.db", "--calibration", str(COMMITTED))
    assert "weaker" not in same["calibration"]["summary"]
