"""The team store's security on PostgreSQL: group roles, grants and row-level security (DESIGN §4).

`qaeval team init` applies it (idempotent: every statement creates or replaces). Each person has a
login of their own, a member of `qaeval_reviewer`, `qaeval_curator` or both (`pg_team`); the
database, not only the app, then enforces blindness and identity, against any SQL a login sends:

- Identity: a BEFORE INSERT trigger sets the person column (`labels.reviewer`, `reveals.reviewer`,
  `exposures.person`, `adjudications.adjudicator`, `inbox_decisions.curator`,
  `flag_resolutions.curator`) to `session_user`, whatever the client sent; a policy WITH CHECK
  says the same, should the trigger ever be dropped. Rewriting, not refusing, is the design: a
  label is always stored under the login that wrote it. Another sets the time of what a person
  writes (SERVER_TIME) to the server's, and a label's case id to its review item's. The store's
  owner (who ran `team init`) and superusers are left alone: they import other people's label files
  and copy stores.
- A person's rows are those under any of their login's names, now or before: `qaeval team rename`
  records each rename in `renames` (the owner's table: no group writes it), and every "is this row
  mine" below compares with `qaeval_my_names()` (the login's chain of renames), not `session_user`
  alone. A reviewer reads their own renames, a curator all.
- Blindness: a reviewer reads the review items assigned to them (or that they labeled), and their
  own labels, reveals, exposures and gold locks. An item's case and output come only through
  `qaeval_review_item`: the case redacted to what the review screen shows before a submit (question,
  sources, the opaque item id) until their gold lock of it is on record (then the gold fields), whole
  once their reveal is; never the run, the case hash, or (until the reveal) the readable case id,
  which no column they read holds either. The judge's verdicts, other reviewers' labels and
  adjudications of an item become readable once they have submitted (not skipped) a label of their
  own for it and their reveal of it is *durably* on record: committed by an earlier transaction (the
  reveal row's `recorded_in` is not the session's transaction in progress), so a rollback or a
  savepoint opens nothing, and every later revision of theirs is marked not blind (a policy).
  Runs are invisible to them. They read the quarantine of a label row they may read (their own, and
  a peer's once revealed), so their reads leave it out as a curator's do: their review screen never
  shows a quarantined revision of theirs. The inbox, its decisions, flag resolutions and the judge's
  verdict cache are not granted at all, nor the identity sequences (their counters would show how many
  labels and adjudications others made), nor a label's `id` (the database numbers it).
- A login holding both roles is a reviewer for its own items (queued to it or labelled by it): the
  curator's reads of those items' hidden rows (case, output, run, verdicts, others' labels,
  adjudications) are withheld by restrictive policies until its reveal is on record, it adds labels
  and reveals under the reviewer's rules only, and it never rules on one of them.
- Writers queue on rows of `writer_locks`, taken only by `qaeval_hold`, which lets a login lock its
  own row alone (a curator also the inbox's): no login can stall another's writes. Nothing is
  granted UPDATE or DELETE but the curators' cache entries and queues.
- Only the logins added for this store may connect to its database: the two groups are the
  server's, and a second qaeval store on the same server has logins of its own.
- A curator reads everything else and writes what curation writes (runs, review items and queues,
  inbox decisions, adjudications, exposures, flag resolutions, label quarantines); never another
  person's label.
- Run by a superuser, `team init` also closes the catalogs' side channels in the store's database
  (`side_channel_statements`).

The SECURITY DEFINER functions answer only for the session's own login ("has it submitted a label
for this item", "... is its reveal on record", "is this item its own") or return only what a policy
would let it read (a policy on `labels` cannot read `labels` itself under its own row security, nor
reach it again through a sublink); each names its tables with their schema and runs with
`search_path` set to `pg_catalog, pg_temp`, so no object a user creates can stand in for one it uses.
"""

from __future__ import annotations

from typing import Any

from psycopg import sql

