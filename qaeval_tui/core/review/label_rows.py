"""What a label must be for every tool to read it, beyond its types: one check for files and stored rows.

`labels import` refuses a line failing it (file:line: field), and the same check finds stored rows
that fail it (an old store, a hand edit, a login writing SQL): `qaeval labels check` lists them,
and a statistic, an export or a screen meeting one names it (table, row id, field) instead of
computing on it, until a curator quarantines it (`label_quarantine`, DESIGN §4).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime

from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.limits import MAX_NOTE_CHARS
from qaeval_tui.core.models.golden import CASE_ID_PATTERN
from qaeval_tui.core.models.label import Label
from qaeval_tui.core.review.rubric_fit import check_rubric_unchanged, score_misfits
from qaeval_tui.core.rubric import Rubric
from qaeval_tui.core.store.rows import MAX_NAMED_ROWS, QUARANTINE_COMMAND, BadRow, StoredLabel


def is_timestamp(text: str) -> bool:
    """An ISO 8601 date and time, as the store writes (`2026-11-02T10:00:00.000Z`) or a file may carry."""
    try:
        datetime.fromisoformat(text)
    except ValueError:
        return False
    return True


def label_problems(label: Label, rubric: Rubric | None, *, advice: bool = True) -> list[tuple[str, str]]:
    """(field, problem) for each way `label` would be refused by a reader (its types already valid);
    `advice`: a score off the rubric says to bump its version if the rubric changed (a file's line)."""
    found: list[tuple[str, str]] = []
    if not CASE_ID_PATTERN.match(label.reviewer):
        found.append(("reviewer", "use letters, digits, '.', '_' and '-' only"))
    if not is_timestamp(label.created_at):
        found.append(("created_at", f"{label.created_at[:40]!r} is not an ISO 8601 date and time"))
    if len(label.note) > MAX_NOTE_CHARS:
        found.append(("note", f"{len(label.note)} characters, more than a note may hold ({MAX_NOTE_CHARS})"))
    if rubric is not None and label.rubric_version == rubric.version:
        found += score_misfits(rubric, label.scores, advice=advice)
    return found


def _instant(text: str) -> datetime | None:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def blind_claim_problem(label: Label, unblinded: Mapping[tuple[str, str], str]) -> str | None:
    """Why `label` may not claim to be blind: made after its reviewer saw the item's hidden information
    (`unblinded`: the first reveal or exposure of each item and person on record). None: it may."""
    since = None if label.revealed else unblinded.get((label.item_id, label.reviewer))
    if since is None:
        return None
    made, seen = _instant(label.created_at), _instant(since)
    # A reveal follows the submit that allows it, often within the same millisecond: a stored revision
    # dated at the reveal's instant is the one that opened it (files and imports are checked by order).
    if made is not None and seen is not None and made <= seen:
        return None
    return (
        f"false, but {label.reviewer} saw hidden information on {label.item_id} at {since} "
        f"(a reveal or a curator view) before this revision ({label.created_at}); "
        "a revision made after that is not blind: set revealed to true"
    )


def misfit_rows(labels: Iterable[StoredLabel], rubric: Rubric) -> tuple[list[BadRow], int]:
    """Stored revisions made under `rubric.version` whose scores do not fit it, located; and how many
    revisions were made under that version. A scores mapping shared by many rows is checked once."""
    found: list[BadRow] = []
    verdicts: dict[int, list[tuple[str, str]]] = {}
    under_version = 0
    for label in labels:
        if label.rubric_version != rubric.version:
            continue
        under_version += 1
        misfits = verdicts.get(id(label.scores))
        if misfits is None:
            misfits = verdicts[id(label.scores)] = score_misfits(rubric, label.scores, advice=False)
        found += [BadRow("labels", label.id, name, problem) for name, problem in misfits]
    return found, under_version


class LabelRowsError(UsageError):
    """Stored label rows a reader would refuse: exit 2, every row named (table, row id, field, problem).

    What met them computed nothing on them, and never stops for everyone on a reviewer's stray row:
    a curator quarantines each (`qaeval labels quarantine`), and the rest is read again.
    """

    def __init__(self, path: str, rows: Sequence[BadRow], what: str, extra: str = "") -> None:
        self.rows = tuple(rows)
        named = [f"  {row}" for row in rows[:MAX_NAMED_ROWS]]
        if len(rows) > MAX_NAMED_ROWS:
            named.append(f"  ... and {len(rows) - MAX_NAMED_ROWS} more (`qaeval labels check` lists them)")
        super().__init__(
            f"{path}: {len(rows)} problem(s) in stored label rows {what}; a curator quarantines each row with "
            f"`{QUARANTINE_COMMAND}` (`qaeval labels check` lists them){extra}:\n" + "\n".join(named)
        )


def misfit_error(
    path: str, rows: Sequence[BadRow], under_version: int, rubric: Rubric, scored: Iterable[Mapping[str, int | None]]
) -> UsageError:
    """Scores that do not fit the rubric version they claim. When at least half the revisions made
    under that version misfit, the rubric itself changed without a version bump: one message naming
    the axes, advising the bump. Otherwise they are stray rows: each named, with the quarantine
    command, and never the bump (which would set every legitimate label aside)."""
    if 2 * len({row.row_id for row in rows}) >= under_version:
        try:
            check_rubric_unchanged(scored, rubric, path, "labels")
        except UsageError as exc:
            return exc
    return LabelRowsError(path, rows, f"(scores off rubric version {rubric.version!r}); nothing was computed")
