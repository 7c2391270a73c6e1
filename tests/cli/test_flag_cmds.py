"""`qaeval flags list|resolve`: reviewers' flags and notes reach a curator, who resolves each once with a note."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner, Result

from qaeval_tui.cli.main import app
from tests.flag_fixtures import flagged_store

runner = CliRunner()


def qaeval(db: Path, *args: str) -> Result:
    return runner.invoke(app, [*args, "--db", str(db)])


def listed(db: Path, *args: str) -> list[dict[str, object]]:
    result = qaeval(db, "flags", "list", "--json", *args)
    assert result.exit_code == 0, result.output
    rows: list[dict[str, object]] = json.loads(result.stdout)
    return rows


def test_list_shows_every_open_flag_and_note_filterable_by_reviewer_and_text(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    flag, note, bare = flagged_store(db)
    assert [(row["id"], row["kind"], row["reviewer"]) for row in listed(db)] == [
        (flag, "flag", "ana"),
        (note, "note", "ben"),
        (bare, "flag", "ana"),
    ]
    assert [row["id"] for row in listed(db, "--reviewer", "ANA")] == [flag, bare]
    assert [row["id"] for row in listed(db, "--search", "ambiguous")] == [note]
    table = qaeval(db, "flags", "list")
    assert table.exit_code == 0 and "gold answer cites the wrong page" in table.stdout and "3 flag(s)" in table.stdout


def test_resolve_records_the_note_and_the_flag_leaves_the_open_queue(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    flag, note, bare = flagged_store(db)
    result = qaeval(db, "flags", "resolve", str(flag), "--note", "fixed the gold source", "--curator", "Mara")
    assert result.exit_code == 0, result.output
    assert [row["id"] for row in listed(db)] == [note, bare]
    (resolved,) = [row for row in listed(db, "--all") if row["status"] == "resolved"]
    assert resolved["id"] == flag
    assert resolved["resolution"] == {
        "note": "fixed the gold source",
        "curator": "Mara",
        "resolved_at": resolved["resolution"]["resolved_at"],  # type: ignore[index]
    }


def test_resolving_twice_an_unknown_id_or_a_blank_note_exits_2_and_changes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    flag, _, _ = flagged_store(db)
    assert qaeval(db, "flags", "resolve", str(flag), "--note", "done", "--curator", "Mara").exit_code == 0
    again = qaeval(db, "flags", "resolve", str(flag), "--note", "other", "--curator", "Mara")
    assert again.exit_code == 2 and "already resolved" in again.stderr and "Traceback" not in again.output
    unknown = qaeval(db, "flags", "resolve", "999", "--note", "x", "--curator", "Mara")
    assert unknown.exit_code == 2 and "flag 999: no such flag" in unknown.stderr
    blank = qaeval(db, "flags", "resolve", str(flag + 1), "--note", "  ", "--curator", "Mara")
    assert blank.exit_code == 2 and "--note" in blank.stderr
    assert [row["resolution"]["note"] for row in listed(db, "--all") if row["resolution"]] == ["done"]  # type: ignore[index]
    assert qaeval(db, "flags", "list", "--open", "--all").exit_code == 2


def axis_flags(path: Path) -> dict[str, int]:
    """Flags about different axes: can't judge on one, the axis named in the note, and neither."""
    from qaeval_tui.core.store.rows import LabelDraft
    from tests.core.review_fixtures import store_with_run

    store, items = store_with_run(path, n_items=3)
    with store:
        case_ids = {item: output.case_id for item, output in zip(items, store.run_outputs("run-1"), strict=True)}

        def label(item: str, reviewer: str, scores: dict[str, int | None], note: str) -> int:
            draft = LabelDraft(item, case_ids[item], reviewer, scores, "1", note=note, flagged=True)
            return store.append_label(draft).id

        full = {"faithfulness": 2, "citation_correctness": 2, "answer_correctness": 2}
        return {
            "cant_judge": label(items[0], "ana", full | {"faithfulness": None}, "source s2 is unreadable"),
            "named": label(items[1], "ben", full, "Citation Correctness: which passage counts?"),
            "neither": label(items[2], "ana", full, "typo in the question"),
        }


def test_list_by_axis_keeps_flags_about_that_axis_with_the_other_filters(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    ids = axis_flags(db)
    assert [row["id"] for row in listed(db, "--axis", "faithfulness")] == [ids["cant_judge"]]
    assert [row["id"] for row in listed(db, "--axis", "citation_correctness")] == [ids["named"]]
    assert listed(db, "--axis", "answer_correctness") == []
    assert listed(db, "--axis", "faithfulness", "--reviewer", "ben") == []  # the filters combine
    everything = {row["id"]: row["axes"] for row in listed(db)}
    assert everything == {
        ids["cant_judge"]: ["faithfulness"],
        ids["named"]: ["citation_correctness"],
        ids["neither"]: [],
    }
    table = qaeval(db, "flags", "list", "--axis", "citation_correctness")
    assert table.exit_code == 0 and "which passage counts?" in table.stdout and "1 flag(s)" in table.stdout
    assert "typo in the question" not in table.stdout


def test_list_by_an_unknown_axis_exits_2_naming_the_rubric_s_axes_and_creates_no_store(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    axis_flags(db)
    result = qaeval(db, "flags", "list", "--axis", "faithfulnes")
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "--axis 'faithfulnes': not an axis of the rubric" in result.stderr and "faithfulness" in result.stderr
    missing = tmp_path / "none.db"
    assert qaeval(missing, "flags", "list", "--axis", "nope").exit_code == 2
    assert not missing.exists()
