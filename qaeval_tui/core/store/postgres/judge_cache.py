"""The content-addressed verdict cache on PostgreSQL: shared by everyone who runs against the team store."""

from __future__ import annotations

from collections.abc import Iterable

from qaeval_tui.core.store.judge_cache import CachedJudgement, cache_rows, judgements
from qaeval_tui.core.store.postgres.connection import PgConnection


class PgJudgeCacheTables(PgConnection):
    """The `judge_cache` table."""

    def cached_judgements(self, config_hash: str) -> list[CachedJudgement]:
        """Every cached result of one judge config; a row no qaeval wrote is a located CorruptRowError."""
        rows = self._q(
            "SELECT case_hash, output_hash, result_json FROM judge_cache WHERE config_hash = %s", (config_hash,)
        ).fetchall()
        return judgements(config_hash, rows, self.parsed)

    def cache_judgements(self, entries: Iterable[CachedJudgement]) -> int:
        """Store results in one transaction, each replacing any older entry of its key; returns how many."""
        rows = cache_rows(entries)
        if not rows:
            return 0
        with self._write() as conn, conn.cursor() as cursor:
            cursor.executemany(
                """INSERT INTO judge_cache (config_hash, case_hash, output_hash, result_json, created_at)
                   VALUES (%s, %s, %s, %s, %s)
                   ON CONFLICT (config_hash, case_hash, output_hash)
                   DO UPDATE SET result_json = excluded.result_json, created_at = excluded.created_at""",
                rows,
            )
        return len(rows)
