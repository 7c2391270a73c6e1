"""Where agreement and calibration read from: the store, or exported label and verdict files.

Shared by the CLI and the TUI dashboard, so both compute the same figures from the same revisions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from qaeval_tui.core.config import Config
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.review.label_rows import misfit_error, misfit_rows
from qaeval_tui.core.review.labels_io import VERDICTS_FILENAME, read_labels, read_verdicts
from qaeval_tui.core.review.rubric_fit import check_rubric_unchanged
from qaeval_tui.core.rubric import Rubric
from qaeval_tui.core.statistics.agreement import AgreementReport, agreement_report
from qaeval_tui.core.statistics.calibration import CalibrationReport, calibrate
from qaeval_tui.core.statistics.label_table import LabelRevision, LabelTable, Selection, select_table
from qaeval_tui.core.statistics.verdict_table import VerdictTable
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.rows import StoredLabel


@dataclass(frozen=True)
class LabelInput:
    selection: Selection[LabelRevision]
    table: LabelTable
    source: str


def label_input(
    labels: Sequence[LabelRevision],
    rubric: Rubric,
    source: str,
    *,
    include_post_reveal: bool = False,
    quarantined: int = 0,
    fits_checked: bool = False,
) -> LabelInput:
    """The revisions the statistics read (see `select_labels`) and their table; `source` names where they came from.

    Labels made under the rubric's version must fit the rubric: it may have changed since without a
    version bump (label files are checked line by line as they are read; `fits_checked`: the caller
    checked the store's rows, naming each, `stored_label_input`).
    """

    def check(current: Iterable[Mapping[str, int | None]]) -> None:
        check_rubric_unchanged(current, rubric, source, "labels")

    selection, table = select_table(
        labels,
        rubric,
        include_post_reveal=include_post_reveal,
        quarantined=quarantined,
        check=None if fits_checked else check,
    )
    if not selection.labels:
        raise UsageError(
            f"no usable labels in {source} ({selection.revisions_read} revision(s) read, "
            f"{selection.skips} skip(s), {selection.other_rubric_version} under another rubric version)"
        )
    return LabelInput(selection, table, source)


def stored_label_input(
    store: StoreBackend, revisions: Sequence[StoredLabel], rubric: Rubric, *, include_post_reveal: bool = False
) -> LabelInput:
    """`label_input` of the store's revisions (quarantined rows already left out, and counted): a
    row whose scores do not fit its rubric version is named, never computed on (`label_rows`)."""
    misfits, under_version = misfit_rows(revisions, rubric)
    if misfits:
        current = (label.scores for label in revisions if label.rubric_version == rubric.version)
        raise misfit_error(f"store {store.path}", misfits, under_version, rubric, current)
    return label_input(
        revisions,
        rubric,
        f"store {store.path}",
        include_post_reveal=include_post_reveal,
        quarantined=len(store.quarantines()),
        fits_checked=True,
    )


def labels_from_store(store: StoreBackend, rubric: Rubric, *, include_post_reveal: bool = False) -> LabelInput:
    # Not re-validated as models: the store checks each column it reads, and 100,000 models cost seconds.
    return stored_label_input(store, store.label_revisions(), rubric, include_post_reveal=include_post_reveal)


def labels_from_files(paths: Sequence[str | Path], rubric: Rubric, *, include_post_reveal: bool = False) -> LabelInput:
    labels = read_labels(paths, rubric)
    return label_input(labels, rubric, ", ".join(str(p) for p in paths), include_post_reveal=include_post_reveal)


def verdict_files_beside(paths: Sequence[str | Path]) -> list[Path]:
    """The judge-verdict exports sitting in the given label folders."""
    return [Path(p) / VERDICTS_FILENAME for p in paths if (Path(p) / VERDICTS_FILENAME).is_file()]


def verdicts_from_store(store: StoreBackend, rubric: Rubric, config_hash: str | None = None) -> VerdictTable:
    """Stored verdicts of one judge: the given config hash, else the latest run's judge, else the only judge."""
    if config_hash is not None:
        verdicts = store.verdict_scores(config_hash=config_hash)
    else:
        latest = store.latest_run()
        judge = latest.judge_config_hash or None if latest is not None else None
        verdicts = store.verdict_scores(config_hash=judge) if judge is not None else []
        if verdicts:
            config_hash = judge
        else:  # every stored verdict; the table then insists they are of one judge
            verdicts = store.verdict_scores()
    if not verdicts:
        raise UsageError(f"no judge verdicts in store {store.path}; run `qaeval run` or pass --verdicts")
    return VerdictTable.from_verdicts(verdicts, rubric, config_hash)


def verdicts_from_files(paths: Sequence[str | Path], rubric: Rubric, config_hash: str | None = None) -> VerdictTable:
    return VerdictTable.from_verdicts(read_verdicts(paths, rubric), rubric, config_hash)


def agreement_for(
    labels: LabelInput, config: Config, *, replicates: int | None = None, seed: int | None = None
) -> AgreementReport:
    cal = config.calibration
    return agreement_report(
        labels.table,
        config.rubric,
        replicates=replicates if replicates is not None else cal.bootstrap_replicates,
        seed=seed if seed is not None else cal.seed,
        selection=labels.selection,
        source=labels.source,
    )


def calibration_for(
    labels: LabelInput, verdicts: VerdictTable, config: Config, store: StoreBackend | None = None
) -> CalibrationReport:
    """Calibrate; adjudications come from the store when one is given."""
    return calibrate(
        labels.table,
        verdicts,
        config.rubric,
        config.calibration,
        adjudicated=store.adjudications() if store is not None else None,
        selection=labels.selection,
        source=labels.source,
    )


def calibration_from_store(
    store: StoreBackend, config: Config, *, judge_config_hash: str | None = None, include_post_reveal: bool = False
) -> CalibrationReport:
    """The calibration of the store's judge (the latest run's unless a hash is given)."""
    labels = labels_from_store(store, config.rubric, include_post_reveal=include_post_reveal)
    return calibration_for(labels, verdicts_from_store(store, config.rubric, judge_config_hash), config, store)


def agreement_from_store(store: StoreBackend, config: Config, *, include_post_reveal: bool = False) -> AgreementReport:
    return agreement_for(labels_from_store(store, config.rubric, include_post_reveal=include_post_reveal), config)
