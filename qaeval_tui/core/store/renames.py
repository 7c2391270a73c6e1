"""Who is who among the names a store holds: a team login renamed (`qaeval team rename`) is one person
under every name it had.

What a person wrote keeps the name it was written under (labels are append-only), and the `renames`
table (written by the team store's owner alone) links each former name to the next. Every read that
asks "is this row theirs" takes all of a person's names (`of_person`, in the statement itself), and
every read that groups by person hands out the current name (`PersonNames.current`), so agreement,
calibration, the dashboard and exports count one person once. A store nobody was renamed in (every
SQLite store, most team stores) reads as before: one name each.
"""

from __future__ import annotations

from collections.abc import Iterable

from qaeval_tui.core.store.seam import Driver


class PersonNames:
    """The names of the store's renamed people: each name's person, known by their current name.

    A chain of renames (A to B, B to C, and back to A) is one person, named by the latest rename's new name;
    a former name is never given to anyone else (`team add` and `team rename` refuse it)."""

    __slots__ = ("_current", "_names")

    def __init__(self, renames: Iterable[tuple[str, str]]) -> None:
        """`renames`: (old name, new name) pairs in the order they were made."""
        person: dict[str, int] = {}  # name -> person number
        names: dict[int, list[str]] = {}
        current: dict[int, str] = {}
        for fresh, (old, new) in enumerate(renames):
            number = person.get(old, person.get(new, fresh))
            other = person.get(new)
            if other is not None and other != number:  # two chains meet: one person (never expected)
                for name in names.pop(other):
                    person[name] = number
                    names.setdefault(number, []).append(name)
                current.pop(other, None)
            for name in (old, new):
                if name not in person:
                    person[name] = number
                    names.setdefault(number, []).append(name)
            current[number] = new
        self._current = {name: current[number] for name, number in person.items()}
        self._names = {name: tuple(names[number]) for name, number in person.items()}

    def __bool__(self) -> bool:
        return bool(self._current)

    def current(self, name: str) -> str:
        """The person's name now (`name` itself when it was never renamed)."""
        return self._current.get(name, name)

    def names_of(self, name: str) -> tuple[str, ...]:
        """Every name of the person called `name` now or before, `name` first."""
        return (name, *(other for other in self._names.get(name, ()) if other != name))


class RenameTables(Driver):
    """The `renames` table, read: the domain modules ask it whose names are whose."""

    def person_names(self) -> PersonNames:
        """The store's renamed people (on a team store a reviewer's login reads its own renames only)."""
        return PersonNames(self._rows("SELECT old_name, new_name FROM renames ORDER BY id"))

    def _names_of(self, name: str) -> tuple[str, ...]:
        """Every name of the person called `name`, now or before (one read of `renames`)."""
        return self.person_names().names_of(name)


PERSON_NAMES = (
    "WITH RECURSIVE names(name) AS (SELECT CAST(? AS TEXT) UNION "
    "SELECT CASE WHEN r.old_name = n.name THEN r.new_name ELSE r.old_name END "
    "FROM renames r JOIN names n ON r.old_name = n.name OR r.new_name = n.name) SELECT name FROM names"
)
"""Every name of the person the parameter names, now or before: the name and its chain of renames, walked
both ways (a name renamed back ends it). In the statement itself, so asking costs no statement of its own."""


def of_person(column: str) -> str:
    """`column` holds a name of the person the statement's next two parameters name (`person_params(name)`), now or
    before. Their name now is asked first and alone where the store has no renames: an index search, as
    before renames, and no list built (a submit reads five of these in one statement)."""
    return f"({column} = ? OR EXISTS (SELECT 1 FROM renames) AND {column} IN ({PERSON_NAMES}))"


def name_in(column: str, names: tuple[str, ...]) -> str:
    """`column` holds one of `names` (`RenameTables._names_of`), a `?` each: for a read of all of a person's rows,
    an index search per name on either database (`of_person`'s OR reads the whole table on PostgreSQL)."""
    return f"{column} = ?" if len(names) == 1 else f"{column} IN ({', '.join('?' * len(names))})"


def person_params(name: str) -> tuple[str, str]:
    """The parameters of one `of_person` condition."""
    return (name, name)
