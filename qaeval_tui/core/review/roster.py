"""The team (`[review] roster`): who may review, who may curate, and who reviewed last on this machine.

With a roster configured, a reviewer is chosen from it: names match case-insensitively and the
roster's spelling is the one labels are stored under; a name not on it is refused with the roster
shown (a curator adds a person by editing `[review] roster`). Without one, `review.reviewers` is
the team of reviewers, a name matching one of them takes its spelling, any other valid name is
accepted as before, and everyone holds both roles (one person's project has no one to keep out).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from qaeval_tui.core.atomic_file import write_output
from qaeval_tui.core.config import ROLES, Config, RosterMember
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.models.label import reviewer_name_problem

STATE_DIR_ENV = "QAEVAL_STATE_DIR"
STATE_FILE = "state.json"


def roster_of(config: Config) -> tuple[RosterMember, ...]:
    """The configured roster, else `review.reviewers` as reviewers."""
    if config.review.roster:
        return config.review.roster
    # Names the config already checked (or a Config built in code, checked where they are used): not again.
    return tuple(RosterMember.model_construct(name=name, roles=("reviewer",)) for name in config.review.reviewers)


def member(config: Config, name: str) -> RosterMember | None:
    """The roster member `name` names (case-insensitively), or None."""
    folded = name.strip().casefold()
    return next((m for m in roster_of(config) if m.name.casefold() == folded), None)


def roles_of(config: Config, name: str) -> set[str]:
    """What `name` may do: their roster roles; every role when no roster is configured; none when not on it."""
    if not config.review.roster:
        return set(ROLES)
    found = member(config, name)
    return set() if found is None else set(found.roles)


def roster_problem(config: Config, name: str) -> str | None:
    """Why `name` cannot review in this project, or None."""
    problem = reviewer_name_problem(name.strip())
    if problem is not None:
        return problem
    if not config.review.roster:
        return None
    found = member(config, name)
    team = ", ".join(m.name for m in config.review.roster if "reviewer" in m.roles) or "(none)"
    if found is None:
        return f"not on the team; the roster's reviewers: {team} (a curator adds a name to [review] roster)"
    if "reviewer" not in found.roles:
        return f"{found.name} is a curator, not a reviewer; the roster's reviewers: {team}"
    return None


def choose_reviewer(config: Config, name: str) -> str:
    """`name` as the team spells it; UsageError (the roster shown) when it cannot review here."""
    problem = roster_problem(config, name)
    if problem is not None:
        raise UsageError(f"reviewer {name!r}: {problem}")
    found = member(config, name)
    return found.name if found is not None else name.strip()


# -- the last reviewer on this machine -----------------------------------------------------------------


def state_dir() -> Path:
    """Per-user state folder ($QAEVAL_STATE_DIR, else the platform's config folder for qaeval)."""
    override = os.environ.get(STATE_DIR_ENV)
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_config_dir("qaeval", appauthor=False))


def last_reviewer() -> str | None:
    """The reviewer who last opened a session on this machine, or None (no file, or one unreadable)."""
    try:
        data = json.loads((state_dir() / STATE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    name = data.get("last_reviewer") if isinstance(data, dict) else None
    return name if isinstance(name, str) and reviewer_name_problem(name) is None else None


def remember_reviewer(name: str) -> None:
    """Remember `name` as this machine's last reviewer; a folder that cannot be written is not an error."""
    folder = state_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        write_output(folder / STATE_FILE, json.dumps({"last_reviewer": name}) + "\n")
    except (OSError, UsageError):
        return
