"""The rows the store takes and returns: frozen, typed, free of any database type.

Frozen dataclasses, except the rows of the bulk reads (`StoredLabel`, `StoredVerdict`,
`LabelMark`, `Assignment`, `ItemAxis`, `StoredMiss`): those are typed `NamedTuple`s, built by the
hundred thousand on the dashboard's and the review screen's paths, where a frozen dataclass costs
twice as much per row. A judge verdict is the runner's `JudgeVerdict`, a production miss the inbox's
`ProductionMiss`. JSON documents kept whole (a golden case, a system output, a run header and
metrics) stay `JsonObject`: the store hands back exactly what it was given (a case may predate
today's golden schema), so exports stay byte-identical.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from qaeval_tui.core.errors import QaevalError, UsageError
from qaeval_tui.core.limits import MAX_REVISION, MAX_SEED
from qaeval_tui.core.models.label import Label
from qaeval_tui.core.models.miss import ProductionMiss
from qaeval_tui.core.models.run import JudgeVerdict
from qaeval_tui.core.text import one_line

JsonObject = dict[str, Any]
"""A JSON document stored whole in one column, parsed on the way out."""


@dataclass(frozen=True, slots=True)
class CaseRecord:
    """One golden case, content-addressed by its hash."""

    case_hash: str
    case_id: str
    split: str
    case: JsonObject


@dataclass(frozen=True, slots=True)
class RunRecord:
    """One run's header row: what ran, on which suite, with which judge, and its metrics."""

    run_id: str
    suite_hash: str
    adapter: str
    judge_name: str | None
    judge_config_hash: str | None
    code_version: str
    started_at: str
    finished_at: str
    n_cases: int
    data: JsonObject
    metrics: JsonObject


@dataclass(frozen=True, slots=True)
class RunOutput:
    """One case of a run: the system output and what the run computed of it."""

    position: int
    case_id: str
    case_hash: str
    output_hash: str
    output: JsonObject
    result: JsonObject


@dataclass(frozen=True, slots=True)
class VerdictRecord:
    """One stored judge verdict: the judge's own (§8.3), and the run's judge name and config hash."""

    item_id: str
    case_id: str
    judge_name: str
    config_hash: str
    status: str
    verdict: JudgeVerdict
    created_at: str


@dataclass(frozen=True, slots=True)
class ReviewItemRecord:
    """One (case, system output) pair to be labeled, id = case hash + output hash."""

    item_id: str
    case_id: str
    case_hash: str
    output_hash: str
    run_id: str


@dataclass(frozen=True, slots=True)
class ReviewItemContent:
    """A review item with the case and the output it pairs (None when either was lost)."""

    item: ReviewItemRecord
    case: JsonObject | None
    output: JsonObject | None


class Assignment(NamedTuple):
    """One entry of a reviewer's queue."""

    reviewer: str
    item_id: str
    position: int


@dataclass(frozen=True, slots=True)
class QueueEntry:
    """An item to place in a reviewer's queue, at a position, with the seed that chose the order."""

    reviewer: str
    item_id: str
    position: int
    seed: int


@dataclass(frozen=True, slots=True)
class ChangeToken:
    """What the store has committed so far: differs from an earlier token once anything was committed since.

    `others` moves when another connection commits; `own` counts this connection's write transactions.
    """

    others: int
    own: int


@dataclass(frozen=True, slots=True)
class LabelDraft:
    """A label revision to append: the store numbers it, stamps it and, when `revealed` is None,
    decides whether the reviewer had seen the verdict, all inside the write transaction."""

    item_id: str
    case_id: str
    reviewer: str
    scores: Mapping[str, int | None]
    rubric_version: str
    note: str = ""
    flagged: bool = False
    skipped: bool = False
    revealed: bool | None = None
    seconds_spent: float = 0.0
    created_at: str | None = None


@dataclass(frozen=True, slots=True)
class LabelRevision:
    """One stored label revision: the §8.2 label, where it came from, and its id (commit order)."""

    id: int
    origin: str
    label: Label


class LabelMark(NamedTuple):
    """What a reviewer's ledger reads of one label revision (`label_marks`).

    `skipped` and `flagged` are 0 or 1 as stored: no per-row conversion over a whole history.
    """

    id: int
    item_id: str
    skipped: int
    flagged: int
    seconds_spent: float


class StoredLabel(NamedTuple):
    """One stored label revision, as `label_revisions` reads it for the statistics."""

    item_id: str
    reviewer: str
    revision: int
    skipped: bool
    rubric_version: str
    revealed: bool
    flagged: bool
    seconds_spent: float
    scores: Mapping[str, int | None]
    id: int = 0
    """The row's id in `labels` (commit order): what names it in a problem and in a quarantine."""


class StoredVerdict(NamedTuple):
    """One stored judge verdict without its evidence, as `verdict_scores` reads it."""

    item_id: str
    status: str
    judge: Mapping[str, str | float | int]
    scores: Mapping[str, int | None]


class Quarantine(NamedTuple):
    """A curator's recorded decision to leave one label row out of every figure, export and screen."""

    label_id: int
    reason: str
    curator: str
    quarantined_at: str


