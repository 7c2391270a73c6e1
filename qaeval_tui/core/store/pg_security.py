"""The team store's security on PostgreSQL: group roles, grants and row-level security (DESIGN §4).

`qaeval team init` applies it (idempotent: every statement creates or replaces). Each person has a
login of their own, a member of `qaeval_reviewer`, `qaeval_curator` or both (`pg_team`); the
database, not only the app, then enforces blindness and identity:

- Identity: a BEFORE INSERT trigger sets the person column (`labels.reviewer`, `reveals.reviewer`,
  `exposures.person`, `adjudications.adjudicator`, `inbox_decisions.curator`,
  `flag_resolutions.curator`) to `session_user`, whatever the client sent; a policy WITH CHECK
  says the same, should the trigger ever be dropped. Rewriting, not refusing, is the design: a
  label is always stored under the login that wrote it. The store's owner (who ran `team init`)
  and superusers are left alone: they import other people's label files and copy stores.
- Blindness: a reviewer reads the review items assigned to them (or that they labeled), the cases
  and system outputs of those items, and their own labels, reveals, exposures and gold locks. The judge's
  verdicts, other reviewers' labels and adjudications of an item become readable once they have
  submitted (not skipped) a label of their own for it and recorded their reveal of it (the app's
  `r`; a reveal needs that submit), so a later revision of theirs is always marked not blind.
  Runs are invisible to them (a run names the
  system that answered), and so is `run_outputs.result_json` (column privileges). The inbox, its
  decisions, flag resolutions and the judge's verdict cache are not granted at all, nor the
  identity sequences (their counters would show how many labels and adjudications others made),
  nor a label's `id` (the database numbers it). Nothing is granted UPDATE or DELETE but the
  curators' cache entries and queues.
- Only the logins added for this store may connect to its database: the two groups are the
  server's, and a second qaeval store on the same server has logins of its own.
- A curator reads everything and writes what curation writes (runs, review items and queues,
  inbox decisions, adjudications, exposures, flag resolutions); never another person's label.

The two SECURITY DEFINER functions, `qaeval_submitted(item_id)` and `qaeval_revealed(item_id)`,
answer only "has the session's own login submitted a label for this item" and "... recorded a
reveal of it" (a policy on `labels` cannot read `labels` itself under its own row security, nor
reach it again through a sublink); it names its tables with their schema and runs with `search_path`
set to `pg_catalog, pg_temp`, so no object a user creates can stand in for one it uses.
"""

from __future__ import annotations

from typing import Any

from psycopg import sql

from qaeval_tui.core.store.tables import TABLE_SPECS

REVIEWER_GROUP = "qaeval_reviewer"
CURATOR_GROUP = "qaeval_curator"
GROUPS = {"reviewer": REVIEWER_GROUP, "curator": CURATOR_GROUP}

TABLES = (
    "cases",
    "runs",
    "run_outputs",
    "judge_verdicts",
    "review_items",
    "assignments",
    "labels",
    "reveals",
    "adjudications",
    "inbox",
    "inbox_decisions",
    "exposures",
    "flag_resolutions",
    "gold_shown",
    "judge_cache",
    "rubrics",
)
"""Every table of the store; row security is enabled on each."""

PERSON_COLUMN = {
    "labels": "reviewer",
    "reveals": "reviewer",
    "exposures": "person",
    "adjudications": "adjudicator",
    "inbox_decisions": "curator",
    "flag_resolutions": "curator",
    "gold_shown": "reviewer",
    "rubrics": "published_by",
}
"""The column naming who wrote a row: always the session's login (the trigger sets it)."""

_RUN_OUTPUT_COLUMNS = ("run_id", "position", "case_id", "case_hash", "output_hash", "output_json")
"""What a reviewer may read of a system output: not `result_json` (the run's checks and metrics)."""