from qaeval_tui.core.store.pg_functions import function_statements
from qaeval_tui.core.store.pg_names import CURATOR_GROUP, GROUPS, REVIEWER_GROUP, TABLES
from qaeval_tui.core.store.pg_side_channels import side_channel_statements
from qaeval_tui.core.store.tables import TABLE_SPECS

__all__ = ["CURATOR_GROUP", "GROUPS", "REVIEWER_GROUP", "TABLES", "security_statements", "side_channel_statements"]

PERSON_COLUMN = {
    "labels": "reviewer",
    "reveals": "reviewer",
    "exposures": "person",
    "adjudications": "adjudicator",
    "inbox_decisions": "curator",
    "flag_resolutions": "curator",
    "gold_shown": "reviewer",
    "label_quarantine": "curator",
    "rubrics": "published_by",
}
"""The column naming who wrote a row: always the session's login (the trigger sets it)."""


REVIEWER_READS = (
    "runs",
    "run_ends",
    "assignments",
    "judge_verdicts",
    "labels",
    "reveals",
    "exposures",
    "adjudications",
    "gold_shown",
    "rubrics",
    "label_quarantine",
    "renames",
)
"""Tables a reviewer's login reads (its policy choosing the rows). Not `cases` nor `run_outputs`: a
reviewer reads an item's case and output through `qaeval_review_item`, redacted until the gold lock."""
REVIEWER_COLUMNS = {
    "review_items": ("item_id", "output_hash", "created_at"),
    "labels": tuple(c for c in TABLE_SPECS["labels"].columns if c != "case_id"),
}
"""Tables a reviewer reads only some columns of: not the readable case id, the case's hash, nor the
run (which names the system that answered)."""
REVIEWER_WRITES = ("labels", "reveals", "gold_shown")
CURATOR_WRITES = (
    "cases",
    "runs",
    "run_ends",
    "run_outputs",
    "judge_verdicts",
    "review_items",
    "assignments",
    "adjudications",
    "inbox",
    "inbox_decisions",
    "exposures",
    "flag_resolutions",
    "judge_cache",
    "label_quarantine",
    "rubrics",
)
CURATOR_UPDATES = ("judge_cache",)  # a cache, not history: a fresh judge call replaces its key's entry
CURATOR_DELETES = ("assignments",)  # `qaeval queue --replace` rebuilds the queues; labels stay

_SUBMITTED = "{fn}(item_id)"  # the session's login has submitted a label for this row's item
# ... and recorded its reveal of the item (which needs that submit), durably: what the app shows on reveal
# is read only once the reveal is committed, so every later revision of theirs must say it is not blind.
# A function, as `qaeval_submitted`: a sublink in the policy on `labels` would recurse through `review_items`.
_REVEALED = "{revealed_fn}(item_id)"
REVIEWER_SEES: dict[str, str] = {
    "runs": "false",
    "run_ends": "false",  # read with `runs` (which finished), never a row of its own
    "review_items": (
        "EXISTS (SELECT 1 FROM {assignments} a WHERE a.item_id = {this}.item_id AND a.reviewer = ANY ({mine})) "
        "OR EXISTS (SELECT 1 FROM {labels} l WHERE l.item_id = {this}.item_id AND l.reviewer = ANY ({mine}))"
    ),
    "assignments": "reviewer = ANY ({mine})",
    "judge_verdicts": _REVEALED,
    "labels": f"reviewer = ANY ({{mine}}) OR {_REVEALED}",
    "reveals": "reviewer = ANY ({mine})",
    "exposures": "person = ANY ({mine})",
    "adjudications": _REVEALED,
    "gold_shown": "reviewer = ANY ({mine})",
    # Their own renames: which of the names in the store are theirs (the store's reads take them all).
    "renames": "old_name = ANY ({mine}) OR new_name = ANY ({mine})",
    "rubrics": "true",  # the rubric every label is made under: everyone's to read
    # The quarantine of a label row the login reads (the sublink runs under the policy on `labels`): what its
    # reads of labels leave out, as a curator's do. Nothing about a row it cannot read.
    "label_quarantine": "EXISTS (SELECT 1 FROM {labels} l WHERE l.id = {this}.label_id)",
}
"""The rows of each table a reviewer's login reads (a SQL condition on the row, `{this}`)."""

