"""Label revisions: appended one by one by review sessions, imported in bulk, read back typed.

Whole label files go in through the driver's bulk insert (sqlite-utils' `insert_all` on SQLite).
Raw SQL where it does better: appending one revision takes its number inside the same write
transaction, holding its reviewer's writer lock (a read then an insert, on the review TUI's submit
path, where sqlite-utils stays unimported), so two sessions never take the same number and one
reviewer's ids are handed out in commit order: a reader catching up past the last id it saw of
theirs (`label_marks(reviewer, after_id=...)`) misses nothing. The ledger and statistics read bare
rows from a covering index over histories of 100,000 revisions.

Rows are read back without pydantic's validation, but never blindly: on SQLite (whose columns hold
anything) one SQL pass per read checks the type and range of each column the read takes, as
`Label` would (`SQLITE_CHECKS`, through the driver's `_bad_rows`); on PostgreSQL the column types
and CHECK constraints refused such values on the way in. Each distinct scores text is checked once.
A row edited by hand or damaged is a `CorruptRowError` naming the table, the row id and the field
(every such row the read met), never a crash or a wrong figure. A row a curator quarantined
(`label_quarantine`) is left out of every read; only `store copy` moves it. A team reviewer's login
may not read the quarantine (its reads leave nothing out) nor a label's readable case id (a skip
would show it before the submit): it reads '' there.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from types import MappingProxyType
from typing import NamedTuple

from qaeval_tui.core.limits import MAX_REVISION
from qaeval_tui.core.models.label import Label
from qaeval_tui.core.store import codec
from qaeval_tui.core.store.codec import LABEL_COLUMNS as _COLUMNS
from qaeval_tui.core.store.codec import exposure_reason, reveal_reason, utc_now
from qaeval_tui.core.store.codec import label_revision as _revision
from qaeval_tui.core.store.codec import scores_json as _scores_json
from qaeval_tui.core.store.renames import RenameTables, name_in, of_person, person_params
from qaeval_tui.core.store.rows import (
    BadRow,
    CorruptRowError,
    LabelDraft,
    LabelMark,
    LabelRevision,
    Quarantine,
    RowCheck,
    StoredLabel,
    checked_revision,
)
from qaeval_tui.core.store.seam import label_writer

_INSERT = f"""INSERT INTO labels ({_COLUMNS.removesuffix(", id")}, not_blind_reason)
               VALUES ({", ".join("?" * 14)}) RETURNING """
_REDACTED_COLUMNS = _COLUMNS.replace("case_id", "CAST('' AS TEXT) AS case_id")
# What a submit's write transaction reads before its insert, in one statement (each pair of parameters is
# the item and the reviewer): the revision count, the reveal, the first exposure, the gold answer's lock,
# and the latest submitted revision (`{columns}`) no curator quarantined.
# The reviewer is each of their names (a renamed login's former ones too: `renames.of_person`).
_PRIOR = f"""SELECT m.revision, v.revealed_at, e.view, e.seen, e.seen_at, g.blind_scores_json, l.*
    FROM (SELECT coalesce(max(revision), 0) AS revision FROM labels WHERE item_id = ? AND {of_person("reviewer")}) m
    LEFT JOIN reveals v ON v.item_id = ? AND {of_person("v.reviewer")}
    LEFT JOIN (SELECT view, seen, seen_at FROM exposures WHERE item_id = ? AND {of_person("person")}
               ORDER BY seen_at LIMIT 1) e ON TRUE
    LEFT JOIN gold_shown g ON g.item_id = ? AND {of_person("g.reviewer")}
    LEFT JOIN (SELECT {{columns}} FROM labels WHERE item_id = ? AND {of_person("reviewer")} AND skipped = 0
               AND {{kept}} ORDER BY id DESC LIMIT 1) l ON TRUE"""


class LabelPrior(NamedTuple):
    """What a submit's write transaction found of its reviewer on the item, before its insert."""

    gold_lock: dict[str, int | None] | None
    """The blind scores locked when the gold answer was first shown to the reviewer; None if never."""
    latest: LabelRevision | None
    """The reviewer's latest submitted revision of the item no curator quarantined; None if none."""