REVIEWER_READS = (
    "cases",
    "runs",
    "review_items",
    "assignments",
    "judge_verdicts",
    "labels",
    "reveals",
    "exposures",
    "adjudications",
    "gold_shown",
    "rubrics",
)
REVIEWER_WRITES = ("labels", "reveals", "gold_shown")
CURATOR_WRITES = (
    "cases",
    "runs",
    "run_outputs",
    "judge_verdicts",
    "review_items",
    "assignments",
    "reveals",
    "adjudications",
    "inbox",
    "inbox_decisions",
    "exposures",
    "flag_resolutions",
    "judge_cache",
    "rubrics",
)
CURATOR_UPDATES = ("judge_cache",)  # a cache, not history: a fresh judge call replaces its key's entry
CURATOR_DELETES = ("assignments",)  # `qaeval queue --replace` rebuilds the queues; labels stay

_SUBMITTED = "{fn}(item_id)"  # the session's login has submitted a label for this row's item
# ... and recorded its reveal of the item (which needs that submit): what the app shows on reveal is read
# only once the reveal is on record, so every later revision of theirs must say it is not blind.
# A function, as `qaeval_submitted`: a sublink in the policy on `labels` would recurse through `review_items`.
_REVEALED = "{revealed_fn}(item_id)"
REVIEWER_SEES: dict[str, str] = {
    "cases": "EXISTS (SELECT 1 FROM {review_items} r WHERE r.case_hash = {this}.case_hash)",
    "runs": "false",
    "run_outputs": (
        "EXISTS (SELECT 1 FROM {review_items} r WHERE r.run_id = {this}.run_id AND r.case_id = {this}.case_id)"
    ),
    "review_items": (
        "EXISTS (SELECT 1 FROM {assignments} a WHERE a.item_id = {this}.item_id AND a.reviewer = session_user) "
        "OR EXISTS (SELECT 1 FROM {labels} l WHERE l.item_id = {this}.item_id AND l.reviewer = session_user)"
    ),
    "assignments": "reviewer = session_user",
    "judge_verdicts": _REVEALED,
    "labels": f"reviewer = session_user OR {_REVEALED}",
    "reveals": "reviewer = session_user",
    "exposures": "person = session_user",
    "adjudications": _REVEALED,
    "gold_shown": "reviewer = session_user",
    "rubrics": "true",  # the rubric every label is made under: everyone's to read
}
"""The rows of each table a reviewer's login reads (a SQL condition on the row, `{this}`)."""

REVIEWER_INSERTS: dict[str, str] = {
    "labels": (
        "reviewer = session_user AND EXISTS (SELECT 1 FROM {review_items} r WHERE r.item_id = {this}.item_id) "
        # A revision after the reveal or an exposure is not blind, and must say so (statistics trust `revealed`).
        "AND (revealed = 1 OR NOT EXISTS (SELECT 1 FROM {reveals} v WHERE v.item_id = {this}.item_id "
        "AND v.reviewer = session_user) AND NOT EXISTS (SELECT 1 FROM {exposures} e "
        "WHERE e.item_id = {this}.item_id AND e.person = session_user))"
    ),
    "reveals": f"reviewer = session_user AND {_SUBMITTED}",
    "gold_shown": (
        "reviewer = session_user AND EXISTS (SELECT 1 FROM {review_items} r WHERE r.item_id = {this}.item_id)"
    ),
}
"""The rows a reviewer's login may add: their own, on an item of theirs (a reveal after a submit; a label
marked revealed once they revealed the verdict or were exposed to it)."""


def _format(template: str, schema: str, table: str) -> sql.Composed:
    """A policy condition with its tables named with their schema (`{labels}`), `{this}` the row's table."""
    names: dict[str, Any] = {name: sql.Identifier(schema, name) for name in TABLES}
    names["this"] = sql.Identifier(schema, table)
    names["fn"] = sql.Identifier(schema, "qaeval_submitted")
    names["revealed_fn"] = sql.Identifier(schema, "qaeval_revealed")
    return sql.SQL(template).format(**names)


