"""The team store's functions on PostgreSQL: what row-level security asks, and the triggers it relies on.

Each SECURITY DEFINER function answers only for the session's own login ("has it submitted a label for
this item", "... is its reveal on record", "is this item its own") or returns only what a policy would
let it read (`qaeval_review_item`, the redacted case); each names its tables with their schema and
runs with `search_path` set to `pg_catalog, pg_temp`, so no object a user creates can stand in for one
it uses. Only the two groups may call them. `pg_security` applies them with the grants and policies.
"""

from __future__ import annotations

from psycopg import sql

from qaeval_tui.core.store.pg_names import CURATOR_GROUP, GROUPS, REVIEWER_GROUP, TABLES

_FUNCTIONS = (
    "qaeval_my_names",
    "qaeval_submitted",
    "qaeval_revealed",
    "qaeval_gold_locked",
    "qaeval_own_item",
    "qaeval_withheld_items",
    "qaeval_withheld_cases",
    "qaeval_withheld_outputs",
)


_EXEMPT = """(EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = session_user AND rolsuper)
              OR session_user = (SELECT pg_catalog.pg_get_userbyid(c.relowner)
                                 FROM pg_catalog.pg_class c WHERE c.oid = TG_RELID))"""
"""In a trigger: the session is a superuser or owns the table (the owner imports and copies others' rows)."""

_SERVER_NOW = """pg_catalog.to_char(pg_catalog.statement_timestamp() AT TIME ZONE 'UTC',
                                    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')"""


def _definer(
    name: sql.Identifier, args: str, returns: str, body: str, **tables: sql.Identifier | sql.Literal
) -> list[sql.Composed]:
    """A SECURITY DEFINER SQL function the two groups (only) may call, immune to a caller's search_path."""
    groups = sql.SQL(", ").join(map(sql.Identifier, GROUPS.values()))
    signature = sql.SQL("{}({})").format(name, sql.SQL(args))
    return [
        sql.SQL(
            "CREATE OR REPLACE FUNCTION {signature} RETURNS {returns} LANGUAGE sql STABLE SECURITY DEFINER "
            "SET search_path = pg_catalog, pg_temp AS $$ {body} $$"
        ).format(signature=signature, returns=sql.SQL(returns), body=sql.SQL(body).format(**tables)),
        sql.SQL("REVOKE ALL ON FUNCTION {} FROM PUBLIC").format(signature),
        sql.SQL("GRANT EXECUTE ON FUNCTION {} TO {}").format(signature, groups),
    ]


