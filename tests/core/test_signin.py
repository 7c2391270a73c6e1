"""Sign-in to `qaeval serve`, decided headlessly: tokens kept hashed, the failure limit, sessions, roles."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from qaeval_tui.core.config import Config, load_config
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.signin.limits import FailureLimit
from qaeval_tui.core.signin.people import WRONG, SignInRefused, roster_sign_in
from qaeval_tui.core.signin.sessions import SessionBook, same_token
from qaeval_tui.core.signin.tokens import issue_tokens, read_tokens, token_file, token_holder


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def team(tmp_path: Path) -> Config:
    (tmp_path / "qaeval.toml").write_text(
        '[review]\nroster = [{name = "Ana", roles = ["reviewer"]}, {name = "cara", roles = ["curator", "reviewer"]}]\n',
        encoding="utf-8",
    )
    return load_config(tmp_path / "qaeval.toml")


def test_a_token_is_shown_once_kept_only_as_a_hash_readable_by_its_owner(tmp_path: Path) -> None:
    path = token_file(tmp_path / "qaeval.db")
    issued = issue_tokens(path, ["Ana", "cara"])
    assert set(issued) == {"Ana", "cara"} and len(issued["Ana"]) >= 40
    text = path.read_text(encoding="utf-8")
    assert issued["Ana"] not in text and issued["cara"] not in text
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert issue_tokens(path, ["Ana", "cara"]) == {}  # issued already: never shown again
    assert token_holder(path, "ana", issued["Ana"]) == "Ana"  # names match case-insensitively
    assert token_holder(path, "cara", issued["Ana"]) is None  # a token signs in its own person only
    assert token_holder(path, "Ana", issued["Ana"] + "x") is None


def test_a_renewed_token_replaces_the_old_one(tmp_path: Path) -> None:
    path = token_file(tmp_path / "qaeval.db")
    old = issue_tokens(path, ["Ana"])["Ana"]
    new = issue_tokens(path, ["Ana"], renew=["ana"])["Ana"]
    assert token_holder(path, "Ana", old) is None and token_holder(path, "ana", new) == "Ana"
    assert len(read_tokens(path)) == 1


def test_a_token_file_that_is_not_ours_is_a_usage_error_naming_it(tmp_path: Path) -> None:
    path = token_file(tmp_path / "qaeval.db")
    path.write_text(json.dumps({"people": {"ana": "plain"}}), encoding="utf-8")
    with pytest.raises(UsageError, match=r"serve-tokens\.json: not a qaeval sign-in token file"):
        token_holder(path, "ana", "x")


def test_roles_come_from_the_roster(tmp_path: Path, team: Config) -> None:
    store = tmp_path / "qaeval.db"
    tokens = issue_tokens(token_file(store), ["Ana", "cara"])
    person = roster_sign_in(team, token_file(store), store, "ana", tokens["Ana"], "reviewer")
    assert person.name == "Ana" and person.environment == {"QAEVAL_DB": str(store), "QAEVAL_REVIEWER": "Ana"}
    with pytest.raises(SignInRefused, match="Ana is not a curator") as refused:
        roster_sign_in(team, token_file(store), store, "Ana", tokens["Ana"], "curator")
    assert not refused.value.failed  # the right token: not a failure to count
    assert roster_sign_in(team, token_file(store), store, "cara", tokens["cara"], "curator").role == "curator"
    with pytest.raises(SignInRefused, match=WRONG) as wrong:
        roster_sign_in(team, token_file(store), store, "Ana", "guess", "reviewer")
    assert wrong.value.failed


def test_someone_taken_off_the_roster_can_no_longer_sign_in(tmp_path: Path, team: Config) -> None:
    store = tmp_path / "qaeval.db"
    tokens = issue_tokens(token_file(store), ["Ana", "bob"])
    with pytest.raises(SignInRefused, match=WRONG):
        roster_sign_in(team, token_file(store), store, "bob", tokens["bob"], "reviewer")


def test_five_failures_lock_a_name_even_against_the_right_secret_until_the_window_passes() -> None:
    clock = Clock()
    limit = FailureLimit(per_name=5, per_address=20, window_s=900, clock=clock)
    for _ in range(4):
        limit.failed("Ana", "10.0.0.1")
    assert limit.wait_s("ana", "10.0.0.2") == 0
    limit.failed("ana", "10.0.0.3")
    assert limit.wait_s("ANA", "10.0.0.9") == pytest.approx(900)  # any address, any spelling
    assert limit.wait_s("cara", "10.0.0.9") == 0  # another name is not locked
    clock.now += 899
    assert limit.wait_s("ana", "10.0.0.9") == pytest.approx(1)
    clock.now += 1
    assert limit.wait_s("ana", "10.0.0.9") == 0


def test_an_address_that_fails_for_many_names_is_locked_and_a_success_does_not_unlock_it() -> None:
    limit = FailureLimit(per_name=5, per_address=3, window_s=60, clock=Clock())
    for name in ("a", "b", "c"):
        limit.failed(name, "10.0.0.1")
    limit.succeeded("a")
    assert limit.wait_s("d", "10.0.0.1") > 0 and limit.wait_s("d", "10.0.0.2") == 0


def test_a_session_expires_and_ends() -> None:
    clock = Clock()
    book = SessionBook(lifetime_s=60, clock=clock)
    session = book.open("ana", "reviewer", {"QAEVAL_DB": "x"})
    assert book.get(session.id) is session and book.get("forged") is None and book.get(None) is None
    assert session.id != session.csrf and "QAEVAL_DB" not in repr(session)
    clock.now += 60
    assert book.get(session.id) is None and book.signed_in() == []
    other = book.open("cara", "curator", {})
    assert book.end(other.id) is other and book.get(other.id) is None
    assert same_token(other.csrf, other.csrf) and not same_token(other.csrf, None) and not same_token(other.csrf, "x")