def _ensure_group(name: str) -> sql.Composed:
    return sql.SQL(
        "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = {literal}) THEN "
        "CREATE ROLE {ident} NOLOGIN; END IF; END $$"
    ).format(literal=sql.Literal(name), ident=sql.Identifier(name))


def _functions(schema: str) -> list[sql.Composed]:
    fn = sql.Identifier(schema, "qaeval_submitted")
    revealed_fn = sql.Identifier(schema, "qaeval_revealed")
    trigger_fn = sql.Identifier(schema, "qaeval_as_session_user")
    groups = sql.SQL(", ").join(map(sql.Identifier, GROUPS.values()))
    return [
        sql.SQL(
            """CREATE OR REPLACE FUNCTION {fn}(p_item_id text) RETURNS boolean
               LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
               AS $$ SELECT EXISTS (SELECT 1 FROM {labels} l WHERE l.item_id = p_item_id
                                    AND l.reviewer = session_user AND l.skipped = 0) $$"""
        ).format(fn=fn, labels=sql.Identifier(schema, "labels")),
        sql.SQL("REVOKE ALL ON FUNCTION {fn}(text) FROM PUBLIC").format(fn=fn),
        sql.SQL("GRANT EXECUTE ON FUNCTION {fn}(text) TO {groups}").format(fn=fn, groups=groups),
        sql.SQL(
            """CREATE OR REPLACE FUNCTION {fn}(p_item_id text) RETURNS boolean
               LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
               AS $$ SELECT EXISTS (SELECT 1 FROM {reveals} v WHERE v.item_id = p_item_id
                                    AND v.reviewer = session_user) $$"""
        ).format(fn=revealed_fn, reveals=sql.Identifier(schema, "reveals")),
        sql.SQL("REVOKE ALL ON FUNCTION {fn}(text) FROM PUBLIC").format(fn=revealed_fn),
        sql.SQL("GRANT EXECUTE ON FUNCTION {fn}(text) TO {groups}").format(fn=revealed_fn, groups=groups),
        # Not SECURITY DEFINER: it reads only catalogs every login may read.
        sql.SQL(
            """CREATE OR REPLACE FUNCTION {fn}() RETURNS trigger
               LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
               AS $$ BEGIN
                 IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = session_user AND rolsuper)
                    AND session_user <> (SELECT pg_catalog.pg_get_userbyid(c.relowner)
                                         FROM pg_catalog.pg_class c WHERE c.oid = TG_RELID) THEN
                   NEW := pg_catalog.jsonb_populate_record(
                     NEW, pg_catalog.jsonb_build_object(TG_ARGV[0], session_user::text));
                 END IF;
                 RETURN NEW;
               END $$"""
        ).format(fn=trigger_fn),
    ]


