"""The production-miss inbox and the one decision on each entry.

Inbox writers hold the inbox's writer lock to their commit (on SQLite, the one write lock; on a
team store, its inbox row of `writer_locks`): an import sees every miss stored before it, and the
first decision on an entry is the one that counts. A stored miss comes back as a validated
`ProductionMiss`; one edited by hand is a `CorruptRowError` naming the trace id and the field.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from qaeval_tui.core.store.codec import production_miss, utc_now
from qaeval_tui.core.store.rows import InboxDecision, InboxImport, InboxMiss, InboxRecord, StoredMiss
from qaeval_tui.core.store.seam import INBOX_WRITER, Driver

_CHUNK = 500
"""Trace ids looked up per statement: under SQLite's bound-parameter limit."""


class InboxTables(Driver):
    """The `inbox` and `inbox_decisions` tables."""

    def inbox_payloads(self, trace_ids: Iterable[str]) -> dict[str, StoredMiss]:
        """What the inbox holds of each given trace id already in it."""
        ids = list(dict.fromkeys(trace_ids))
        found: dict[str, StoredMiss] = {}
        for start in range(0, len(ids), _CHUNK):
            chunk = ids[start : start + _CHUNK]
            rows = self._rows(
                f"""SELECT trace_id, miss_json, source, imported_at FROM inbox
                    WHERE trace_id IN ({", ".join("?" * len(chunk))}) ORDER BY rowid""",
                chunk,
            )
            found.update((trace_id, StoredMiss(miss, source, at)) for trace_id, miss, source, at in rows)
        return found

    def add_inbox_misses(self, misses: Sequence[InboxMiss]) -> InboxImport:
        """Add production misses in one transaction; says which trace ids were added, or which conflict.

        A trace id already stored with the same miss_json is left as it is, so re-importing a file
        changes nothing. When any trace id is stored with a different miss_json, nothing at all is
        added and those trace ids come back as conflicts.
        """
        with self._write():
            self._hold(INBOX_WRITER)
            stored = self.inbox_payloads(miss.trace_id for miss in misses)
            conflicts = tuple(
                m.trace_id for m in misses if m.trace_id in stored and stored[m.trace_id].miss_json != m.miss_json
            )
            if conflicts:
                return InboxImport(added=(), conflicts=conflicts)
            now = utc_now()
            new = [miss for miss in misses if miss.trace_id not in stored]
            self._insert_all(
                "inbox",
                (
                    {"trace_id": m.trace_id, "miss_json": m.miss_json, "source": m.source, "imported_at": now}
                    for m in new
                ),
            )
        return InboxImport(added=tuple(miss.trace_id for miss in new), conflicts=())

    def inbox_entries(self, trace_id: str | None = None) -> list[InboxRecord]:
        """Inbox entries in import order, each with its first decision (None while pending)."""
        where = "WHERE i.trace_id = ?" if trace_id is not None else ""
        rows = self._rows(
            f"""SELECT i.trace_id, i.miss_json, i.source, i.imported_at,
                       d.decision, d.case_id, d.reason, d.curator, d.decided_at
                FROM inbox i
                LEFT JOIN inbox_decisions d
                  ON d.id = (SELECT min(id) FROM inbox_decisions WHERE trace_id = i.trace_id)
                {where} ORDER BY i.rowid""",
            () if trace_id is None else (trace_id,),
        )
        return [
            InboxRecord(
                tid,
                production_miss(self.path, tid, miss),
                source,
                at,
                None if rest[0] is None else InboxDecision(*rest),
            )
            for tid, miss, source, at, *rest in rows
        ]

    def record_inbox_decision(
        self, trace_id: str, decision: InboxDecision, *, effect: Callable[[], None] | None = None
    ) -> InboxDecision | None:
        """Record the one decision on an inbox entry, in one transaction.

        When the entry is already decided, writes nothing and returns that earlier decision.
        `effect` runs inside the transaction, after the row is written and before the commit: a file
        write that belongs with the decision (appending the promoted case) happens under the same
        write lock, and if it raises, the decision is rolled back.
        """
        with self._write():
            self._hold(INBOX_WRITER)
            earlier = self._row(
                """SELECT decision, case_id, reason, curator, decided_at FROM inbox_decisions
                   WHERE trace_id = ? ORDER BY id LIMIT 1""",
                (trace_id,),
            )
            if earlier is not None:
                return InboxDecision(*earlier)
            self._execute(
                """INSERT INTO inbox_decisions (trace_id, decision, case_id, reason, curator, decided_at)
                   VALUES (?, ?, ?, ?, ?, ?)""",
                (trace_id, decision.decision, decision.case_id, decision.reason, decision.curator, decision.decided_at),
            )
            if effect is not None:
                effect()
        return None
