"""The tables of the agreement and calibration reports, as plain cells.

Markdown, HTML and the console render the same rows; building them once keeps the three
outputs from drifting apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

MISSING = "—"

Table = tuple[list[str], list[list[object]]]


def number(value: float | None, digits: int = 3) -> str:
    return MISSING if value is None else f"{value:.{digits}f}"


def interval(value: Sequence[float] | None, digits: int = 3) -> str:
    return MISSING if value is None else f"[{value[0]:.{digits}f}, {value[1]:.{digits}f}]"


def signed(value: float | None, digits: int = 3) -> str:
    return MISSING if value is None else f"{value:+.{digits}f}"


def distribution_text(distribution: dict[str, int]) -> str:
    return " ".join(f"{value}:{count}" for value, count in distribution.items())


def agreement_axes_table(data: dict[str, Any]) -> tuple[list[str], list[list[object]], list[str]]:
    """Header, one row per axis, and a note for each undefined figure (from `AgreementReport.to_json()`)."""
    header = ["axis", "level", "alpha", "CI", "raw agreement", "items", "pairable", "can't judge", "distribution"]
    rows: list[list[object]] = []
    notes: list[str] = []
    for name, axis in data["axes"].items():
        rows.append(
            [
                name, axis["level"], number(axis["alpha"]), interval(axis["ci"]), number(axis["raw_agreement"]),
                axis["n_items"], axis["n_pairable"], axis["n_cant_judge"], distribution_text(axis["distribution"]),
            ]
        )  # fmt: skip
        for figure, key in (("alpha", "reason"), ("CI", "ci_reason"), ("raw agreement", "raw_agreement_reason")):
            if axis[key] and not (key == "ci_reason" and axis["ci_reason"] == axis["reason"]):
                notes.append(f"{name}: {figure} undefined: {axis[key]}")
    return header, rows, notes


def pairwise_table(pairs: Sequence[dict[str, Any]]) -> Table:
    header = ["reviewers", "common items", "raw agreement", "kappa"]
    rows: list[list[object]] = [
        [" / ".join(p["reviewers"]), p["n_common"], number(p["raw_agreement"]), number(p["kappa"])] for p in pairs
    ]
    return header, rows


def calibration_axes_table(data: dict[str, Any]) -> Table:
    """Header and one row per axis (from `CalibrationReport.to_json()`)."""
    header = ["axis", "verdict", "n", "exact", "95% CI", "alpha", "alpha 95% CI", "within one", "MAE", "bias"]
    header += ["kappa", "kappa (quadratic)", "unresolved", "one reviewer"]
    header += [f"labels for ±{data['bar']['target_half_width']:.2f}"]
    rows: list[list[object]] = [
        [
            name, axis["verdict"], axis["n"], number(axis["exact"]), interval(axis["exact_ci"]), number(axis["alpha"]),
            interval(axis["alpha_ci"]), number(axis["within_one"]), number(axis["mae"]), signed(axis["bias"]),
            number(axis["kappa"]), number(axis["kappa_quadratic"]), axis["consensus"]["unresolved"],
            axis["consensus"]["one_reviewer"], axis["labels_needed"],
        ]
        for name, axis in data["axes"].items()
    ]  # fmt: skip
    return header, rows


def calibration_notes(data: dict[str, Any]) -> list[tuple[str, str]]:
    """(axis, note) for each figure or interval an axis lacks, with the reason (axes with no pairs say so once)."""
    notes: list[tuple[str, str]] = []
    for name, axis in data["axes"].items():
        if not axis["n"]:
            continue
        for key, why in axis["reasons"].items():
            if why:
                text = f"no {key.replace('_ci', ' CI')}: {why}" if key.endswith("_ci") else f"{key} undefined: {why}"
                notes.append((name, text))
    return notes