def security_statements(database: str, schema: str) -> list[sql.Composed]:
    """Every statement `team init` runs after the migrations, in order; each may run again."""
    reviewer, curator = sql.Identifier(REVIEWER_GROUP), sql.Identifier(CURATOR_GROUP)
    schema_id = sql.Identifier(schema)
    statements: list[sql.Composed] = [_ensure_group(name) for name in GROUPS.values()]
    # The groups are the server's, shared by every qaeval store on it: only the logins `team add`
    # made for this store may connect to it (nor make temporary tables that could stand in for its own).
    statements.append(sql.SQL("REVOKE CONNECT, TEMPORARY ON DATABASE {} FROM PUBLIC").format(sql.Identifier(database)))
    statements.append(sql.SQL("GRANT USAGE ON SCHEMA {} TO {}, {}").format(schema_id, reviewer, curator))
    # No login but the owner creates objects beside the store's (PostgreSQL 15 revokes it by default).
    statements.append(sql.SQL("REVOKE CREATE ON SCHEMA {} FROM PUBLIC").format(schema_id))
    # Every login reads the schema version when it opens the store (and may not upgrade it).
    statements.append(
        sql.SQL(
            "DO $$ BEGIN IF to_regclass({table}) IS NOT NULL THEN GRANT SELECT ON {ident} TO {r}, {c}; END IF; END $$"
        ).format(
            table=sql.Literal(f'"{schema}".schema_version'),
            ident=sql.Identifier(schema, "schema_version"),
            r=reviewer,
            c=curator,
        )
    )
    statements += _functions(schema)
    for table in TABLES:
        this = sql.Identifier(schema, table)
        statements.append(sql.SQL("ALTER TABLE {} ENABLE ROW LEVEL SECURITY").format(this))
        statements.append(sql.SQL("REVOKE ALL ON {} FROM PUBLIC, {}, {}").format(this, reviewer, curator))
        statements.append(sql.SQL("GRANT SELECT ON {} TO {}").format(this, curator))
        verbs = [
            verb
            for verb, tables in (("INSERT", CURATOR_WRITES), ("UPDATE", CURATOR_UPDATES), ("DELETE", CURATOR_DELETES))
            if table in tables
        ]
        if verbs:
            statements.append(sql.SQL("GRANT {} ON {} TO {}").format(sql.SQL(", ".join(verbs)), this, curator))
        statements += _policy(table, "qaeval_curator_all", "ALL", curator, "true", "true", schema)
        if table in REVIEWER_READS:
            statements.append(sql.SQL("GRANT SELECT ON {} TO {}").format(this, reviewer))
        if table == "run_outputs":
            columns = sql.SQL(", ").join(map(sql.Identifier, _RUN_OUTPUT_COLUMNS))
            statements.append(sql.SQL("GRANT SELECT ({}) ON {} TO {}").format(columns, this, reviewer))
        if table in REVIEWER_SEES:
            statements += _policy(
                table, "qaeval_reviewer_reads", "SELECT", reviewer, REVIEWER_SEES[table], None, schema
            )
        if table in REVIEWER_WRITES:
            # Not `id`: the database numbers a reviewer's labels (a chosen id could take another's next one).
            writable = sql.SQL(", ").join(
                sql.Identifier(column) for column in TABLE_SPECS[table].columns if column != "id"
            )
            statements.append(sql.SQL("GRANT INSERT ({}) ON {} TO {}").format(writable, this, reviewer))
            statements += _policy(
                table, "qaeval_reviewer_adds", "INSERT", reviewer, None, REVIEWER_INSERTS[table], schema
            )
        if table in PERSON_COLUMN:
            statements.append(
                sql.SQL(
                    "CREATE OR REPLACE TRIGGER qaeval_written_as_session_user BEFORE INSERT ON {} "
                    "FOR EACH ROW EXECUTE FUNCTION {}({})"
                ).format(this, sql.Identifier(schema, "qaeval_as_session_user"), sql.Literal(PERSON_COLUMN[table]))
            )
    # An identity column needs no right on its sequence to number a row; reading one would show a reviewer
    # how many verdicts, labels and adjudications (disagreements) there are, and watch them grow.
    statements.append(sql.SQL("REVOKE ALL ON ALL SEQUENCES IN SCHEMA {} FROM PUBLIC, {}").format(schema_id, reviewer))
    statements.append(sql.SQL("GRANT USAGE ON ALL SEQUENCES IN SCHEMA {} TO {}").format(schema_id, curator))
    return statements


def _policy(
    table: str, name: str, command: str, role: sql.Identifier, using: str | None, check: str | None, schema: str
) -> list[sql.Composed]:
    this = sql.Identifier(schema, table)
    parts = [sql.SQL("CREATE POLICY {} ON {} FOR {} TO {}").format(sql.Identifier(name), this, sql.SQL(command), role)]
    if using is not None:
        parts.append(sql.SQL("USING ({})").format(_format(using, schema, table)))
    if check is not None:
        parts.append(sql.SQL("WITH CHECK ({})").format(_format(check, schema, table)))
    return [
        sql.SQL("DROP POLICY IF EXISTS {} ON {}").format(sql.Identifier(name), this),
        sql.SQL(" ").join(parts),
    ]
