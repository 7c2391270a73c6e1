"""The team: `[review]`, its roster and roles, and the names a reviewer may go by."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from qaeval_tui.core.config.sections import ReviewerName, Section, Seed
from qaeval_tui.core.models.label import reviewer_name_problem

ROLES = ("reviewer", "curator")
Role = Literal["reviewer", "curator"]


class RosterMember(Section):
    """One person of the team (`[review] roster`): a name and what they do."""

    name: ReviewerName
    roles: tuple[Role, ...] = Field(
        default=("reviewer",), description="reviewer (labels) and/or curator (curates, adjudicates)."
    )

    @field_validator("roles")
    @classmethod
    def _some_role(cls, roles: tuple[Role, ...]) -> tuple[Role, ...]:
        if not roles:
            raise ValueError(f"a member needs at least one role: {' or '.join(ROLES)}")
        return roles


def _team_reviewers(data: Any) -> Any:
    """Without `reviewers`, the default queue is built for the roster's reviewers (as far as they read as such)."""
    if not isinstance(data, dict) or "reviewers" in data or not isinstance(data.get("roster"), tuple | list):
        return data
    names = []
    for member in data["roster"]:
        if (
            isinstance(member, dict)
            and isinstance(member.get("name"), str)
            and not reviewer_name_problem(member["name"])
        ):
            roles = member.get("roles", ("reviewer",))
            if isinstance(roles, tuple | list) and "reviewer" in roles:
                names.append(member["name"])
    return {**data, "reviewers": tuple(names)} if names else data


class ReviewConfig(Section):
    roster: tuple[RosterMember, ...] = Field(
        default=(),
        description="The team: who reviews and who curates. When set, only these names can review (case-insensitive).",
    )
    reviewer: ReviewerName | None = Field(
        default=None, description="Default reviewer name (else QAEVAL_REVIEWER, else asked)."
    )
    reviewers: tuple[ReviewerName, ...] = Field(
        default=("ana", "ben", "chloe"),
        description="Reviewers the default queue is built for (default: the roster's reviewers, if a roster is set).",
    )
    overlap: int = Field(default=2, ge=1, description="How many reviewers label each item.")
    seed: Seed = Field(default=7, description="Seed of the assignment and per-reviewer order.")
    idle_cutoff_seconds: float = Field(
        default=300.0, gt=0, allow_inf_nan=False, description="A pause between keys longer than this counts as this."
    )
    keys: dict[str, str] = Field(default_factory=dict, description="Action name -> key, overriding default bindings.")

    @model_validator(mode="before")
    @classmethod
    def _derive_reviewers(cls, data: Any) -> Any:
        return _team_reviewers(data)

    @field_validator("roster")
    @classmethod
    def _one_person_one_name(cls, roster: tuple[RosterMember, ...]) -> tuple[RosterMember, ...]:
        seen: dict[str, str] = {}
        for member in roster:
            other = seen.get(member.name.casefold())
            if other is not None:
                raise ValueError(f"{other!r} and {member.name!r} are the same person (names are case-insensitive)")
            seen[member.name.casefold()] = member.name
        return roster

    @field_validator("reviewer")
    @classmethod
    def _default_on_the_team(cls, name: str | None, info: ValidationInfo) -> str | None:
        roster = info.data.get("roster", ())
        return None if name is None else _on_roster(name, roster)

    @field_validator("reviewers")
    @classmethod
    def _queue_on_the_team(cls, names: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
        roster = info.data.get("roster", ())
        return tuple(_on_roster(name, roster) for name in names)


def _on_roster(name: str, roster: tuple[RosterMember, ...]) -> str:
    """`name` in the roster's spelling; ValueError when a roster is set and `name` is not on it."""
    if not roster:
        return name
    for member in roster:
        if member.name.casefold() == name.casefold():
            return member.name
    raise ValueError(f"{name!r} is not in review.roster ({', '.join(m.name for m in roster)})")