def function_statements(schema: str) -> list[sql.Composed]:
    """The functions `team init` makes (each created or replaced), with who may call them."""
    fn = {name: sql.Identifier(schema, name) for name in (*_FUNCTIONS, "qaeval_review_item", "qaeval_lock_key")}
    tables = {name: sql.Identifier(schema, name) for name in TABLES}
    trigger_fn = sql.Identifier(schema, "qaeval_as_session_user")
    server_fn = sql.Identifier(schema, "qaeval_server_assigned")
    serial_fn = sql.Identifier(schema, "qaeval_serialized")
    groups = sql.SQL(", ").join(map(sql.Identifier, GROUPS.values()))
    # A reveal or gold lock counts once the transaction that wrote it has committed: not one still in progress
    # in this very session (rolled back, or a savepoint released, it would leave nothing on record).
    # A row from before the column (NULL) was committed long ago; a session with no transaction id wrote nothing.
    durable = "coalesce(recorded_in <> pg_catalog.pg_current_xact_id_if_assigned(), true)"
    # A row is the session's when it holds any of its login's names, now or before (`qaeval team rename`):
    # once per query (an InitPlan), not per row.
    mine = sql.SQL("(SELECT {}())::text[]").format(fn["qaeval_my_names"]).as_string(None)

    def theirs(column: str) -> str:
        """`column` names the session's person. For the functions policies call once per row: the login's own
        name needs no lookup, and its former names are looked up only when the store has any renames."""
        return f"({column} = session_user OR (EXISTS (SELECT 1 FROM {{renames}}) AND {column} = ANY ({mine})))"

    statements = [
        # The session login's names: itself and every name its chain of renames links to it (the owner's
        # `renames` alone says so; a login cannot write it). The chain is walked both ways, so a name
        # renamed back (A to B to A) ends it.
        *_definer(
            fn["qaeval_my_names"],
            "",
            "text[]",
            "WITH RECURSIVE names(name) AS (SELECT session_user::text UNION "
            "SELECT CASE WHEN r.old_name = n.name THEN r.new_name ELSE r.old_name END "
            "FROM {renames} r JOIN names n ON r.old_name = n.name OR r.new_name = n.name) "
            "SELECT pg_catalog.array_agg(name) FROM names",
            renames=tables["renames"],
        ),
        *_definer(
            fn["qaeval_submitted"],
            "p_item_id text",
            "boolean",
            "SELECT EXISTS (SELECT 1 FROM {labels} l WHERE l.item_id = p_item_id "
            f"AND {theirs('l.reviewer')} AND l.skipped = 0)",
            labels=tables["labels"],
            renames=tables["renames"],
        ),
        *_definer(
            fn["qaeval_revealed"],
            "p_item_id text",
            "boolean",
            f"SELECT EXISTS (SELECT 1 FROM {{reveals}} v WHERE v.item_id = p_item_id "
            f"AND {theirs('v.reviewer')} AND {durable})",
            reveals=tables["reveals"],
            renames=tables["renames"],
        ),
        *_definer(
            fn["qaeval_gold_locked"],
            "p_item_id text",
            "boolean",
            f"SELECT EXISTS (SELECT 1 FROM {{gold_shown}} g WHERE g.item_id = p_item_id "
            f"AND {theirs('g.reviewer')} AND {durable})",
            gold_shown=tables["gold_shown"],
            renames=tables["renames"],
        ),
        *_definer(
            fn["qaeval_own_item"],
            "p_item_id text",
            "boolean",
            f"SELECT EXISTS (SELECT 1 FROM {{assignments}} a WHERE a.item_id = p_item_id AND {theirs('a.reviewer')}) "
            f"OR EXISTS (SELECT 1 FROM {{labels}} l WHERE l.item_id = p_item_id AND {theirs('l.reviewer')})",
            assignments=tables["assignments"],
            labels=tables["labels"],
            renames=tables["renames"],
        ),
        # The session's own items (queued to it or labelled by it) whose reveal is not on record, and their
        # cases and outputs: what a curator who is also a reviewer may not read yet.
        *_definer(
            fn["qaeval_withheld_items"],
            "",
            "text[]",
            "SELECT coalesce(pg_catalog.array_agg(own.item_id), '{{}}') FROM "
            f"(SELECT a.item_id FROM {{assignments}} a WHERE a.reviewer = ANY ({mine}) "
            f"UNION SELECT l.item_id FROM {{labels}} l WHERE l.reviewer = ANY ({mine})) own "
            "WHERE NOT {revealed}(own.item_id)",
            assignments=tables["assignments"],
            labels=tables["labels"],
            revealed=fn["qaeval_revealed"],
        ),
        *_definer(
            fn["qaeval_withheld_cases"],
            "",
            "text[]",
            "SELECT coalesce(pg_catalog.array_agg(DISTINCT r.case_hash), '{{}}') FROM {review_items} r "
            "WHERE r.item_id = ANY ({items}())",
            review_items=tables["review_items"],
            items=fn["qaeval_withheld_items"],
        ),
        *_definer(
            fn["qaeval_withheld_outputs"],
            "",
            "text[]",
            "SELECT coalesce(pg_catalog.array_agg(DISTINCT pg_catalog.json_build_array(r.run_id, r.case_id)::text), "
            "'{{}}') FROM {review_items} r WHERE r.item_id = ANY ({items}())",
            review_items=tables["review_items"],
            items=fn["qaeval_withheld_items"],
        ),
        # Advisory lock keys no reviewer can compute (pg_advisory_lock takes any key from any login): salted
        # with a random number only this function reads; none for a login that is only a reviewer.
        sql.SQL(
            "INSERT INTO {} (name, secret) VALUES ('advisory keys', "
            "('x' || pg_catalog.md5(pg_catalog.gen_random_uuid()::text))::bit(64)::bigint) ON CONFLICT DO NOTHING"
        ).format(tables["writer_locks"]),
        *_definer(
            fn["qaeval_lock_key"],
            "p_name text",
            "bigint",
            "SELECT CASE WHEN pg_catalog.pg_has_role(session_user, {curator}, 'MEMBER') "
            "OR NOT pg_catalog.pg_has_role(session_user, {reviewer}, 'MEMBER') "
            "THEN pg_catalog.hashtextextended('qaeval:' || p_name, "
            "(SELECT w.secret FROM {writer_locks} w WHERE w.name = 'advisory keys')) END",
            writer_locks=tables["writer_locks"],
            curator=sql.Literal(CURATOR_GROUP),
            reviewer=sql.Literal(REVIEWER_GROUP),
        ),
        # The review app's read of one item for a person in a group: the case redacted to what the review
        # screen shows before a submit (the question and sources, the opaque item id as its id), with the gold
        # fields once the gold lock is on record, whole once the reveal is; no run, no case hash. A curator
        # reads any other item whole.
        *_definer(
            fn["qaeval_review_item"],
            "p_item_id text",
            "TABLE (item_id text, case_id text, case_hash text, output_hash text, run_id text, "
            "case_json text, output_json text)",
            """SELECT r.item_id, CASE WHEN s.whole THEN r.case_id ELSE '' END,
                      CASE WHEN s.whole THEN r.case_hash ELSE '' END, r.output_hash,
                      CASE WHEN s.whole AND NOT s.own THEN r.run_id ELSE '' END,
                      CASE WHEN c.case_json IS NULL OR s.whole THEN c.case_json
                           WHEN s.gold THEN pg_catalog.json_build_object(
                               'id', r.item_id, 'question', c.case_json::json -> 'question',
                               'sources', c.case_json::json -> 'sources',
                               'expected_behavior', c.case_json::json -> 'expected_behavior',
                               'gold_answer', c.case_json::json -> 'gold_answer',
                               'gold_source_ids', c.case_json::json -> 'gold_source_ids')::text
                           ELSE pg_catalog.json_build_object(
                               'id', r.item_id, 'question', c.case_json::json -> 'question',
                               'sources', c.case_json::json -> 'sources')::text END,
                      o.output_json
               FROM {review_items} r
               CROSS JOIN LATERAL (SELECT {own}(r.item_id) AS own,
                                          pg_catalog.pg_has_role(session_user, {curator}, 'MEMBER') AS curator) m
               CROSS JOIN LATERAL (SELECT m.own, (m.curator AND NOT m.own) OR {revealed}(r.item_id) AS whole,
                                          {gold}(r.item_id) AS gold) s
               LEFT JOIN {cases} c ON c.case_hash = r.case_hash
               LEFT JOIN {run_outputs} o ON o.run_id = r.run_id AND o.case_id = r.case_id
               WHERE r.item_id = p_item_id AND (m.own OR m.curator)""",
            review_items=tables["review_items"],
            cases=tables["cases"],
            run_outputs=tables["run_outputs"],
            own=fn["qaeval_own_item"],
            revealed=fn["qaeval_revealed"],
            gold=fn["qaeval_gold_locked"],
            curator=sql.Literal(CURATOR_GROUP),
        ),
        # Not SECURITY DEFINER: it reads only catalogs every login may read.
        sql.SQL(
            f"""CREATE OR REPLACE FUNCTION {{fn}}() RETURNS trigger
               LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
               AS $$ BEGIN
                 IF NOT {_EXEMPT} THEN
                   NEW := pg_catalog.jsonb_populate_record(
                     NEW, pg_catalog.jsonb_build_object(TG_ARGV[0], session_user::text));
                 END IF;
                 RETURN NEW;
               END $$"""
        ).format(fn=trigger_fn),
        # The server's time in the row's time column (TG_ARGV[0]); a label's case id from its review item,
        # which a reviewer may not read (SECURITY DEFINER for that read alone).
        sql.SQL(
            f"""CREATE OR REPLACE FUNCTION {{fn}}() RETURNS trigger
               LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
               AS $$ BEGIN
                 IF NOT {_EXEMPT} THEN
                   NEW := pg_catalog.jsonb_populate_record(
                     NEW, pg_catalog.jsonb_build_object(TG_ARGV[0], {_SERVER_NOW}));
                   IF TG_TABLE_NAME = 'labels' THEN
                     NEW := pg_catalog.jsonb_populate_record(NEW, pg_catalog.jsonb_build_object('case_id',
                       coalesce((SELECT r.case_id FROM {{review_items}} r
                                 WHERE r.item_id = pg_catalog.to_jsonb(NEW) ->> 'item_id'), '')));
                   END IF;
                 END IF;
                 RETURN NEW;
               END $$"""
        ).format(fn=server_fn, review_items=tables["review_items"]),
        sql.SQL("REVOKE ALL ON FUNCTION {}() FROM PUBLIC").format(server_fn),
        # A person's label or reveal updates their writer row: a transaction whose snapshot predates a reveal
        # they committed since (REPEATABLE READ, SERIALIZABLE) fails to write instead of labelling "blind"
        # after it; one that waited for it saw it only if it wrote nothing before (then its label came first).
        sql.SQL(
            f"""CREATE OR REPLACE FUNCTION {{fn}}() RETURNS trigger
               LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
               AS $$ BEGIN
                 IF NOT {_EXEMPT} THEN
                   INSERT INTO {{writer_locks}} (name) VALUES ('labels:' || session_user) ON CONFLICT DO NOTHING;
                   UPDATE {{writer_locks}} SET changes = changes + 1 WHERE name = 'labels:' || session_user;
                 END IF;
                 RETURN NEW;
               END $$"""
        ).format(fn=serial_fn, writer_locks=tables["writer_locks"]),
        sql.SQL("REVOKE ALL ON FUNCTION {}() FROM PUBLIC").format(serial_fn),
        # Writer locks: a login may hold only its own (the function says which), never LOCK the table.
        sql.SQL("ALTER FUNCTION {}(text[]) SECURITY DEFINER SET search_path = pg_catalog, {}, pg_temp").format(
            sql.Identifier(schema, "qaeval_hold"), sql.Identifier(schema)
        ),
        sql.SQL("REVOKE ALL ON FUNCTION {}(text[]) FROM PUBLIC").format(sql.Identifier(schema, "qaeval_hold")),
        sql.SQL("GRANT EXECUTE ON FUNCTION {}(text[]) TO {}").format(sql.Identifier(schema, "qaeval_hold"), groups),
    ]
    return statements
