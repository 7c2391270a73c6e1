"""Label revisions and the flags they carry, on PostgreSQL.

Label writers queue on their reviewer's writer lock, held to their commit: a revision is numbered
inside the transaction (no two sessions take the same one) and one reviewer's ids are handed out
in commit order, so a reader catching up past the last id it saw of theirs
(`label_marks(reviewer, after_id=...)`) misses nothing.

A team reviewer's login may not read a label's readable case id (a skip would show it before the
submit): its reads get '' there, and the database fills the stored one in from the review item.

The columns' types and CHECK constraints refuse what `Label` would refuse (a flag that is not 0 or
1, a negative or infinite `seconds_spent`, an empty item id), so the reads check only what the
database cannot: the scores document, each distinct text once, a bad one located by its first row.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from types import MappingProxyType

from qaeval_tui.core.review.models import Label
from qaeval_tui.core.store import codec
from qaeval_tui.core.store.codec import utc_now
from qaeval_tui.core.store.exposures import not_blind_reason
from qaeval_tui.core.store.postgres.connection import label_writer
from qaeval_tui.core.store.postgres.review import PgReviewTables
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

_INSERT = f"""INSERT INTO labels ({codec.LABEL_COLUMNS.removesuffix(", id")}, not_blind_reason)
              VALUES ({", ".join(["%s"] * 14)}) RETURNING """
_REDACTED_COLUMNS = codec.LABEL_COLUMNS.replace("case_id", "''::text AS case_id")


class PgLabelTables(PgReviewTables):
    """The `labels` table (append-only: a changed mind is a new revision) and `flag_resolutions`."""

    _quarantine_readable: bool | None = None

    def _kept(self) -> str:
        """The condition keeping a label row no curator quarantined, for a login that may read the
        quarantine (a curator, the owner); a reviewer's login may not, and its reads leave nothing out."""
        if self._quarantine_readable is None:
            row = self._q("SELECT has_table_privilege('label_quarantine', 'SELECT')").fetchone()
            self._quarantine_readable = bool(row and row[0])
        return "id NOT IN (SELECT label_id FROM label_quarantine)" if self._quarantine_readable else "TRUE"

    @property
    def _label_columns(self) -> str:
        return _REDACTED_COLUMNS if self.reviewer_columns_only else codec.LABEL_COLUMNS

    def _bad_scores(self, texts: Iterable[str]) -> tuple[dict[str, dict[str, int | None]], list[BadRow]]:
        parsed, bad = codec.bad_scores_text(texts)
        rows: list[tuple[int, str]] = []
        for text in bad:
            rows += self._q(
                f"SELECT id, scores_json FROM labels WHERE scores_json = %s AND {self._kept()} ORDER BY id", (text,)
            ).fetchall()
        return parsed, codec.bad_scores_rows(sorted(rows))

    def _scores(self, texts: Iterable[str]) -> dict[str, dict[str, int | None]]:
        parsed, bad = self._bad_scores(texts)
        if bad:
            raise CorruptRowError.of_rows(self.path, bad)
        return parsed

    def bad_label_rows(self, check: RowCheck | None = None) -> list[BadRow]:
        """Every label row no curator quarantined whose scores document `Label` would refuse (the
        column types and CHECKs refuse the rest), then every other such row `check` finds fault with."""
        kept = self._kept()
        rows = self._q(f"SELECT {codec.LABEL_COLUMNS} FROM labels WHERE {kept} ORDER BY id").fetchall()
        parsed, found = self._bad_scores({row[3] for row in rows})
        if check is not None:
            found += codec.checked_rows(rows, parsed, check)
        return found

    def quarantine_label(self, label_id: int, reason: str, curator: str) -> Quarantine | None:
        """Record a curator's quarantine of one label row; None (nothing written) when it was quarantined before.

        A label id the store does not hold is a KeyError.
        """
        with self._write():
            if self._q("SELECT 1 FROM labels WHERE id = %s", (label_id,)).fetchone() is None:
                raise KeyError(label_id)
            row = self._q(
                """INSERT INTO label_quarantine (label_id, reason, curator, quarantined_at) VALUES (%s, %s, %s, %s)
                   ON CONFLICT DO NOTHING RETURNING label_id, reason, curator, quarantined_at""",
                (label_id, reason, curator, utc_now()),
            ).fetchone()
        return None if row is None else Quarantine._make(row)

    def quarantines(self) -> list[Quarantine]:
        """Every recorded quarantine, by label id (none for a login that may not read them)."""
        self._kept()
        if not self._quarantine_readable:
            return []
        rows = self._q("SELECT label_id, reason, curator, quarantined_at FROM label_quarantine ORDER BY label_id")
        return list(map(Quarantine._make, rows))

    def append_label(self, draft: LabelDraft, origin: str = "review") -> LabelRevision:
        """Append one label revision in one committed transaction and return it as stored."""
        with self._write():
            self._hold(label_writer(draft.reviewer))
            item_id, reviewer = draft.item_id, draft.reviewer
            latest = self._q(
                "SELECT coalesce(max(revision), 0) FROM labels WHERE item_id = %s AND reviewer = %s",
                (item_id, reviewer),
            ).fetchone()
            revealed, reason = draft.revealed, None
            if revealed is None:  # a reveal or an exposure makes it not blind, and says why
                reason = not_blind_reason(self, item_id, reviewer)
                revealed = reason is not None
            row = self._q(
                _INSERT + self._label_columns,
                (
                    item_id,
                    draft.case_id,
                    reviewer,
                    codec.scores_json(dict(draft.scores)),
                    draft.note,
                    int(draft.flagged),
                    int(draft.skipped),
                    draft.rubric_version,
                    int(revealed),
                    checked_revision(int(latest[0] if latest else 0) + 1, item_id, reviewer),
                    draft.created_at or utc_now(),
                    float(draft.seconds_spent),
                    origin,
                    reason,
                ),
            ).fetchone()
        assert row is not None  # INSERT ... RETURNING returns the row it wrote
        return codec.label_revision(row, json.loads(row[3]))

    def insert_labels(self, labels: Iterable[Label], origin: str) -> int:
        """Insert fully specified label revisions (revision numbers given) in one transaction."""
        labels = list(labels)
        rows = [codec.label_row(label, origin) for label in labels]
        with self._write():
            self._hold(*(label_writer(label.reviewer) for label in labels))
            return self._insert_all("labels", rows)

    def labels(self, *, reviewer: str | None = None, item_id: str | None = None) -> list[LabelRevision]:
        """Every label revision (history included), oldest first."""
        wanted = {"reviewer": reviewer, "item_id": item_id}
        where = " AND ".join(
            [*(f"{column} = %s" for column, value in wanted.items() if value is not None), self._kept()]
        )
        params = [value for value in wanted.values() if value is not None]
        rows = self._q(f"SELECT {self._label_columns} FROM labels WHERE {where} ORDER BY id", params).fetchall()
        scores = self._scores({row[3] for row in rows})
        # Each label gets its own dict: a caller changing one label's scores must not change another's.
        return [codec.label_revision(row, dict(scores[row[3]])) for row in rows]

    def label_reviewers(self) -> list[str]:
        return [
            row[0] for row in self._q(f"SELECT DISTINCT reviewer FROM labels WHERE {self._kept()} ORDER BY reviewer")
        ]

    def label_marks(self, reviewer: str, *, after_id: int = 0) -> list[LabelMark]:
        """`reviewer`'s revisions with id > `after_id`, oldest first, as the ledger reads them."""
        rows = self._q(
            f"""SELECT id, item_id, skipped, flagged, seconds_spent FROM labels
               WHERE reviewer = %s AND id > %s AND {self._kept()} ORDER BY id""",
            (reviewer, after_id),
        )
        return list(map(LabelMark._make, rows))

    def label_revisions(self) -> list[StoredLabel]:
        """Every label revision (history included), oldest first, with the fields the statistics read."""
        rows = self._q(
            f"""SELECT item_id, reviewer, revision, skipped, rubric_version, revealed, flagged, seconds_spent,
                      scores_json, id FROM labels WHERE {self._kept()} ORDER BY id"""
        ).fetchall()
        scores = {text: MappingProxyType(value) for text, value in self._scores({row[8] for row in rows}).items()}
        return [
            StoredLabel(
                item, reviewer, revision, skipped != 0, version, revealed != 0, flagged != 0, secs, scores[text], row_id
            )
            for item, reviewer, revision, skipped, version, revealed, flagged, secs, text, row_id in rows
        ]
