"""The catalogs' side channels on PostgreSQL: what else tells a login how many rows the store holds."""

from __future__ import annotations

from psycopg import sql

SIZE_FUNCTIONS = (
    "pg_relation_size(regclass)",
    "pg_relation_size(regclass, text)",
    "pg_total_relation_size(regclass)",
    "pg_table_size(regclass)",
    "pg_indexes_size(regclass)",
)
ACTIVITY = ("pg_locks", "pg_stat_activity")
"""Views showing other sessions at work (which tables they write, since when): closed with their functions."""
ACTIVITY_FUNCTIONS = ("pg_lock_status()", "pg_stat_get_activity(integer)")
LARGE_OBJECT_FUNCTIONS = (
    "lo_create(oid)",
    "lo_creat(integer)",
    "lo_from_bytea(oid, bytea)",
    "lo_import(text)",
    "lo_import(text, oid)",
)


def side_channel_statements() -> list[sql.SQL | sql.Composed]:
    """What else tells a login how many rows the store holds, or lets it store what no table checks,
    closed in this database only (its catalogs are its own): only a superuser may run these.

    - `pg_class`: every column but the planner's row and page counts (`reltuples`, `relpages`,
      `relallvisible`), which count rows row security hides.
    - The statistics views and functions per table and index (`pg_stat_*`, `pg_statio_*`: live and
      inserted rows), and the size functions (a table's size grows with its rows).
    - Other sessions at work: `pg_locks` and `pg_stat_activity` (which tables others write, and when).
    - Large objects: a login may not create one (storage outside every table, check and quota).
    """
    catalog_columns = sql.SQL(
        """DO $$ DECLARE columns text; BEGIN
             SELECT pg_catalog.string_agg(pg_catalog.quote_ident(attname), ', ' ORDER BY attnum) INTO columns
             FROM pg_catalog.pg_attribute WHERE attrelid = 'pg_catalog.pg_class'::regclass AND attnum > 0
               AND NOT attisdropped AND attname NOT IN ('reltuples', 'relpages', 'relallvisible');
             EXECUTE 'REVOKE SELECT ON pg_catalog.pg_class FROM PUBLIC';
             EXECUTE pg_catalog.format('GRANT SELECT (%s) ON pg_catalog.pg_class TO PUBLIC', columns);
           END $$"""
    )
    statistics = sql.SQL(
        r"""DO $$ DECLARE target record; BEGIN
             FOR target IN SELECT c.oid::regclass AS name FROM pg_catalog.pg_class c
                 WHERE c.relnamespace = 'pg_catalog'::regnamespace AND c.relkind = 'v'
                   AND c.relname ~ '^pg_stat(io)?_(xact_)?(all|user|sys)_(tables|indexes|sequences)$' LOOP
               EXECUTE pg_catalog.format('REVOKE SELECT ON %s FROM PUBLIC', target.name);
             END LOOP;
             FOR target IN SELECT p.oid::regprocedure AS name FROM pg_catalog.pg_proc p
                 WHERE p.pronamespace = 'pg_catalog'::regnamespace AND p.proname ~ '^pg_stat_get_'
                   AND p.pronargs = 1 AND p.proargtypes[0] = 'oid'::regtype LOOP
               EXECUTE pg_catalog.format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', target.name);
             END LOOP;
           END $$"""
    )
    functions = [
        sql.SQL("REVOKE EXECUTE ON FUNCTION pg_catalog.{} FROM PUBLIC").format(sql.SQL(signature))
        for signature in (*SIZE_FUNCTIONS, *ACTIVITY_FUNCTIONS, *LARGE_OBJECT_FUNCTIONS)
    ]
    views = [sql.SQL("REVOKE SELECT ON pg_catalog.{} FROM PUBLIC").format(sql.Identifier(view)) for view in ACTIVITY]
    return [catalog_columns, statistics, *functions, *views]