_TEXT = "text"
_FLAG = "0 or 1"
# What `Label` would accept of each column, as SQL a table scan evaluates fast (comparisons, no
# function calls but one): a row failing any of them was not written by qaeval. A TEXT column holds
# only text or a blob (SQLite turns a number into text there), and text sorts before any blob; in
# the numeric columns text and blobs sort after every number.
SQLITE_CHECKS: dict[str, tuple[str, str]] = {
    "item_id": ("item_id > '' AND item_id < x''", "non-empty text"),
    "case_id": ("case_id < x''", _TEXT),
    "reviewer": ("reviewer > '' AND reviewer < x''", "non-empty text"),
    "scores_json": ("scores_json < x''", "JSON text"),
    "note": ("note < x''", _TEXT),
    "flagged": ("flagged IN (0, 1)", _FLAG),
    "skipped": ("skipped IN (0, 1)", _FLAG),
    "rubric_version": ("rubric_version < x''", _TEXT),
    "revealed": ("revealed IN (0, 1)", _FLAG),
    "revision": (
        f"typeof(revision) = 'integer' AND revision BETWEEN 1 AND {MAX_REVISION}",
        f"a whole number from 1 to {MAX_REVISION}",
    ),
    "created_at": ("created_at < x''", _TEXT),
    "seconds_spent": ("seconds_spent BETWEEN 0 AND 1.7976931348623157e308", "a finite number of seconds, 0 or more"),
    "origin": ("origin < x''", _TEXT),
}
_MARK_FIELDS = ("item_id", "skipped", "flagged", "seconds_spent")  # all in the ledger's covering index
_STATISTICS_FIELDS = (*_MARK_FIELDS, "reviewer", "revision", "rubric_version", "revealed")


KEPT = "id NOT IN (SELECT label_id FROM label_quarantine)"
"""A label row no curator quarantined: every read of labels but `table_rows` (a copy moves them all) keeps to it."""
_CHECKS = SQLITE_CHECKS


