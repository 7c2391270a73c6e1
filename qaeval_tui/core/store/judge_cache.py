"""The content-addressed verdict cache: a judge's valid result per (judge config, case, system output).

Keyed by the judge config hash, the case's content hash and the system output's hash, so an entry
can only ever be reused for the very question the judge answered before. It is a cache, not
history: a fresh call (`qaeval run --no-cache`) replaces the entry of the same key.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import NamedTuple

from qaeval_tui.core.store.codec import utc_now
from qaeval_tui.core.store.rows import JsonObject
from qaeval_tui.core.store.seam import Driver


class CachedJudgement(NamedTuple):
    """One cached judge result (its JSON document, as the cache module writes it) under its key."""

    config_hash: str
    case_hash: str
    output_hash: str
    result: JsonObject


CacheRow = tuple[str, str, str, str, str]
"""config_hash, case_hash, output_hash, result_json, created_at: one `judge_cache` row as written."""


def cache_rows(entries: Iterable[CachedJudgement]) -> list[CacheRow]:
    """The rows that store `entries` now (both backends write the same text)."""
    now = utc_now()
    return [(e.config_hash, e.case_hash, e.output_hash, json.dumps(e.result, ensure_ascii=False), now) for e in entries]


class JudgeCacheTables(Driver):
    """The `judge_cache` table (on a team store, shared by everyone who runs against it)."""

    def cached_judgement_texts(self, config_hash: str) -> list[tuple[str, str, str]]:
        """Every cached result of one judge config as (case_hash, output_hash, result_json): each text checked to
        be a JSON object (a row no qaeval wrote is a located CorruptRowError) and handed out as stored, so a run
        holds each entry as its text (about a third of it parsed) until the entry is asked for."""
        rows = self._rows(
            "SELECT case_hash, output_hash, result_json FROM judge_cache WHERE config_hash = ?", (config_hash,)
        )
        for case, output, text in rows:
            self.parsed(text, "judge_cache", f"{case}/{output}", "result_json")
        return [(str(case), str(output), str(text)) for case, output, text in rows]

    def cache_judgements(self, entries: Iterable[CachedJudgement]) -> int:
        """Store results in one transaction, each replacing any older entry of its key; returns how many."""
        rows = cache_rows(entries)
        if not rows:
            return 0
        with self._write():
            self._many(
                """INSERT INTO judge_cache (config_hash, case_hash, output_hash, result_json, created_at)
                   VALUES (?, ?, ?, ?, ?)
                   ON CONFLICT (config_hash, case_hash, output_hash)
                   DO UPDATE SET result_json = excluded.result_json, created_at = excluded.created_at""",
                rows,
            )
        return len(rows)
