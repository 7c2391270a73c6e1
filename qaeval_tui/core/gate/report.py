"""The gate report as data: JSON, Markdown (fits a CI step summary) and JUnit XML.

The CLI's rich console view reads the same `GateReport`; nothing here styles a terminal.
Text from data passes through `markdown_text()` / `xml_text()` (core.text, the one literal path),
so a golden file or an answer can never inject markup or control sequences into a report.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from qaeval_tui.core.gate import power
from qaeval_tui.core.gate.decision import Finding, GateReport
from qaeval_tui.core.gate.delta import MetricDelta
from qaeval_tui.core.gate.report_stats import (
    STAT_COLUMNS,
    mde_warnings,
    mode_line,
    refusal_line,
    stat_cells,
    statistics_json,
)
from qaeval_tui.core.gate.trust import trust_marker
from qaeval_tui.core.text import markdown_text as md
from qaeval_tui.core.text import xml_text as _xml_text

GATE_FORMAT = "qaeval-gate"
GATE_REPORT_VERSION = 1
REMOVED_SHOWN = 10


def fired_checks(report: GateReport) -> dict[str, list[str]]:
    """Check name -> the cases it fired on, in suite order; `judge_error` lists the cases the judge failed on."""
    fired: dict[str, list[str]] = {}
    for finding in report.tier1:
        fired.setdefault(finding.name, []).append(finding.case_id or "")
    return fired


def judge_errors(report: GateReport) -> list[Finding]:
    """The Tier 1 findings that are judge errors (one per case the judge failed on)."""
    return [finding for finding in report.tier1 if finding.kind == "judge_error"]


def tier1_summary(report: GateReport) -> str:
    """How many checks fired and how many cases the judge failed on, e.g. "2 fired check(s)"."""
    errors = len(judge_errors(report))
    checks = len(report.tier1) - errors
    parts = [f"{checks} fired check(s)"] if checks else []
    if errors:
        parts.append(f"the judge failed on {errors} case(s)")
    return "; ".join(parts)


def _ids(findings: tuple[Finding, ...], kind: str) -> list[str]:
    return [finding.case_id or "" for finding in findings if finding.kind == kind]


def gate_json(report: GateReport) -> dict[str, Any]:
    """The `--json` document: verdict, tiers, failures and the metric table (DESIGN §8.5)."""
    failed_metrics = [finding.name for finding in report.tier2 if finding.kind == "metric"]
    statuses = [case.status for case in report.cases]
    return {
        "format": GATE_FORMAT,
        "version": GATE_REPORT_VERSION,
        "verdict": report.verdict,
        "exit_code": report.exit_code,
        "tiers": {
            "tier1": {"passed": not report.tier1, "fired_checks": fired_checks(report)},
            "tier2": {
                # A refused metric is no verdict: Tier 2 did not pass (exit 3, or 1 beside a block).
                "passed": not report.tier2 and not report.refused_metrics,
                "failed_metrics": failed_metrics,
                "refused_metrics": report.refused_metrics,
                "regressions": _ids(report.tier2, "regression"),
                "failing_new_cases": _ids(report.tier2, "new_case"),
            },
        },
        "failures": [finding.to_json() for finding in report.findings],
        "metrics": [delta.to_json() for delta in report.metrics],
        "untrusted_axes": report.untrusted_axes,
        "axis_trust": dict(sorted(report.axis_trust.items())),
        "statistics": statistics_json(report),
        **calibration_json(report),
        "cases": {
            "total": len(report.cases),
            "new": statuses.count("new"),
            "changed": statuses.count("changed"),
            "removed": list(report.removed_cases),
        },
        "bootstrap": {"confidence": report.confidence, "replicates": report.replicates, "seed": report.seed},
        "run": report.run,
        "baseline": report.baseline,
    }


def _number(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "n/a"
    return f"{value:+.3f}" if signed else f"{value:.3f}"


def format_ci(delta: MetricDelta) -> str:
    if delta.ci is None:
        return "n/a"
    return f"[{delta.ci[0]:+.3f}, {delta.ci[1]:+.3f}]"


def metric_label(delta: MetricDelta) -> str:
    """The metric name, marked when its judge axis is not calibrated as TRUSTED: "(untrusted)", or
    "(uncalibrated)" when no calibration of this judge config was read."""
    if delta.trusted is not False:
        return delta.name
    return f"{delta.name} ({trust_marker(delta.trust_verdict) or 'untrusted'})"


def calibration_json(report: GateReport) -> dict[str, Any]:
    """The `calibration` member of the JSON report: where the judge's trust came from (absent when the
    caller gave bare verdicts), and whether `require_trusted` was on."""
    if report.trust is None:
        return {}
    return {"calibration": {**report.trust.to_json(), "require_trusted": report.require_trusted}}


def calibration_sentence(report: GateReport) -> str | None:
    """One line for the console and Markdown: the calibration read, or why every judge metric is uncalibrated."""
    if report.trust is None:
        return None
    required = "; require_trusted: a gated judge metric whose axis is not TRUSTED fails Tier 2"
    return f"judge calibration: {report.trust.summary}{required if report.require_trusted else ''}"


def gate_markdown(report: GateReport) -> str:
    """A Markdown summary sized for a CI step summary."""
    run, baseline = report.run, report.baseline
    lines = [
        f"## qaeval gate: {report.verdict}",
        "",
        f"{run['n_cases']} case(s) run through {md(str(run['adapter']))} "
        f"(judge {md(str(run['judge'].get('name')))}/{md(str(run['judge'].get('model')))}), "
        f"gated against a baseline of {baseline['n_cases']} case(s).",
        "",
    ]
    refusal = refusal_line(report)
    if refusal:
        lines += [f"**{md(refusal)}.**", ""]
    fired = fired_checks(report)
    if fired:
        lines += [
            f"### Tier 1: FAILED ({tier1_summary(report)})",
            "",
            "| check | case | detail |",
            "|---|---|---|",
        ]
        lines += [f"| {md(f.name)} | {md(f.case_id or '')} | {md(f.message)} |" for f in report.tier1]
    else:
        lines += ["### Tier 1: passed", "", "Every deterministic check is green on every case."]
    tier2 = "FAILED" if report.tier2 else "REFUSED" if report.refused_metrics else "passed"
    lines += ["", f"### Tier 2: {tier2}", ""]
    lines += [
        f"| metric | baseline | current | delta | {report.confidence:.0%} CI | "
        f"{' | '.join(STAT_COLUMNS)} | tolerance | status |",
        "|---|---:|---:|---:|---|---:|---:|---:|---|",
    ]
    for delta in report.metrics:
        tolerance = "" if delta.tolerance is None else power.tolerance_text(delta.tolerance)
        lines.append(
            f"| {md(metric_label(delta))} | {_number(delta.baseline)} | {_number(delta.current)} | "
            f"{_number(delta.delta, signed=True)} | {format_ci(delta)} | {' | '.join(stat_cells(delta))} | "
            f"{tolerance} | {delta.status_text} |"
        )
    lines += ["", md(mode_line(report)) + "."]
    warnings = mde_warnings(report)
    if warnings:
        lines += ["", "Tolerances below what this suite resolves:", ""]
        lines += [f"- {md(warning)}" for warning in warnings]
    lost = [delta for delta in report.metrics if delta.lost_cases]
    if lost:
        lines += ["", "Values lost: the judge said can't judge on cases it scored in the baseline.", ""]
        lines += [f"- {md(delta.name)}: {md(delta.reason or '')}" for delta in lost]
    case_findings = [f for f in report.tier2 if f.kind in ("regression", "new_case")]
    if case_findings:
        lines += ["", "Cases:", ""]
        lines += [f"- {md(f.case_id or '')}: {md(f.message)}" for f in case_findings]
    trust_findings = [f for f in report.tier2 if f.kind == "trust"]
    if trust_findings:
        lines += ["", r"Judge metrics on axes that are not TRUSTED (require\_trusted):", ""]
        lines += [f"- {md(f.message)}" for f in trust_findings]
    sentence = calibration_sentence(report)
    if sentence is not None:
        lines += ["", f"{md(sentence[0].upper() + sentence[1:])}."]
    if report.untrusted_axes:
        axes = ", ".join(f"{md(axis)} ({md(report.axis_trust[axis])})" for axis in report.untrusted_axes)
        lines += ["", f"Untrusted judge axes (calibration not TRUSTED): {axes}."]
    if report.removed_cases:
        shown = ", ".join(md(case_id) for case_id in report.removed_cases[:REMOVED_SHOWN])
        more = (
            f" and {len(report.removed_cases) - REMOVED_SHOWN} more"
            if len(report.removed_cases) > REMOVED_SHOWN
            else ""
        )
        lines += ["", f"{len(report.removed_cases)} baseline case(s) not in this run: {shown}{more}."]
    return "\n".join(lines) + "\n"


def gate_junit(report: GateReport) -> str:
    """JUnit XML: a testcase per case (a failure per fired check or case finding) and per gated metric."""
    root = ET.Element("testsuites", name="qaeval gate")
    cases = ET.SubElement(root, "testsuite", name="qaeval.cases")
    case_failures = 0
    for outcome in report.cases:
        element = ET.SubElement(
            cases, "testcase", classname=_xml_text(f"qaeval.{outcome.split}"), name=_xml_text(outcome.case_id)
        )
        if outcome.findings:
            case_failures += 1
        for finding in outcome.findings:
            failure = ET.SubElement(
                element, "failure", type=finding.name, message=_xml_text(f"{finding.name}: {finding.message}")
            )
            failure.text = _xml_text(finding.message)
    cases.set("tests", str(len(report.cases)))
    cases.set("failures", str(case_failures))
    cases.set("errors", "0")
    cases.set("skipped", "0")
    metrics = ET.SubElement(root, "testsuite", name="qaeval.metrics")
    metric_failures = skipped = refused = 0
    for delta in report.metrics:
        element = ET.SubElement(metrics, "testcase", classname="qaeval.metrics", name=metric_label(delta))
        if delta.status == "fail":
            metric_failures += 1
            failure = ET.SubElement(
                element, "failure", type="metric", message=_xml_text(f"{delta.name} {delta.reason}")
            )
            failure.text = _xml_text(f"{delta.name} {delta.reason}; paired CI {format_ci(delta)}")
        elif delta.status in ("n/a", "info"):
            skipped += 1
            why = delta.reason or delta.status
            ET.SubElement(element, "skipped", message=_xml_text(why if delta.in_baseline else f"n/a: {why}"))
        trust_failures = [f.message for f in report.tier2 if f.kind == "trust" and f.name == delta.name]
        if trust_failures and delta.status != "fail":
            metric_failures += 1
        for message in trust_failures:
            ET.SubElement(element, "failure", type="trust", message=_xml_text(message)).text = _xml_text(message)
        refused += _junit_statistics(element, delta)  # after any failure: JUnit puts system-out last
    sentence = calibration_sentence(report)
    if sentence is not None:
        properties = ET.Element("properties")
        ET.SubElement(properties, "property", name="qaeval.calibration", value=_xml_text(sentence))
        metrics.insert(0, properties)
    metrics.set("tests", str(len(report.metrics)))
    metrics.set("failures", str(metric_failures))
    metrics.set("errors", str(refused))
    metrics.set("skipped", str(skipped))
    root.set("tests", str(len(report.cases) + len(report.metrics)))
    root.set("failures", str(case_failures + metric_failures))
    root.set("errors", str(refused))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _junit_statistics(element: ET.Element, delta: MetricDelta) -> int:
    """A refused metric is an error (no verdict, never a pass); an MDE warning goes to its system-out. 1 if refused."""
    if delta.status == "refused":
        error = ET.SubElement(element, "error", type="refused", message=_xml_text(f"{delta.name} {delta.reason}"))
        error.text = _xml_text(f"{delta.name} {delta.reason}")
        return 1
    if delta.test is not None and delta.test.warning:
        ET.SubElement(element, "system-out").text = _xml_text(f"warning: {delta.test.warning}")
    return 0