_WITHHELD_ITEM = "item_id = ANY ((SELECT {withheld_items_fn}())::text[])"  # once per query (an InitPlan), not per row
CURATOR_SEES: dict[str, str] = {
    # Functions, not sublinks on the tables: this very policy hides those review items from the login's reads.
    "cases": "NOT case_hash = ANY ((SELECT {withheld_cases_fn}())::text[])",
    "run_outputs": (
        "NOT pg_catalog.json_build_array(run_id, case_id)::text = ANY ((SELECT {withheld_outputs_fn}())::text[])"
    ),
    "review_items": f"NOT {_WITHHELD_ITEM}",
    "judge_verdicts": f"NOT {_WITHHELD_ITEM}",
    "labels": f"reviewer = ANY ({{mine}}) OR NOT {_WITHHELD_ITEM}",
    "adjudications": f"NOT {_WITHHELD_ITEM}",
}
"""A curator reads every row but those of items in their own review queue (a login holding both roles)
whose reveal is not on record: for those they are a reviewer like any other. A restrictive policy, so
that the reviewer group's own (permissive) policies cannot open them again for such a login."""

REVIEWER_INSERTS: dict[str, str] = {
    "labels": (
        "reviewer = session_user AND {own_fn}(item_id) "
        # A revision after the reveal or an exposure is not blind, and must say so (statistics trust `revealed`).
        "AND (revealed = 1 OR NOT EXISTS (SELECT 1 FROM {reveals} v WHERE v.item_id = {this}.item_id "
        "AND v.reviewer = ANY ({mine})) AND NOT EXISTS (SELECT 1 FROM {exposures} e "
        "WHERE e.item_id = {this}.item_id AND e.person = ANY ({mine}))) "
        # Once the gold answer was shown, the blind axes it locked keep their scores (DESIGN §4). A document the
        # table's CHECK refuses is left to it (CASE: nothing parses it first).
        "AND CASE WHEN skipped = 1 OR NOT {scores_ok_fn}(scores_json) THEN true ELSE NOT EXISTS ("
        "SELECT 1 FROM {gold_shown} g CROSS JOIN LATERAL pg_catalog.json_each(CASE WHEN {scores_ok_fn}("
        "g.blind_scores_json) THEN g.blind_scores_json::json ELSE '{{}}'::json END) b "
        "WHERE g.item_id = {this}.item_id AND g.reviewer = ANY ({mine}) "
        "AND (({this}.scores_json::json) -> b.key)::text IS DISTINCT FROM b.value::text) END"
    ),
    "reveals": f"reviewer = session_user AND {_SUBMITTED}",
    "gold_shown": "reviewer = session_user AND {own_fn}(item_id)",
}
"""The rows a reviewer's login may add: their own, on an item of theirs (a reveal after a submit; a label
marked revealed once they revealed the verdict or were exposed to it)."""

CURATOR_INSERTS: dict[str, str] = {
    # A curator never rules on an item they labelled or have queued (DESIGN §4).
    "adjudications": "NOT {own_fn}(item_id)",
    # Nor changes their own queue: dropping an item from it would open the item's hidden rows, and adding one
    # they curated would have them label it as if blind. Another curator or the owner does.
    "assignments": "NOT reviewer = ANY ({mine})",
}
"""What a curator's login may add beyond any row of a table it writes (CURATOR_WRITES)."""

