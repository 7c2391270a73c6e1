"""The team (issue 13): `[review] roster` is validated like every config key (file:line: field),
a reviewer is chosen from it case-insensitively and stored under the roster's spelling, a name not
on it is refused with the roster shown, and the last reviewer on this machine is remembered."""

from __future__ import annotations

from pathlib import Path

import pytest

from qaeval_tui.cli.common import choose_reviewer as cli_choose_reviewer
from qaeval_tui.core.config import Config, load_config
from qaeval_tui.core.errors import ConfigError, UsageError
from qaeval_tui.core.review.roster import (
    choose_reviewer,
    last_reviewer,
    remember_reviewer,
    roles_of,
    roster_problem,
)

TEAM = """[review]
roster = [
  {name = "ana", roles = ["reviewer"]},
  {name = "Ben", roles = ["reviewer", "curator"]},
  {name = "dana", roles = ["curator"]},
]
"""


def config(tmp_path: Path, text: str = TEAM) -> Config:
    path = tmp_path / "qaeval.toml"
    path.write_text(text, encoding="utf-8")
    return load_config(path)


def refused(tmp_path: Path, text: str) -> str:
    with pytest.raises(ConfigError) as caught:
        config(tmp_path, text)
    return str(caught.value)


def test_the_roster_says_who_reviews_and_who_curates(tmp_path: Path) -> None:
    team = config(tmp_path)
    assert roles_of(team, "ana") == {"reviewer"}
    assert roles_of(team, "BEN") == {"reviewer", "curator"}
    assert roles_of(team, "dana") == {"curator"}
    assert roles_of(team, "zoe") == set()
    assert team.review.reviewers == ("ana", "Ben")  # the default queue is built for the roster's reviewers


def test_without_a_roster_everyone_may_do_everything(tmp_path: Path) -> None:
    assert roles_of(Config(), "anyone") == {"reviewer", "curator"}
    assert choose_reviewer(Config(), "ANA") == "ana"  # the configured reviewers' spelling
    assert choose_reviewer(Config(), "dana") == "dana"  # no roster: any valid name, as before


def test_a_name_is_chosen_case_insensitively_in_the_rosters_spelling(tmp_path: Path) -> None:
    team = config(tmp_path)
    assert choose_reviewer(team, "Ana") == "ana"
    assert choose_reviewer(team, " ben ") == "Ben"


def test_a_name_not_on_the_team_is_refused_with_the_roster_shown(tmp_path: Path) -> None:
    team = config(tmp_path)
    with pytest.raises(UsageError) as caught:
        choose_reviewer(team, "anna")
    assert "not on the team" in str(caught.value) and "ana, Ben" in str(caught.value)
    problem = roster_problem(team, "dana")
    assert problem is not None and "curator, not a reviewer" in problem


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('[review]\nroster = [{name = "ana"}, {name = "ANA"}]\n', ":2: review.roster: 'ana' and 'ANA' are the same"),
        ('[review]\nroster = [{name = "ana", roles = ["boss"]}]\n', ":2: review.roster.0.roles.0: Input should be"),
        ('[review]\nroster = [{name = ""}]\n', ":2: review.roster.0.name: '': a reviewer name is required"),
        ('[review]\nroster = [{name = "ana", roles = []}]\n', ":2: review.roster.0.roles: a member needs at least one"),
        ('[review]\nroster = [{name = "ana"}]\nreviewers = ["zoe"]\n', ":3: review.reviewers: 'zoe' is not in"),
        ('[review]\nreviewer = "zoe"\nroster = [{name = "ana"}]\n', ":2: review.reviewer: 'zoe' is not in"),
    ],
)
def test_a_bad_roster_is_a_config_error_naming_file_line_and_field(tmp_path: Path, text: str, expected: str) -> None:
    message = refused(tmp_path, text)
    assert f"qaeval.toml{expected}" in message, message
    assert message.count("\n") == 1  # one problem, one line


def test_an_array_of_tables_roster_names_the_members_own_line(tmp_path: Path) -> None:
    message = refused(tmp_path, '[[review.roster]]\nname = "ana"\n\n[[review.roster]]\nname = "ben"\nroles = ["bos"]\n')
    assert "qaeval.toml:6: review.roster.1.roles.0:" in message, message


def test_the_cli_refuses_an_unknown_reviewer_and_takes_the_rosters_spelling(tmp_path: Path) -> None:
    team = config(tmp_path)
    with pytest.raises(UsageError) as caught:
        cli_choose_reviewer(team, "zoe")
    assert "reviewer 'zoe': not on the team; the roster's reviewers: ana, Ben" in str(caught.value)
    assert cli_choose_reviewer(team, "ANA") == "ana"
    assert last_reviewer() == "ana"  # remembered for the picker


def test_the_last_reviewer_is_remembered_in_the_state_folder(private_state_dir: Path) -> None:
    assert last_reviewer() is None
    remember_reviewer("ben")
    assert last_reviewer() == "ben"
    assert (private_state_dir / "state.json").is_file()
    (private_state_dir / "state.json").write_text("{not json", encoding="utf-8")
    assert last_reviewer() is None  # a damaged file forgets, it does not fail