class Exposure(NamedTuple):
    """A person saw an item's hidden information in a curator view (DESIGN §4), the first time per view."""

    item_id: str
    person: str
    view: str
    """The view that showed it: "item dossier", "dashboard drill-down", "adjudication"."""
    seen: str
    """What it showed, in words: "judge verdict, other reviewers' labels, consensus"."""
    seen_at: str


class ItemAxis(NamedTuple):
    """One axis of one review item: what an adjudication rules on."""

    item_id: str
    axis: str


class StoredMiss(NamedTuple):
    """A production miss as the inbox holds it: its canonical JSON text, source file and import time."""

    miss_json: str
    source: str
    imported_at: str


@dataclass(frozen=True, slots=True)
class InboxMiss:
    """A production miss to add to the inbox: its trace id, canonical JSON text and source file."""

    trace_id: str
    miss_json: str
    source: str


@dataclass(frozen=True, slots=True)
class InboxImport:
    """What adding misses did: the trace ids added, or (and then nothing was added) the conflicting ones."""

    added: tuple[str, ...]
    conflicts: tuple[str, ...]


@dataclass(frozen=True)
class InboxDecision:
    """What a curator decided about one miss; recorded once, never changed (the first one counts)."""

    decision: Literal["promoted", "rejected"]
    case_id: str | None
    reason: str
    curator: str
    decided_at: str


@dataclass(frozen=True, slots=True)
class InboxRecord:
    """One imported production miss as stored (§8.4) and its decision (None while pending)."""

    trace_id: str
    miss: ProductionMiss
    source: str
    imported_at: str
    decision: InboxDecision | None


class StoreConflictError(QaevalError):
    """A write collided with a row another writer stored first (e.g. the same label revision): nothing was written."""


class StoreUnavailableError(UsageError):
    """The store's server cannot be reached (a wrong URL, refused login, or a restart): exit 2, the store named.

    Nothing of the write that met it was committed; the caller may retry once the server is back.
    """


QUARANTINE_COMMAND = "qaeval labels quarantine ID --reason TEXT"
"""How a curator sets a label row aside (`qaeval labels check` lists the rows)."""


class BadRow(NamedTuple):
    """One stored row the tools cannot read or would refuse: where it is and what is wrong."""

    table: str
    row_id: object
    field: str
    problem: str

    def __str__(self) -> str:
        return f"{self.table} row {self.row_id}: {one_line(self.field)}: {one_line(self.problem)}"


RowCheck = Callable[[LabelRevision], list[tuple[str, str]]]
"""What is wrong with one stored label revision beyond what its columns hold: (field, problem) each."""

MAX_NAMED_ROWS = 50
"""Bad rows one error names; beyond that it counts the rest (`qaeval labels check --json` lists all)."""


def _advice(table: str) -> str:
    if table == "labels":
        return f"a curator quarantines it with `{QUARANTINE_COMMAND}` (or mends it)"
    return "mend or remove that row"


class CorruptRowError(UsageError):
    """A stored row that no qaeval wrote (the file was edited by hand, or damaged): exit 2, located.

    Names the store, the table, the row id and the field, so the row can be found and mended, or (a
    label row) quarantined. `rows` holds every bad row the read met, the first one also as
    `table`, `row_id` and `field`.
    """

    def __init__(
        self, path: str, table: str, row_id: object, field: str, problem: str, *, more: Sequence[BadRow] = ()
    ) -> None:
        self.rows = (BadRow(table, row_id, field, problem), *more)
        self.table, self.row_id, self.field = table, row_id, field
        first = self.rows[0]
        if not more:
            message = f"{path}: {first}; the store was changed outside qaeval ({_advice(table)})"
        else:
            named = [f"  {row}" for row in self.rows[:MAX_NAMED_ROWS]]
            if len(self.rows) > MAX_NAMED_ROWS:
                named.append(f"  ... and {len(self.rows) - MAX_NAMED_ROWS} more (`qaeval labels check` lists them)")
            message = (
                f"{path}: {len(self.rows)} stored rows the tools cannot read; the store was changed outside qaeval "
                f"({_advice(table)}, each):\n" + "\n".join(named)
            )
        super().__init__(message)

    @classmethod
    def of_rows(cls, path: str, rows: Sequence[BadRow]) -> CorruptRowError:
        """One error naming every row of `rows` (at least one)."""
        return cls(path, *rows[0], more=rows[1:])


class OutOfRangeError(QaevalError):
    """A number the store would have to hold is beyond what it takes (nothing is written): exit 2."""


def checked_revision(revision: int, item_id: str, reviewer: str) -> int:
    """A label revision the files can carry back (label files cap it): refused, never an overflow."""
    if not 1 <= revision <= MAX_REVISION:
        raise OutOfRangeError(
            f"revision {revision} of {reviewer} on {item_id} is beyond the largest a label can have "
            f"({MAX_REVISION}); nothing was stored"
        )
    return revision


def checked_seed(seed: int) -> int:
    if not 0 <= seed <= MAX_SEED:
        raise OutOfRangeError(f"seed {seed} is not a whole number from 0 to {MAX_SEED}; nothing was stored")
    return seed