SERVER_TIME = {"labels": "created_at", "reveals": "revealed_at", "gold_shown": "shown_at", "exposures": "seen_at"}
"""The column of each table a person's login writes whose time the server sets, whatever the client sent:
blindness is decided by order (ids, the transaction a reveal committed in), never by a client's clock."""


def _format(template: str, schema: str, table: str) -> sql.Composed:
    """A policy condition with its tables named with their schema (`{labels}`), `{this}` the row's table."""
    names: dict[str, Any] = {name: sql.Identifier(schema, name) for name in TABLES}
    names["this"] = sql.Identifier(schema, table)
    names["fn"] = sql.Identifier(schema, "qaeval_submitted")
    names["revealed_fn"] = sql.Identifier(schema, "qaeval_revealed")
    names["own_fn"] = sql.Identifier(schema, "qaeval_own_item")
    names["scores_ok_fn"] = sql.Identifier(schema, "qaeval_scores_ok")
    # The session login's names, now and before (`qaeval team rename`): once per query, not per row.
    names["mine"] = sql.SQL("(SELECT {}())::text[]").format(sql.Identifier(schema, "qaeval_my_names"))
    for name in ("items", "cases", "outputs"):
        names[f"withheld_{name}_fn"] = sql.Identifier(schema, f"qaeval_withheld_{name}")
    return sql.SQL(template).format(**names)


def _ensure_group(name: str) -> sql.Composed:
    return sql.SQL(
        "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = {literal}) THEN "
        "CREATE ROLE {ident} NOLOGIN; END IF; END $$"
    ).format(literal=sql.Literal(name), ident=sql.Identifier(name))


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
    statements += function_statements(schema)
    for table in TABLES:
        statements += _table_statements(table, schema)
    # An identity column needs no right on its sequence to number a row; reading one would show a reviewer
    # how many verdicts, labels and adjudications (disagreements) there are, and watch them grow.
    statements.append(sql.SQL("REVOKE ALL ON ALL SEQUENCES IN SCHEMA {} FROM PUBLIC, {}").format(schema_id, reviewer))
    statements.append(sql.SQL("GRANT USAGE ON ALL SEQUENCES IN SCHEMA {} TO {}").format(schema_id, curator))
    return statements


