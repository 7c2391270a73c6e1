"""Which judge axes the gate may trust: the committed calibration artifact of this judge config, if any.

A judge-scored metric is only evidence when its axis's calibration against humans is TRUSTED
(DESIGN §6). The gate reads that from a calibration artifact (`qaeval calibrate --out`, see
`calibration_file.py`) named by `[gate] calibration` or `--calibration`, never from a local store:
the same commit then prints the same trust on every machine, a fresh CI store included. No
artifact, or one made for another judge config or rubric version, leaves every judge axis
UNCALIBRATED, and every output says so; so does one made under `calibration.rule = "point"` (the
note calibrate prints, `verdict.report_notes`, in the summary every output shows). With
`require_trusted`, a gated judge metric whose axis is not TRUSTED (uncalibrated included) fails
Tier 2.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qaeval_tui.core.config import CalibrationConfig, Config
from qaeval_tui.core.gate.calibration_file import LoadedCalibration, read_calibration
from qaeval_tui.core.gate.delta import MetricDelta
from qaeval_tui.core.running.metrics import METRIC_SPECS
from qaeval_tui.core.statistics.verdict import human_bar_words, report_notes

TRUSTED = "TRUSTED"
UNCALIBRATED = "UNCALIBRATED"
HOW_TO_CALIBRATE = "make one with `qaeval calibrate --out PATH` and name it in [gate] calibration or with --calibration"


@dataclass(frozen=True)
class AxisTrust:
    verdict: str  # TRUSTED, RETUNE, INSUFFICIENT (from the artifact) or UNCALIBRATED
    reason: str


@dataclass(frozen=True)
class GateTrust:
    """The trust of every judge axis for one run, and where it came from."""

    axes: dict[str, AxisTrust]
    calibrated: bool
    """An artifact for this run's judge config and rubric version was read."""
    summary: str
    """One sentence for every output: which artifact, or why every judge metric is uncalibrated."""
    calibration: LoadedCalibration | None = None

    def verdicts(self) -> dict[str, str]:
        return {axis: trust.verdict for axis, trust in self.axes.items()}

    def reasons(self) -> dict[str, str]:
        return {axis: trust.reason for axis, trust in self.axes.items()}

    def to_json(self) -> dict[str, Any]:
        loaded = self.calibration
        artifact = loaded.artifact if loaded is not None else None
        return {
            "status": "calibrated" if self.calibrated else "uncalibrated",
            "summary": self.summary,
            "path": loaded.path if loaded is not None else None,
            "named_by": loaded.named_by if loaded is not None else None,
            "judge_config_hash": artifact.judge_config_hash if artifact is not None else None,
            "rubric_version": artifact.rubric_version if artifact is not None else None,
            "labels_hash": artifact.labels_hash if artifact is not None else None,
            "rule": artifact.bar.get("rule") if artifact is not None else None,
            "rule_note": "; ".join(report_notes(artifact.to_json())) or None if artifact is not None else None,
            "axes": {axis: {"verdict": t.verdict, "reason": t.reason} for axis, t in sorted(self.axes.items())},
        }


def judge_axes() -> list[str]:
    """The judge axes a gated metric is scored on."""
    return sorted({spec.judge_axis for spec in METRIC_SPECS.values() if spec.judge_axis is not None})


def calibration_for_gate(config: Config, explicit: Path | None = None) -> LoadedCalibration | None:
    """The artifact the gate reads: `--calibration` (as given), else `[gate] calibration` (relative to the
    config file), else none. One that is named and cannot be read is an error (exit 2), never "trusted"."""
    if explicit is not None:
        return read_calibration(explicit, "--calibration")
    configured = config.gate.calibration
    if configured is None:
        return None
    return read_calibration(config.path(configured), "gate.calibration", shown=configured)


def _uncalibrated(reason: str, summary: str, calibration: LoadedCalibration | None) -> GateTrust:
    axes = {axis: AxisTrust(UNCALIBRATED, reason) for axis in judge_axes()}
    return GateTrust(axes, calibrated=False, summary=summary, calibration=calibration)


