"""Never a false pass (DESIGN §6): judge errors block, code that exits is a failed case, bad numbers stop at load.

Each test drives the real commands with a judge, adapter, config, baseline or time series that
fails the way real ones do, and checks what a CI job would see: the exit code, the words on
stdout/stderr, and what was (not) written.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from qaeval_tui.cli.main import app
from qaeval_tui.core.store.sqlite import Store

runner = CliRunner()
PLUGINS = "tests.cli.hostile_plugins"
CASE_IDS = ["warranty-01", "warranty-02", "financing-01", "fan-price-01"]


@pytest.fixture
def baseline(tmp_path: Path, suite: Path) -> Path:
    path = tmp_path / "baseline.json"
    made = runner.invoke(app, ["baseline", "--data", str(suite), "--out", str(path), "--db", str(tmp_path / "b.db")])
    assert made.exit_code == 0, made.output
    return path


def qaeval(tmp_path: Path, *args: str) -> Result:
    return runner.invoke(app, [*args, "--db", str(tmp_path / "runs.db")])


def gate(tmp_path: Path, suite: Path, baseline: Path, *args: str) -> Result:
    return qaeval(tmp_path, "gate", "--data", str(suite), "--baseline", str(baseline), *args)


def strict_json(text: str) -> Any:
    """json.loads as a strict parser (jq, Go, JavaScript) reads it: NaN and Infinity are errors."""

    def refuse(token: str) -> None:
        raise ValueError(f"not JSON: {token}")

    return json.loads(text, parse_constant=refuse)


def no_run_stored(tmp_path: Path) -> bool:
    path = tmp_path / "runs.db"
    if not path.exists():
        return True
    with Store.open(path) as store:
        return not store.list_runs()


# -- a judge that fails ---------------------------------------------------------------------


def test_a_judge_outage_blocks_the_gate_and_every_output_names_the_cases_and_the_error(
    tmp_path: Path, suite: Path, baseline: Path
) -> None:
    junit, markdown = tmp_path / "gate.xml", tmp_path / "gate.md"
    judge = f"{PLUGINS}:make_outage_judge"
    result = gate(tmp_path, suite, baseline, "--judge", judge, "--junit", str(junit), "--markdown", str(markdown))
    assert result.exit_code == 1, result.output
    assert "GATE: BLOCK" in result.stdout
    assert "Tier 1 FAILED: the judge failed on 4 case(s)" in result.stdout
    assert f"judge_error: {', '.join(CASE_IDS)}" in result.stdout
    assert "warranty-01 [judge_error] the judge failed: RuntimeError: judge API unavailable (HTTP 503)" in result.stdout
    document = strict_json(gate(tmp_path, suite, baseline, "--judge", judge, "--json").stdout)
    assert document["verdict"] == "BLOCK" and document["exit_code"] == 1
    assert document["tiers"]["tier1"] == {"passed": False, "fired_checks": {"judge_error": CASE_IDS}}
    errors = [f for f in document["failures"] if f["kind"] == "judge_error"]
    assert [f["case_id"] for f in errors] == CASE_IDS
    assert {f["message"] for f in errors} == {"the judge failed: RuntimeError: judge API unavailable (HTTP 503)"}
    summary = markdown.read_text()
    assert "### Tier 1: FAILED (the judge failed on 4 case(s))" in summary
    assert (
        "| judge\\_error | warranty-02 | the judge failed: RuntimeError: judge API unavailable (HTTP 503) |" in summary
    )
    cases = ET.parse(junit).getroot().find("testsuite[@name='qaeval.cases']")
    assert cases is not None and cases.get("failures") == "4"
    failure = cases.find("testcase[@name='fan-price-01']/failure[@type='judge_error']")
    assert failure is not None and "RuntimeError: judge API unavailable" in (failure.get("message") or "")


def test_a_judge_failing_on_one_case_blocks_and_names_only_that_case(
    tmp_path: Path, suite: Path, baseline: Path
) -> None:
    result = gate(tmp_path, suite, baseline, "--judge", f"{PLUGINS}:make_flaky_judge", "--json")
    assert result.exit_code == 1
    document = strict_json(result.stdout)
    assert document["tiers"]["tier1"]["fired_checks"] == {"judge_error": ["warranty-02"]}
    assert [f["message"] for f in document["failures"] if f["kind"] == "judge_error"] == [
        "the judge failed: TimeoutError: judge timed out after 60 s"
    ]


@pytest.mark.parametrize(
    ("factory", "message"),
    [
        ("make_empty_scores_judge", "the judge gave no score for faithfulness"),
        ("make_list_evidence_judge", "the judge's evidence for faithfulness is list, not a quoted span"),
        ("make_exiting_judge", "SystemExit(0): the code tried to exit the process"),
    ],
)
def test_a_judge_returning_nonsense_or_exiting_is_an_error_verdict_that_blocks(
    tmp_path: Path, suite: Path, baseline: Path, factory: str, message: str
) -> None:
    result = gate(tmp_path, suite, baseline, "--judge", f"{PLUGINS}:{factory}")
    assert result.exit_code == 1, result.output
    assert "GATE: BLOCK" in result.stdout and message in result.stdout
    assert "Traceback" not in result.output


def test_run_reports_how_many_verdicts_are_errors(tmp_path: Path, suite: Path) -> None:
    shown = qaeval(tmp_path, "run", "--data", str(suite), "--judge", f"{PLUGINS}:make_flaky_judge")
    assert shown.exit_code == 0, shown.output
    assert "judge errors: 1" in shown.stdout
    assert "warranty-02: TimeoutError: judge timed out after 60 s" in shown.stdout
    printed = qaeval(tmp_path, "run", "--data", str(suite), "--judge", f"{PLUGINS}:make_outage_judge", "--json")
    document = strict_json(printed.stdout)
    assert document["run"]["judge_errors"] == 4
    assert {c["verdict"]["status"] for c in document["cases"]} == {"error"}
    healthy = qaeval(tmp_path, "run", "--data", str(suite), "--json")
    assert strict_json(healthy.stdout)["run"]["judge_errors"] == 0


def test_a_baseline_is_not_written_from_a_run_the_judge_failed_on(tmp_path: Path, suite: Path) -> None:
    out = tmp_path / "baseline.json"
    args = ["baseline", "--data", str(suite), "--out", str(out), "--judge", f"{PLUGINS}:make_flaky_judge"]
    result = qaeval(tmp_path, *args)
    assert result.exit_code == 2
    assert "the judge failed on 1 case(s) (warranty-02: TimeoutError: judge timed out after 60 s)" in result.stderr
    assert not out.exists()


def test_a_judge_metric_that_vanishes_fails_instead_of_going_n_a(tmp_path: Path, suite: Path, baseline: Path) -> None:
    result = gate(tmp_path, suite, baseline, "--judge", f"{PLUGINS}:make_cannot_judge_judge", "--json")
    assert result.exit_code == 1
    metrics = {m["name"]: m for m in strict_json(result.stdout)["metrics"]}
    assert metrics["faithfulness_rate"]["status"] == "fail" and metrics["faithfulness_rate"]["current"] is None
    assert metrics["faithfulness_rate"]["reason"].startswith("has no value now (baseline 1.000 -> n/a")


# -- code that exits ------------------------------------------------------------------------


@pytest.mark.parametrize("workers", ["1", "2"])
def test_an_adapter_that_exits_on_one_case_is_a_failed_case(
    tmp_path: Path, suite: Path, baseline: Path, workers: str
) -> None:
    hub = f"{PLUGINS}:make_exiting_hub"
    ran = qaeval(tmp_path, "run", "--data", str(suite), "--adapter", hub, "--workers", workers)
    assert ran.exit_code == 0 and "warranty-02: check:adapter_ok" in ran.stdout
    gated = gate(tmp_path, suite, baseline, "--adapter", hub, "--workers", workers)
    assert gated.exit_code == 1 and "GATE: BLOCK" in gated.stdout
    assert "adapter_ok: warranty-02" in gated.stdout and "SystemExit(0)" in gated.stdout
    series = tmp_path / "drift.jsonl"
    drifted = qaeval(tmp_path, "drift", "--data", str(suite), "--timeseries", str(series), "--adapter", hub)
    assert drifted.exit_code == 0 and f"appended to {series}" in drifted.stdout
    assert len(series.read_text().splitlines()) == 1


def test_a_factory_that_exits_is_a_usage_error(tmp_path: Path, suite: Path) -> None:
    result = qaeval(tmp_path, "run", "--data", str(suite), "--adapter", f"{PLUGINS}:make_nothing_but_exit")
    assert result.exit_code == 2
    assert "the factory raised SystemExit(0)" in result.stderr and no_run_stored(tmp_path)


# -- NaN out --------------------------------------------------------------------------------


def test_an_adapter_computing_nan_is_a_failed_case_and_no_output_holds_nan(
    tmp_path: Path, suite: Path, baseline: Path
) -> None:
    hub = f"{PLUGINS}:make_nan_hub"
    artifact = tmp_path / "run.json"
    ran = qaeval(tmp_path, "run", "--data", str(suite), "--adapter", hub, "--out", str(artifact), "--json")
    assert ran.exit_code == 0, ran.output
    printed, written = strict_json(ran.stdout), strict_json(artifact.read_text())
    fan = next(c for c in written["cases"] if c["case_id"] == "fan-price-01")
    assert not fan["passed"] and "check:adapter_ok" in fan["failures"]
    assert fan["output"]["error"] == "the adapter computed 'part_price' = nan, which is not a finite number"
    assert printed["cases"] == written["cases"]
    gated = gate(tmp_path, suite, baseline, "--adapter", hub, "--json", "--out", str(tmp_path / "gate-run.json"))
    assert gated.exit_code == 1 and strict_json(gated.stdout)["verdict"] == "BLOCK"
    strict_json((tmp_path / "gate-run.json").read_text())


# -- numbers that would void the comparison: refused when loaded, before any case runs ----------


@pytest.mark.parametrize(
    ("toml", "field"),
    [
        ("[gate.tolerances]\nmrr = nan\n", "gate.tolerances.mrr: Input should be a finite number"),
        ("[gate.tolerances]\nmrr = inf\n", "gate.tolerances.mrr: Input should be a finite number"),
        ("[gate.tolerances]\nmrr = -0.1\n", "gate.tolerances.mrr: Input should be greater than or equal to 0"),
        ("[gate.tolerances]\nmrr = true\n", "gate.tolerances.mrr: Input should be a valid number"),
        ("[gate.tolerances]\nfaithfulnes_rate = 0.1\n", "gate.tolerances.faithfulnes_rate: unknown metric"),
        ("[gate]\nseed = -1\n", "gate.seed: Input should be greater than or equal to 0"),
        ("[gate]\nseed = 1.5\n", "gate.seed: Input should be a valid integer"),
        ("[calibration]\nseed = -3\n", "calibration.seed: Input should be greater than or equal to 0"),
    ],
)
def test_a_bad_tolerance_or_seed_stops_the_gate_at_load(
    tmp_path: Path, suite: Path, baseline: Path, toml: str, field: str
) -> None:
    config = tmp_path / "qaeval.toml"
    config.write_text(toml)
    args = ["gate", "--data", str(suite), "--baseline", str(baseline), "--db", str(tmp_path / "runs.db")]
    result = runner.invoke(app, ["--config", str(config), *args])
    assert result.exit_code == 2, result.output
    assert f"{config}:2: {field}" in result.stderr and "Traceback" not in result.output
    assert no_run_stored(tmp_path)


def _case_line(text: str, case_id: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if f'"case_id": "{case_id}"' in line)


def _value_line(text: str, metric: str) -> int:
    """The line of `"metric": {` inside metrics.overall (the first one: overall comes before slices)."""
    return next(n for n, line in enumerate(text.splitlines(), 1) if line.strip() == f'"{metric}": {{')


@pytest.mark.parametrize(
    ("edit", "field", "message"),
    [
        (("case", "warranty-02", '"mrr": 1.0', '"mrr": NaN'), "cases[1].values.mrr", "NaN is not a JSON number"),
        (
            ("case", "warranty-02", '"mrr": 1.0', '"mrr": Infinity'),
            "cases[1].values.mrr",
            "Infinity is not a JSON number",
        ),
        (("case", "warranty-02", '"mrr": 1.0', '"mrr": 1e308'), "cases[1].values.mrr", "must be from 0 to 1"),
        (("case", "warranty-02", '"mrr": 1.0', '"mrr": 1.5'), "cases[1].values.mrr", "got 1.5"),
        (("case", "warranty-02", '"mrr": 1.0', '"mrr": "1.0"'), "cases[1].values.mrr", "got '1.0'"),
        (("case", "warranty-02", '"mrr": 1.0', '"mrr": true'), "cases[1].values.mrr", "got True"),
        (("case", "warranty-02", '"mrr": 1.0, ', ""), "cases[1].values", "no value for mrr"),
        (
            ("case", "warranty-02", '"mrr": 1.0', '"mrr": 0.0, "mrr": 1.0'),
            "cases[1].values.mrr",
            "duplicate key 'mrr'",
        ),
    ],
)
def test_a_bad_number_in_a_baseline_case_is_located_and_stops_the_gate_at_load(
    tmp_path: Path, suite: Path, baseline: Path, edit: tuple[str, str, str, str], field: str, message: str
) -> None:
    _, case_id, old, new = edit
    lines = baseline.read_text().splitlines(keepends=True)
    number = _case_line("".join(lines), case_id)
    assert old in lines[number - 1]
    lines[number - 1] = lines[number - 1].replace(old, new, 1)
    baseline.write_text("".join(lines))
    result = gate(tmp_path, suite, baseline)
    assert result.exit_code == 2, result.output
    assert f"{baseline}:{number}: {field}: " in result.stderr and message in result.stderr
    assert "Traceback" not in result.output and no_run_stored(tmp_path)


def test_a_baseline_metric_with_no_per_case_values_stops_the_gate_at_load(
    tmp_path: Path, suite: Path, baseline: Path
) -> None:
    document = json.loads(baseline.read_text())
    for row in document["cases"]:
        row["values"]["faithfulness_rate"] = None  # the scoreboard still says 1.0
    text = json.dumps(document, indent=2)
    baseline.write_text(text)
    result = gate(tmp_path, suite, baseline)
    assert result.exit_code == 2
    line = _value_line(text, "faithfulness_rate") + 1
    assert (
        f"{baseline}:{line}: metrics.overall.faithfulness_rate.value: is 1.0 but no case has a value" in result.stderr
    )
    assert no_run_stored(tmp_path)


@pytest.mark.parametrize("where", ["scoreboard", "cases"])
def test_a_gated_metric_half_absent_from_the_baseline_stops_the_gate_at_load(
    tmp_path: Path, suite: Path, baseline: Path, where: str
) -> None:
    # Gone from the scoreboard or from the cases but not both: an edited file, not one older than the metric.
    document = json.loads(baseline.read_text())
    if where == "scoreboard":
        del document["metrics"]["overall"]["citation_correctness"]
    else:
        for row in document["cases"]:
            del row["values"]["citation_correctness"]
    baseline.write_text(json.dumps(document, indent=2))
    result = gate(tmp_path, suite, baseline)
    assert result.exit_code == 2
    if where == "scoreboard":
        assert "metrics.overall.citation_correctness: missing" in result.stderr
    else:
        assert (
            "cases[0].values: no value for citation_correctness (null when it does not apply); the same in 3 more"
            in result.stderr
        )
    assert no_run_stored(tmp_path)


def test_a_metric_wholly_absent_from_the_baseline_is_shown_not_in_the_baseline_never_passed(
    tmp_path: Path, suite: Path, baseline: Path
) -> None:
    document = json.loads(baseline.read_text())
    del document["metrics"]["overall"]["citation_correctness"]
    for row in document["cases"]:
        del row["values"]["citation_correctness"]
    baseline.write_text(json.dumps(document, indent=2))
    result = gate(tmp_path, suite, baseline, "--json")
    assert result.exit_code == 0, result.output
    rows = {row["name"]: row for row in json.loads(result.stdout)["metrics"]}
    assert rows["citation_correctness"]["status"] == "n/a"
    assert rows["citation_correctness"]["reason"].startswith("not in the baseline")
    assert rows["faithfulness_rate"]["status"] == "pass"


# -- drift ----------------------------------------------------------------------------------


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity", "1e308"])
def test_an_absurd_number_in_the_drift_series_is_located_and_nothing_runs(
    tmp_path: Path, suite: Path, token: str
) -> None:
    series = tmp_path / "drift.jsonl"
    for _ in range(3):
        assert qaeval(tmp_path, "drift", "--data", str(suite), "--timeseries", str(series)).exit_code == 0
    lines = series.read_text().splitlines()
    lines[1], replaced = re.subn(r'"mrr": [0-9.]+', f'"mrr": {token}', lines[1])
    assert replaced == 1
    series.write_text("\n".join(lines) + "\n")
    before = series.read_text()
    result = qaeval(tmp_path, "drift", "--data", str(suite), "--timeseries", str(series))
    assert result.exit_code == 2, result.output
    assert f"{series}:2: metrics.mrr: " in result.stderr and "Traceback" not in result.output
    assert series.read_text() == before
    with Store.open(tmp_path / "runs.db") as store:
        assert len(store.list_runs()) == 3  # the bad series stopped the fourth run before it started


@pytest.mark.parametrize(("option", "value"), [("--sigma", "inf"), ("--min-band", "inf"), ("--sigma", "nan")])
def test_a_band_setting_that_could_never_alarm_is_a_usage_error(
    tmp_path: Path, suite: Path, option: str, value: str
) -> None:
    series = tmp_path / "drift.jsonl"
    result = qaeval(tmp_path, "drift", "--data", str(suite), "--timeseries", str(series), option, value)
    assert result.exit_code == 2 and option in result.stderr  # an infinite band width hides every drop
    assert not series.exists() and no_run_stored(tmp_path)


def test_drift_alarms_on_judge_errors_and_does_not_append_the_point(tmp_path: Path, suite: Path) -> None:
    series = tmp_path / "drift.jsonl"
    assert qaeval(tmp_path, "drift", "--data", str(suite), "--timeseries", str(series)).exit_code == 0
    args = ["drift", "--data", str(suite), "--timeseries", str(series), "--judge", f"{PLUGINS}:make_flaky_judge"]
    result = qaeval(tmp_path, *args)
    assert result.exit_code == 1
    assert "DRIFT ALARM: the judge failed on 1 case(s); this run's point was not appended" in result.stdout
    assert "warranty-02: TimeoutError: judge timed out after 60 s" in result.stdout
    assert len(series.read_text().splitlines()) == 1
    document = strict_json(qaeval(tmp_path, *args, "--json").stdout)
    assert document["alarm"] is True and document["appended"] is False
    assert document["judge_errors"] == [{"case_id": "warranty-02", "error": "TimeoutError: judge timed out after 60 s"}]
