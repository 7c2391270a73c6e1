"""Agreement between reviewers and calibration of the judge (`qaeval agreement`, `qaeval calibrate`).

Labels come from the given files, else the store, else the configured labels folder; verdicts from
the given files, else `judge-verdicts.jsonl` beside the label folders read, else the store.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from qaeval_tui.core.config import Config
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.review.labels_io import expand_label_paths
from qaeval_tui.core.statistics.agreement import AgreementReport
from qaeval_tui.core.statistics.calibration import CalibrationReport
from qaeval_tui.core.statistics.sources import (
    LabelInput,
    agreement_for,
    calibration_for,
    labels_from_files,
    labels_from_store,
    verdict_files_beside,
    verdicts_from_files,
    verdicts_from_store,
)
from qaeval_tui.core.statistics.verdict_table import VerdictTable
from qaeval_tui.core.store.backend import StoreBackend

Say = Callable[[str], object]


def quiet(_message: str) -> None:
    return None


def labels_for_statistics(
    config: Config,
    store: StoreBackend | None,
    paths: Sequence[Path] | None,
    *,
    include_post_reveal: bool = False,
    say: Say = quiet,
) -> tuple[LabelInput, list[Path]]:
    """The labels to read, and the folders they came from (where verdict files may lie beside them)."""
    if paths:
        return labels_from_files(paths, config.rubric, include_post_reveal=include_post_reveal), [
            p for p in paths if p.is_dir()
        ]
    if store is not None and store.count("labels"):
        return labels_from_store(store, config.rubric, include_post_reveal=include_post_reveal), []
    folder = config.path(config.paths.labels)
    if folder.is_dir() and expand_label_paths([folder]):
        say(f"no labels in the store; reading the label files in {folder}")
        return labels_from_files([folder], config.rubric, include_post_reveal=include_post_reveal), [folder]
    raise UsageError("no labels: label with `qaeval review`, import with `qaeval labels import`, or pass --labels")


def verdicts_for_calibration(
    config: Config,
    store: StoreBackend | None,
    paths: Sequence[Path] | None,
    folders: Sequence[Path],
    config_hash: str | None,
) -> VerdictTable:
    """The judge verdicts to calibrate: of `config_hash` when given (needed when the verdicts mix judges)."""
    if paths:
        return verdicts_from_files(paths, config.rubric, config_hash)
    beside = verdict_files_beside(folders)
    if beside:
        return verdicts_from_files(beside, config.rubric, config_hash)
    if store is not None and store.count("judge_verdicts"):
        return verdicts_from_store(store, config.rubric, config_hash)
    raise UsageError("no judge verdicts: pass --verdicts, or run `qaeval run` so the store has them")


def agreement_report(
    config: Config,
    store: StoreBackend | None,
    labels: Sequence[Path] | None,
    *,
    include_post_reveal: bool = False,
    replicates: int | None = None,
    seed: int | None = None,
    say: Say = quiet,
) -> AgreementReport:
    """Inter-rater agreement per axis, with the bootstrap settings of the config unless given."""
    label_input, _ = labels_for_statistics(config, store, labels, include_post_reveal=include_post_reveal, say=say)
    return agreement_for(label_input, config, replicates=replicates, seed=seed)


def calibration_inputs(
    config: Config,
    store: StoreBackend | None,
    labels: Sequence[Path] | None,
    verdicts: Sequence[Path] | None,
    *,
    judge_config_hash: str | None = None,
    include_post_reveal: bool = False,
    say: Say = quiet,
) -> tuple[LabelInput, VerdictTable]:
    """The labels and the judge verdicts one calibration reads (the report and its artifact alike)."""
    label_input, folders = labels_for_statistics(
        config, store, labels, include_post_reveal=include_post_reveal, say=say
    )
    return label_input, verdicts_for_calibration(config, store, verdicts, folders, judge_config_hash)


def calibration_report(
    config: Config,
    store: StoreBackend | None,
    labels: Sequence[Path] | None,
    verdicts: Sequence[Path] | None,
    *,
    judge_config_hash: str | None = None,
    include_post_reveal: bool = False,
    say: Say = quiet,
) -> CalibrationReport:
    """Judge versus human per axis, for one judge config."""
    label_input, table = calibration_inputs(
        config, store, labels, verdicts, judge_config_hash=judge_config_hash,
        include_post_reveal=include_post_reveal, say=say,
    )  # fmt: skip
    return calibration_for(label_input, table, config, store)