def weaker_bar(artifact_bar: Mapping[str, Any], repo: CalibrationConfig) -> list[str]:
    """Where the artifact's bar is below the repo's `[calibration]`: its TRUSTED cleared less than this repo asks."""
    weaker = []
    for key in ("min_exact", "chance_floor", "min_reviewers", "min_n"):
        value, asked = artifact_bar.get(key), getattr(repo, key)
        if isinstance(value, int | float) and not isinstance(value, bool) and value < asked:
            weaker.append(f"{key} {value} < {asked}")
    if repo.anytime and artifact_bar.get("anytime") is not True:
        weaker.append("no anytime-valid bound")
    if repo.human_bar and artifact_bar.get("human_bar") is not True:
        weaker.append("no human bar")
    elif repo.human_bar:
        margin = artifact_bar.get("human_margin")
        if isinstance(margin, int | float) and not isinstance(margin, bool) and margin > repo.human_margin:
            weaker.append(f"human_margin {margin} > {repo.human_margin}")
    if not weaker:
        return []
    return [f"its bar is weaker than this repo's [calibration] ({', '.join(weaker)}): recalibrate under this config"]


def gate_trust(
    calibration: LoadedCalibration | None,
    judge_config_hash: str,
    rubric_version: str,
    repo_bar: CalibrationConfig | None = None,
) -> GateTrust:
    """Every judge axis's trust for a run of this judge config under this rubric version; with `repo_bar`
    (the repo's `[calibration]`), a warning in the summary when the artifact was held to less."""
    if calibration is None:
        reason = f"no calibration artifact: {HOW_TO_CALIBRATE}"
        return _uncalibrated(reason, f"none; every judge metric is uncalibrated ({HOW_TO_CALIBRATE})", None)
    artifact, shown = calibration.artifact, calibration.path
    mismatch = []
    if artifact.judge_config_hash != judge_config_hash:
        mismatch.append(f"judge config {artifact.judge_config_hash[:12]}, this run's judge is {judge_config_hash[:12]}")
    if artifact.rubric_version != rubric_version:
        mismatch.append(f"rubric version {artifact.rubric_version!r}, this run's is {rubric_version!r}")
    if mismatch:
        why = f"{shown} is for {'; '.join(mismatch)}: recalibrate this judge with `qaeval calibrate --out`"
        return _uncalibrated(why, f"{why}; every judge metric is uncalibrated", calibration)
    axes = {name: AxisTrust(axis.verdict, axis.reason) for name, axis in artifact.axes.items()}
    for name in judge_axes():
        if name not in axes:
            axes[name] = AxisTrust(UNCALIBRATED, f"{shown} has no calibration of the {name} axis")
    summary = (
        f"{shown} (judge config {artifact.judge_config_hash[:12]}, rubric {artifact.rubric_version}, "
        f"labels {artifact.labels_hash.removeprefix('sha256:')[:12]}{human_bar_words(artifact.bar)})"
    )
    notes = report_notes(artifact.to_json()) + (weaker_bar(artifact.bar, repo_bar) if repo_bar is not None else [])
    summary += "".join(f"; warning: {note}" for note in notes)
    return GateTrust(axes, calibrated=True, summary=summary, calibration=calibration)


def trust_marker(verdict: str | None) -> str | None:
    """How a judge metric is marked: "uncalibrated", "untrusted" (RETUNE, INSUFFICIENT), or not at all."""
    if verdict is None or verdict == TRUSTED:
        return None
    return "uncalibrated" if verdict == UNCALIBRATED else "untrusted"


def untrusted_gated_metrics(
    deltas: Sequence[MetricDelta], verdicts: Mapping[str, str], reasons: Mapping[str, str]
) -> list[tuple[str, str]]:
    """(metric, message) for every gated judge metric whose axis is not TRUSTED: what `require_trusted` fails."""
    failing = []
    for delta in deltas:
        axis = delta.judge_axis
        if axis is None or delta.tolerance is None or not delta.in_baseline:
            continue
        verdict = verdicts.get(axis, UNCALIBRATED)
        if verdict == TRUSTED:
            continue
        reason = reasons.get(axis) or ("no calibration of this axis" if axis not in verdicts else verdict)
        failing.append(
            (
                delta.name,
                f"{delta.name} is scored on judge axis {axis}, which is {verdict}, and require_trusted "
                f"gates only on TRUSTED axes: {reason}",
            )
        )
    return failing
