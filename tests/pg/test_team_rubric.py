"""The rubric lives in the team store: `team init` records it, a curator publishes a new version, and
every command on the store works under the one on record, naming what a local config changes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from qaeval_tui.core.store.postgres.store import PgStore
from tests.pg.server import PgServer
from tests.pg.team_helpers import TeamStore, migrate, qaeval

ONE_AXIS = """[rubric]
version = "{version}"
[[rubric.axes]]
name = "tone"
scale = [0, 1]
anchors = ["rude", "polite"]
"""


@pytest.fixture
def team_store(pg_server: PgServer, pg_url: str) -> Iterator[TeamStore]:
    """A store secured by `qaeval team init` itself (the command records the rubric)."""
    import contextlib

    import psycopg
    from psycopg import sql

    migrate(pg_url)
    store = TeamStore(pg_url)
    yield store
    with pg_server.admin() as conn:
        for name in store.made:
            with contextlib.suppress(psycopg.Error):
                conn.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(name)))


@pytest.fixture(autouse=True)
def _here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("QAEVAL_DB", raising=False)
    (tmp_path / "qaeval.toml").write_text("", encoding="utf-8")  # the default rubric


def local_config(tmp_path: Path, version: str) -> str:
    path = tmp_path / f"local-{version}.toml"
    path.write_text(ONE_AXIS.format(version=version), encoding="utf-8")
    return str(path)


def test_team_init_records_the_rubric_and_a_folder_with_another_config_is_told_and_overruled(
    team_store: TeamStore, tmp_path: Path
) -> None:
    code, out, err = qaeval("team", "init", "--db", team_store.owner_url)
    assert code == 0 and "rubric version 1 on record" in out, err
    with PgStore.open(team_store.owner_url) as store:
        record = store.latest_rubric()
    assert record is not None and [axis["name"] for axis in record.document["axes"]] == [
        "faithfulness",
        "citation_correctness",
        "answer_correctness",
    ]
    curator = team_store.login("cora", "curator")
    # A curator in a folder whose qaeval.toml has another rubric: the store's is used, the difference named.
    code, _, err = qaeval(
        "--config", local_config(tmp_path, "1"), "flags", "list", "--axis", "faithfulness", "--db", curator
    )
    assert code == 0, err
    assert "warning: " in err and "using the team's rubric version '1'" in err
    assert "axis 'tone' is not on record" in err and "axis 'faithfulness' is missing here" in err
    code, _, err = qaeval("flags", "list", "--axis", "faithfulness", "--db", curator)  # the same rubric: quiet
    assert code == 0 and "warning" not in err


def test_a_rubric_change_is_a_new_version_published_by_a_curator_only(team_store: TeamStore, tmp_path: Path) -> None:
    assert qaeval("team", "init", "--db", team_store.owner_url)[0] == 0
    reviewer, curator = team_store.login("rev"), team_store.login("cora", "curator")
    from qaeval_tui.core.store.pg_team import published_rubric

    assert published_rubric(reviewer).rubric_version == "1"  # type: ignore[union-attr]  # everyone reads it
    code, out, err = qaeval("--config", local_config(tmp_path, "2"), "rubric", "publish", "--db", reviewer)
    assert (
        code == 2
        and out == ""
        and "this login may not do that on the team store (permission denied for table rubrics)" in err
    )
    code, out, err = qaeval("--config", local_config(tmp_path, "1"), "rubric", "publish", "--db", curator)
    assert code == 2 and "a changed rubric is a new version; bump [rubric] version" in err
    code, out, err = qaeval("--config", local_config(tmp_path, "2"), "rubric", "publish", "--db", curator)
    assert code == 0 and out.startswith(f"published rubric version 2 (1 axes), by {team_store.name('cora')}"), err
    code, out, _ = qaeval("--config", local_config(tmp_path, "2"), "rubric", "publish", "--db", curator)
    assert code == 0 and out.startswith("already on record: rubric version 2")
    with PgStore.open(team_store.owner_url) as store:
        assert store.latest_rubric().rubric_version == "2"  # type: ignore[union-attr]
        assert store.table_rows("rubrics").rows.__len__() == 2  # version 1 stays on record
