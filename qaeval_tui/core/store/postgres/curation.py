"""The production-miss inbox and its one decision per entry, on PostgreSQL.

Inbox writers queue on the inbox's writer lock (curators' and the owner's), held to their commit,
as SQLite's writers queue on its write lock: an import sees every miss stored before it, and the
first decision on an entry is the one that counts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Literal

from qaeval_tui.core.store.codec import production_miss, utc_now
from qaeval_tui.core.store.postgres.connection import INBOX_WRITER
from qaeval_tui.core.store.postgres.labels import PgLabelTables
from qaeval_tui.core.store.rows import InboxDecision, InboxImport, InboxMiss, InboxRecord, StoredMiss


class PgCurationTables(PgLabelTables):
    """The `inbox` and `inbox_decisions` tables."""

    def inbox_payloads(self, trace_ids: Iterable[str]) -> dict[str, StoredMiss]:
        """What the inbox holds of each given trace id already in it."""
        ids = list(dict.fromkeys(trace_ids))
        rows = self._q(
            "SELECT trace_id, miss_json, source, imported_at FROM inbox WHERE trace_id = ANY(%s) ORDER BY rowid",
            (ids,),
        )
        return {trace_id: StoredMiss(miss, source, at) for trace_id, miss, source, at in rows}

    def add_inbox_misses(self, misses: Sequence[InboxMiss]) -> InboxImport:
        """Add production misses in one transaction; says which trace ids were added, or which conflict.

        A trace id already stored with the same miss_json is left as it is; when any is stored with a
        different miss_json, nothing at all is added and those trace ids come back as conflicts.
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
        where = "WHERE i.trace_id = %s" if trace_id is not None else ""
        rows = self._q(
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
        self,
        trace_id: str,
        decision: Literal["promoted", "rejected"],
        *,
        case_id: str | None,
        reason: str,
        curator: str,
        decided_at: str,
        effect: Callable[[], None] | None = None,
    ) -> InboxDecision | None:
        """Record the one decision on an inbox entry, in one transaction (see the SQLite backend's)."""
        with self._write():
            self._hold(INBOX_WRITER)
            earlier = self._q(
                """SELECT decision, case_id, reason, curator, decided_at FROM inbox_decisions
                   WHERE trace_id = %s ORDER BY id LIMIT 1""",
                (trace_id,),
            ).fetchone()
            if earlier is not None:
                return InboxDecision(*earlier)
            self._q(
                """INSERT INTO inbox_decisions (trace_id, decision, case_id, reason, curator, decided_at)
                   VALUES (%s, %s, %s, %s, %s, %s)""",
                (trace_id, decision, case_id, reason, curator, decided_at),
            )
            if effect is not None:
                effect()
        return None