def _table_statements(table: str, schema: str) -> list[sql.Composed]:
    """The grants, policies and triggers of one table."""
    reviewer, curator = sql.Identifier(REVIEWER_GROUP), sql.Identifier(CURATOR_GROUP)
    this = sql.Identifier(schema, table)
    statements = [
        sql.SQL("ALTER TABLE {} ENABLE ROW LEVEL SECURITY").format(this),
        sql.SQL("REVOKE ALL ON {} FROM PUBLIC, {}, {}").format(this, reviewer, curator),
        sql.SQL("DROP POLICY IF EXISTS qaeval_curator_all ON {}").format(this),  # one policy for all, before
    ]
    if table == "writer_locks":  # nobody's but through `qaeval_hold`
        return statements
    statements.append(sql.SQL("GRANT SELECT ON {} TO {}").format(this, curator))
    statements += _policy(table, "qaeval_curator_reads", "SELECT", curator, "true", None, schema)
    if table in CURATOR_SEES:
        # A curator who is no reviewer has no items of their own: asked first, it spares the lookups per row.
        withheld = f"NOT pg_catalog.pg_has_role(session_user, '{REVIEWER_GROUP}', 'MEMBER') OR ({CURATOR_SEES[table]})"
        statements += _policy(
            table, "qaeval_curator_withheld", "SELECT", curator, withheld, None, schema, restrictive=True
        )
    if table in CURATOR_WRITES:
        statements.append(sql.SQL("GRANT INSERT ON {} TO {}").format(this, curator))
        check = CURATOR_INSERTS.get(table, "true")
        statements += _policy(table, "qaeval_curator_adds", "INSERT", curator, None, check, schema)
    for verb, tables, name in (
        ("UPDATE", CURATOR_UPDATES, "qaeval_curator_updates"),
        ("DELETE", CURATOR_DELETES, "qaeval_curator_deletes"),
    ):
        if table in tables:
            statements.append(sql.SQL("GRANT {} ON {} TO {}").format(sql.SQL(verb), this, curator))
            using = CURATOR_INSERTS["assignments"] if table == "assignments" else "true"  # as CURATOR_INSERTS says
            statements += _policy(table, name, verb, curator, using, "true" if verb == "UPDATE" else None, schema)
    if table in REVIEWER_READS:
        statements.append(sql.SQL("GRANT SELECT ON {} TO {}").format(this, reviewer))
    if table in REVIEWER_COLUMNS:
        columns = sql.SQL(", ").join(map(sql.Identifier, REVIEWER_COLUMNS[table]))
        statements.append(sql.SQL("REVOKE SELECT ON {} FROM {}").format(this, reviewer))
        statements.append(sql.SQL("GRANT SELECT ({}) ON {} TO {}").format(columns, this, reviewer))
    if table in REVIEWER_SEES:
        statements += _policy(table, "qaeval_reviewer_reads", "SELECT", reviewer, REVIEWER_SEES[table], None, schema)
    else:
        statements.append(sql.SQL("DROP POLICY IF EXISTS qaeval_reviewer_reads ON {}").format(this))
    if table in REVIEWER_WRITES:
        # Not `id`: the database numbers a reviewer's labels (a chosen id could take another's next one);
        # nor what the server records itself.
        writable = sql.SQL(", ").join(sql.Identifier(column) for column in TABLE_SPECS[table].columns if column != "id")
        statements.append(sql.SQL("GRANT INSERT ({}) ON {} TO {}").format(writable, this, reviewer))
        statements += _policy(table, "qaeval_reviewer_adds", "INSERT", reviewer, None, REVIEWER_INSERTS[table], schema)
    if table in PERSON_COLUMN:
        statements.append(
            _before_insert(
                table, "qaeval_written_as_session_user", "qaeval_as_session_user", schema, PERSON_COLUMN[table]
            )
        )
    if table in ("labels", "reveals"):
        statements.append(_before_insert(table, "qaeval_serialized", "qaeval_serialized", schema))
    if table in SERVER_TIME:
        statements.append(
            _before_insert(table, "qaeval_server_assigned", "qaeval_server_assigned", schema, SERVER_TIME[table])
        )
    return statements


def _before_insert(table: str, trigger: str, function: str, schema: str, *args: str) -> sql.Composed:
    """The row trigger `trigger` on `table`: the schema's `function`, given `args`, runs before each insert."""
    return sql.SQL("CREATE OR REPLACE TRIGGER {} BEFORE INSERT ON {} FOR EACH ROW EXECUTE FUNCTION {}({})").format(
        sql.SQL(trigger),  # a constant name
        sql.Identifier(schema, table),
        sql.Identifier(schema, function),
        sql.SQL(", ").join(map(sql.Literal, args)),
    )


def _policy(
    table: str,
    name: str,
    command: str,
    role: sql.Identifier,
    using: str | None,
    check: str | None,
    schema: str,
    *,
    restrictive: bool = False,
) -> list[sql.Composed]:
    this = sql.Identifier(schema, table)
    kind = sql.SQL("RESTRICTIVE" if restrictive else "PERMISSIVE")
    parts = [
        sql.SQL("CREATE POLICY {} ON {} AS {} FOR {} TO {}").format(
            sql.Identifier(name), this, kind, sql.SQL(command), role
        )
    ]
    if using is not None:
        parts.append(sql.SQL("USING ({})").format(_format(using, schema, table)))
    if check is not None:
        parts.append(sql.SQL("WITH CHECK ({})").format(_format(check, schema, table)))
    return [
        sql.SQL("DROP POLICY IF EXISTS {} ON {}").format(sql.Identifier(name), this),
        sql.SQL(" ").join(parts),
    ]
