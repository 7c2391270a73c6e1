"""A person's names on the team store: the chain of `renames` (`qaeval team rename`) that links their login's
former names to it. A former name stays its person's: no one else is added or renamed to it."""

from __future__ import annotations

import psycopg

Connection = psycopg.Connection[tuple[object, ...]]


def person_names(conn: Connection, name: str) -> set[str]:
    """Every name of the person now or once called `name`: the names its chain of renames links to it."""
    renames = [(str(old), str(new)) for old, new in conn.execute("SELECT old_name, new_name FROM renames ORDER BY id")]
    names = {name}
    grew = True
    while grew:
        grew = False
        for pair in renames:
            if (pair[0] in names) != (pair[1] in names):
                names.update(pair)
                grew = True
    return names


def former_name(conn: Connection, name: str) -> tuple[str, str] | None:
    """(the spelling on record, the person's current name) when `name` (any case) is someone's former name
    and not their current one; None otherwise, or on a store from before `renames`."""
    if not has_renames(conn):
        return None
    row = conn.execute(
        "SELECT old_name FROM renames WHERE lower(old_name) = lower(%s) ORDER BY id DESC LIMIT 1", (name,)
    ).fetchone()
    if row is None:
        return None
    spelled = str(row[0])
    names = list(person_names(conn, spelled))
    latest = conn.execute(
        "SELECT new_name FROM renames WHERE old_name = ANY(%s) OR new_name = ANY(%s) ORDER BY id DESC LIMIT 1",
        (names, names),
    ).fetchone()
    current = spelled if latest is None else str(latest[0])
    return None if current == spelled else (spelled, current)


def has_renames(conn: Connection) -> bool:
    """Whether the store has the `renames` table (a store from before it does not)."""
    row = conn.execute("SELECT to_regclass('renames') IS NOT NULL").fetchone()
    return bool(row and row[0])