class LabelTables(RenameTables):
    """The `labels` table (append-only: a changed mind is a new revision) and its quarantine."""

    def _kept(self) -> str:
        """The condition keeping a label row no curator quarantined (none for a login that may not read them)."""
        return KEPT if self._quarantine_readable() else "TRUE"

    @property
    def _label_columns(self) -> str:
        return _REDACTED_COLUMNS if self.reviewer_columns_only else _COLUMNS

    def _check_labels(self, where: str, params: Sequence[object], fields: Iterable[str]) -> None:
        """Raise a CorruptRowError naming every row among `where` whose `fields` `Label` would refuse."""
        found = self._bad_rows("labels", f"({where}) AND {self._kept()}", params, {f: _CHECKS[f] for f in fields})
        if found:
            raise CorruptRowError.of_rows(self.path, found)

    def _bad_scores(self, texts: Iterable[str]) -> tuple[dict[str, dict[str, int | None]], list[BadRow]]:
        """Each distinct scores text parsed and checked once; the rows holding a bad one, located."""
        parsed, bad = codec.bad_scores_text(texts)
        rows: list[tuple[int, str]] = []
        for text in bad:
            rows += self._rows(
                f"SELECT id, scores_json FROM labels WHERE scores_json = ? AND {self._kept()} ORDER BY id", (text,)
            )
        return parsed, codec.bad_scores_rows(sorted(rows))

    def _scores(self, texts: Iterable[str]) -> dict[str, dict[str, int | None]]:
        parsed, bad = self._bad_scores(texts)
        if bad:
            raise CorruptRowError.of_rows(self.path, bad)
        return parsed

    def bad_label_rows(self, check: RowCheck | None = None) -> list[BadRow]:
        """Every label row no curator quarantined whose columns `Label` would refuse, then every other
        such row `check` finds fault with (each one located)."""
        kept = self._kept()
        with self._snapshot():
            found = self._bad_rows("labels", kept, (), _CHECKS)
            texts = self._column(f"SELECT DISTINCT scores_json FROM labels WHERE {kept}")
            parsed, bad_scores = self._bad_scores([text for text in texts if isinstance(text, str)])
            found += bad_scores
            rows = [] if check is None else self._rows(f"SELECT {_COLUMNS} FROM labels WHERE {kept} ORDER BY id")
        if check is not None:
            unread = {row.row_id for row in found}
            found += codec.checked_rows([row for row in rows if row[13] not in unread], parsed, check)
        return found

    def quarantine_label(self, label_id: int, reason: str, curator: str) -> Quarantine | None:
        """Record a curator's quarantine of one label row; None (nothing written) when it was quarantined before.

        A label id the store does not hold is a KeyError.
        """
        with self._write():
            if self._row("SELECT 1 FROM labels WHERE id = ?", (label_id,)) is None:
                raise KeyError(label_id)
            row = self._row(
                """INSERT INTO label_quarantine (label_id, reason, curator, quarantined_at) VALUES (?, ?, ?, ?)
                   ON CONFLICT DO NOTHING RETURNING label_id, reason, curator, quarantined_at""",
                (label_id, reason, curator, utc_now()),
            )
        return None if row is None else Quarantine._make(row)

    def quarantines(self) -> list[Quarantine]:
        """Every recorded quarantine, by label id (none for a login that may not read them)."""
        if not self._quarantine_readable():
            return []
        rows = self._rows("SELECT label_id, reason, curator, quarantined_at FROM label_quarantine ORDER BY label_id")
        return list(map(Quarantine._make, rows))

    def append_label(self, draft: LabelDraft, origin: str = "review") -> LabelRevision:
        """Append one label revision in one committed transaction and return it as stored.

        The revision number is taken inside the transaction, under the reviewer's writer lock, so two
        sessions labeling the same item at once get distinct revisions instead of a lost write.
        `revealed` is read from the reveals and exposures when the draft leaves it None, the reason
        stored beside it.
        """
        if draft.revealed is not None:
            with self._write():
                self._hold(label_writer(draft.reviewer))
                latest = self._row(  # a renamed person's revisions go on from their last
                    f"SELECT coalesce(max(revision), 0) FROM labels WHERE item_id = ? AND {of_person('reviewer')}",
                    (draft.item_id, *person_params(draft.reviewer)),
                )
                return self._insert_label(draft, origin, int(latest[0] if latest else 0), draft.revealed, None)
        stored = self.submit_label(draft, lambda _prior: True, origin)
        assert stored is not None  # the guard let it through
        return stored

    def submit_label(
        self, draft: LabelDraft, guard: Callable[[LabelPrior], bool], origin: str = "review"
    ) -> LabelRevision | None:
        """`append_label` for a review session's submit, in as few statements as the write needs: the
        transaction reads in one statement what the store holds of this reviewer on the item (its
        revision count, the reveal or first exposure, the gold answer's lock, the latest submitted
        revision), hands that to `guard`, then inserts. `guard` refuses the write by raising (the
        transaction rolls back: nothing is written) or skips it by returning False (None returned).
        `draft.revealed` is decided here, as `append_label` does when the draft leaves it None.
        """
        item_id, reviewer = draft.item_id, draft.reviewer
        with self._write():
            self._hold(label_writer(reviewer))
            row = self._row(
                _PRIOR.format(columns=self._label_columns, kept=self._kept()), (item_id, *person_params(reviewer)) * 5
            )
            assert row is not None  # the aggregate row is always there
            revision, revealed_at, exposure, shown, latest = row[0], row[1], row[2:5], row[5], row[6:]
            where = f"{item_id}/{reviewer}"
            prior = LabelPrior(
                None
                if shown is None
                else codec.gold_lock(self.path, where, self.parsed(shown, "gold_shown", where, "blind_scores_json")),
                None if latest[0] is None else _revision(latest, dict(self._scores({latest[3]})[latest[3]])),
            )
            if not guard(prior):
                return None
            reason = None  # blind, unless a reveal or an exposure came first: then it says which
            if revealed_at is not None:
                reason = reveal_reason(revealed_at)
            elif exposure[0] is not None:
                reason = exposure_reason(*exposure)
            return self._insert_label(draft, origin, int(revision), reason is not None, reason)

    def _insert_label(
        self, draft: LabelDraft, origin: str, latest: int, revealed: bool, reason: str | None
    ) -> LabelRevision:
        """Insert `draft` as the revision after `latest` (inside the caller's write transaction)."""
        item_id, reviewer = draft.item_id, draft.reviewer
        row = self._row(
            _INSERT + self._label_columns,
            (
                item_id,
                draft.case_id,
                reviewer,
                _scores_json(dict(draft.scores)),
                draft.note,
                int(draft.flagged),
                int(draft.skipped),
                draft.rubric_version,
                int(revealed),
                checked_revision(latest + 1, item_id, reviewer),
                draft.created_at or utc_now(),
                float(draft.seconds_spent),
                origin,
                reason,
            ),
        )
        assert row is not None  # INSERT ... RETURNING returns the row it wrote
        return _revision(row, json.loads(row[3]))

    def insert_labels(self, labels: Iterable[Label], origin: str) -> int:
        """Insert fully specified label revisions (revision numbers given) in one transaction."""
        labels = list(labels)
        with self._write():
            self._hold(*(label_writer(label.reviewer) for label in labels))
            return self._insert_all("labels", (codec.label_row(label, origin) for label in labels))

    def labels(self, *, reviewer: str | None = None, item_id: str | None = None) -> list[LabelRevision]:
        """Every label revision (history included), oldest first; a renamed person's under their name now."""
        with self._snapshot():
            people = self.person_names()
            names = () if reviewer is None else people.names_of(reviewer)
            where = " AND ".join(
                [
                    *([name_in("reviewer", names)] if names else []),
                    *(["item_id = ?"] if item_id is not None else []),
                    self._kept(),
                ]
            )
            params = [
                *names,
                *([item_id] if item_id is not None else []),
            ]
            self._check_labels(where, params, _CHECKS)
            rows = self._rows(f"SELECT {self._label_columns} FROM labels WHERE {where} ORDER BY id", params)
        if people:
            rows = [(*row[:2], people.current(row[2]), *row[3:]) for row in rows]
        scores = self._scores({row[3] for row in rows})
        # Each label gets its own dict: a caller changing one label's scores must not change another's.
        return [_revision(row, dict(scores[row[3]])) for row in rows]

    def label_reviewers(self) -> list[str]:
        """Who labelled, each person once, by their name now."""
        people = self.person_names()
        names = self._column(f"SELECT DISTINCT reviewer FROM labels WHERE {self._kept()} ORDER BY reviewer")
        return sorted({people.current(name) for name in names}) if people else list(names)

    def label_marks(self, reviewer: str, *, after_id: int = 0) -> list[LabelMark]:
        """`reviewer`'s revisions with id > `after_id`, oldest first, as the ledger reads them.

        Label ids grow in commit order (one writer per reviewer at a time, append-only), so reading
        past the last id seen catches up on every revision committed since, by any connection.
        """
        with self._snapshot():
            names = self._names_of(reviewer)
            mine = name_in("reviewer", names)
            self._check_labels(f"{mine} AND id > ?", (*names, after_id), _MARK_FIELDS)
            rows = self._rows(
                f"""SELECT id, item_id, skipped, flagged, seconds_spent FROM labels
                    WHERE {mine} AND id > ? AND {self._kept()} ORDER BY id""",
                (*names, after_id),
            )
        return list(map(LabelMark._make, rows))

    def label_revisions(self) -> list[StoredLabel]:
        """Every label revision (history included), oldest first, with the fields the statistics read.

        JSON is parsed once per distinct text (scores repeat a few combinations of scale points), so
        the mappings handed out are shared between rows and read-only.
        """
        with self._snapshot():
            people = self.person_names()
            self._check_labels("TRUE", (), _STATISTICS_FIELDS)
            rows = self._rows(
                f"""SELECT item_id, reviewer, revision, skipped, rubric_version, revealed, flagged, seconds_spent,
                          scores_json, id FROM labels WHERE {self._kept()} ORDER BY id"""
            )
        scores = {text: MappingProxyType(value) for text, value in self._scores({row[8] for row in rows}).items()}
        if people:  # one person, one name: a renamed login's labels under the name it has now
            rows = [(row[0], people.current(row[1]), *row[2:]) for row in rows]
        return [
            StoredLabel(
                item, reviewer, revision, skipped != 0, version, revealed != 0, flagged != 0, secs, scores[text], row_id
            )
            for item, reviewer, revision, skipped, version, revealed, flagged, secs, text, row_id in rows
        ]
