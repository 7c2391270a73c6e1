"""The schema and its migrations, numbered by SQLite's `user_version`.

Raw SQL throughout: the first schema is what every existing store file holds (AUTOINCREMENT ids,
composite UNIQUE keys, append-only triggers, none of which sqlite-utils' `create` writes), and
opening a store must not import sqlite-utils (it slows the review TUI's cold start).
"""

from __future__ import annotations

APPEND_ONLY = ("runs", "run_outputs", "judge_verdicts", "labels", "adjudications", "inbox_decisions")
_RESOLUTIONS_APPEND_ONLY = tuple(
    f"""CREATE TRIGGER IF NOT EXISTS flag_resolutions_no_{verb.lower()} BEFORE {verb} ON flag_resolutions
        BEGIN SELECT RAISE(ABORT, 'flag_resolutions are append-only'); END"""
    for verb in ("UPDATE", "DELETE")
)

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    # 1: the whole first schema.
    (
        """CREATE TABLE cases (
            case_hash TEXT PRIMARY KEY, case_id TEXT NOT NULL, split TEXT NOT NULL, case_json TEXT NOT NULL)""",
        "CREATE INDEX cases_by_id ON cases(case_id)",
        """CREATE TABLE runs (
            run_id TEXT PRIMARY KEY, suite_hash TEXT NOT NULL, adapter TEXT NOT NULL, judge_name TEXT,
            judge_config_hash TEXT, code_version TEXT NOT NULL, started_at TEXT NOT NULL,
            finished_at TEXT NOT NULL, n_cases INTEGER NOT NULL, data_json TEXT NOT NULL,
            metrics_json TEXT NOT NULL)""",
        """CREATE TABLE run_outputs (
            run_id TEXT NOT NULL REFERENCES runs(run_id), position INTEGER NOT NULL, case_id TEXT NOT NULL,
            case_hash TEXT NOT NULL, output_hash TEXT NOT NULL, output_json TEXT NOT NULL,
            result_json TEXT NOT NULL, PRIMARY KEY (run_id, case_id))""",
        """CREATE TABLE judge_verdicts (
            id INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT, item_id TEXT NOT NULL, case_id TEXT NOT NULL,
            judge_name TEXT NOT NULL, config_hash TEXT NOT NULL, status TEXT NOT NULL,
            verdict_json TEXT NOT NULL, created_at TEXT NOT NULL)""",
        "CREATE INDEX verdicts_by_item ON judge_verdicts(item_id, config_hash)",
        """CREATE TABLE review_items (
            item_id TEXT PRIMARY KEY, case_id TEXT NOT NULL, case_hash TEXT NOT NULL,
            output_hash TEXT NOT NULL, run_id TEXT NOT NULL, created_at TEXT NOT NULL)""",
        """CREATE TABLE assignments (
            reviewer TEXT NOT NULL, item_id TEXT NOT NULL REFERENCES review_items(item_id),
            position INTEGER NOT NULL, seed INTEGER NOT NULL, created_at TEXT NOT NULL,
            PRIMARY KEY (reviewer, item_id))""",
        "CREATE INDEX assignments_in_order ON assignments(reviewer, position)",
        """CREATE TABLE labels (
            id INTEGER PRIMARY KEY AUTOINCREMENT, item_id TEXT NOT NULL, case_id TEXT NOT NULL,
            reviewer TEXT NOT NULL, revision INTEGER NOT NULL, scores_json TEXT NOT NULL,
            note TEXT NOT NULL, flagged INTEGER NOT NULL, skipped INTEGER NOT NULL,
            rubric_version TEXT NOT NULL, revealed INTEGER NOT NULL, created_at TEXT NOT NULL,
            seconds_spent REAL NOT NULL, origin TEXT NOT NULL, UNIQUE (item_id, reviewer, revision))""",
        "CREATE INDEX labels_by_reviewer ON labels(reviewer, item_id)",
        """CREATE TABLE reveals (
            item_id TEXT NOT NULL, reviewer TEXT NOT NULL, revealed_at TEXT NOT NULL,
            PRIMARY KEY (item_id, reviewer))""",
        """CREATE TABLE adjudications (
            id INTEGER PRIMARY KEY AUTOINCREMENT, item_id TEXT NOT NULL, axis TEXT NOT NULL, score INTEGER,
            reason TEXT NOT NULL, adjudicator TEXT NOT NULL, created_at TEXT NOT NULL)""",
        """CREATE TABLE inbox (
            trace_id TEXT PRIMARY KEY, miss_json TEXT NOT NULL, source TEXT NOT NULL, imported_at TEXT NOT NULL)""",
        """CREATE TABLE inbox_decisions (
            id INTEGER PRIMARY KEY AUTOINCREMENT, trace_id TEXT NOT NULL REFERENCES inbox(trace_id),
            decision TEXT NOT NULL, case_id TEXT, reason TEXT NOT NULL, curator TEXT NOT NULL,
            decided_at TEXT NOT NULL)""",
        *(
            f"""CREATE TRIGGER {table}_no_{verb.lower()} BEFORE {verb} ON {table}
                BEGIN SELECT RAISE(ABORT, '{table} are append-only'); END"""
            for table in APPEND_ONLY
            for verb in ("UPDATE", "DELETE")
        ),
    ),
    # 2: a review session reads one reviewer's revisions in id order from the index alone. IF NOT
    # EXISTS: two processes opening an old store at once may both decide to upgrade it.
    (
        """CREATE INDEX IF NOT EXISTS labels_by_reviewer_in_order
           ON labels(reviewer, id, item_id, skipped, flagged, seconds_spent)""",
    ),
    # 3: exposure (DESIGN §4). A person who opened a curator view showing an item's hidden
    # information (judge verdict, other reviewers' labels, consensus) is recorded, the first time
    # per view; their later labels on it are not blind, and the label says why.
    (
        """CREATE TABLE IF NOT EXISTS exposures (
            item_id TEXT NOT NULL, person TEXT NOT NULL, view TEXT NOT NULL, seen TEXT NOT NULL,
            seen_at TEXT NOT NULL, PRIMARY KEY (item_id, person, view))""",
        "ALTER TABLE labels ADD COLUMN not_blind_reason TEXT",
        *(
            f"""CREATE TRIGGER IF NOT EXISTS exposures_no_{verb.lower()} BEFORE {verb} ON exposures
                BEGIN SELECT RAISE(ABORT, 'exposures are append-only'); END"""
            for verb in ("UPDATE", "DELETE")
        ),
    ),
    # 4 (flags queue): a curator's resolution of a flag or note, one per label revision, never changed.
    (
        """CREATE TABLE IF NOT EXISTS flag_resolutions (
            label_id INTEGER PRIMARY KEY REFERENCES labels(id), note TEXT NOT NULL, curator TEXT NOT NULL,
            resolved_at TEXT NOT NULL)""",
        *_RESOLUTIONS_APPEND_ONLY,
    ),
    # 5 (rulings cite guidelines): the guideline section an adjudication cites (`core.guideline_sections`
    # id), or NULL; rulings made before it cite none.
    ("ALTER TABLE adjudications ADD COLUMN cites TEXT",),
)
SCHEMA_VERSION = len(MIGRATIONS)
