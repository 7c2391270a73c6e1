"""Label files: export per reviewer, strict all-or-nothing import, idempotence, other tools' CSV/JSONL."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qaeval_tui.core.config import Config
from qaeval_tui.core.errors import InputError, UsageError
from qaeval_tui.core.limits import MAX_REVISION
from qaeval_tui.core.review.labels_io import (
    LABEL_FIELDS,
    VERDICTS_FILENAME,
    FieldMapping,
    export_labels,
    export_verdicts,
    import_labels,
    read_labels,
    read_verdicts,
)
from qaeval_tui.core.review.session import ReviewSession, assign, build_review_items
from qaeval_tui.core.store.sqlite import Store
from tests.core.review_fixtures import FULL, JUDGE_HASH, store_with_run

RUBRIC = Config().rubric


def labeled_store(path: Path) -> tuple[Store, list[str]]:
    store, items = store_with_run(path, n_items=4)
    build_review_items(store, "run-1")
    assign(store, ["ana", "ben"], overlap=2, seed=1)
    for reviewer in ("ana", "ben"):
        session = ReviewSession(store, Config(), reviewer)
        session.submit(items[0], FULL, f"{reviewer} note", False, 2.5)
        session.skip(items[1], 1.0)
        session.submit(items[2], {**FULL, "faithfulness": None}, "", True, 3.0)
    ReviewSession(store, Config(), "ana").submit(items[0], {**FULL, "faithfulness": 0}, "changed my mind", False, 1.0)
    return store, items


def test_export_writes_one_file_per_reviewer_with_every_revision(tmp_path: Path) -> None:
    store, items = labeled_store(tmp_path / "q.db")
    written = export_labels(store, tmp_path / "labels")
    assert written == {"ana": 4, "ben": 3}
    lines = [json.loads(line) for line in (tmp_path / "labels" / "ana.jsonl").read_text().splitlines()]
    assert all(tuple(line) == LABEL_FIELDS for line in lines)
    history = [
        (line["item_id"], line["revision"], line["scores"].get("faithfulness"))
        for line in lines
        if line["item_id"] == items[0]
    ]
    assert history == [(items[0], 1, 2), (items[0], 2, 0)]
    assert [line["skipped"] for line in lines].count(True) == 1


def test_import_round_trips_and_a_second_import_changes_nothing(tmp_path: Path) -> None:
    source, _ = labeled_store(tmp_path / "a.db")
    export_labels(source, tmp_path / "labels")
    target, _ = store_with_run(tmp_path / "b.db", n_items=4)
    build_review_items(target, "run-1")
    first = import_labels(target, [tmp_path / "labels"], RUBRIC)
    assert (first.added, first.unchanged, first.added_by_reviewer) == (7, 0, {"ana": 4, "ben": 3})
    again = import_labels(target, [tmp_path / "labels"], RUBRIC)
    assert (again.added, again.unchanged) == (0, 7)

    def content(store: Store) -> list[str]:
        return sorted(json.dumps(r.label.model_dump()) for r in store.labels())

    assert content(target) == content(source)


def test_any_invalid_line_is_reported_with_file_and_line_and_nothing_is_imported(tmp_path: Path) -> None:
    source, _items = labeled_store(tmp_path / "a.db")
    export_labels(source, tmp_path / "labels")
    path = tmp_path / "labels" / "ben.jsonl"
    lines = path.read_text().splitlines()
    broken = json.loads(lines[0]) | {"scores": {"faithfulness": 5, "tone": 1}}
    extra = json.loads(lines[1]) | {"mood": "happy"}
    path.write_text("\n".join([json.dumps(broken), json.dumps(extra), "{not json", lines[2]]) + "\n")
    target, _ = store_with_run(tmp_path / "b.db", n_items=4)
    with pytest.raises(InputError) as caught:
        import_labels(target, [tmp_path / "labels"], RUBRIC)
    located = {(Path(p.path).name, p.line, p.field) for p in caught.value.problems}
    assert ("ben.jsonl", 1, "scores.faithfulness") in located
    assert ("ben.jsonl", 1, "scores.tone") in located
    assert ("ben.jsonl", 2, "mood") in located
    assert ("ben.jsonl", 3, "(line)") in located
    assert target.labels() == []  # ana.jsonl was valid, yet nothing was imported


def test_a_lone_surrogate_escape_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    # json.loads accepts "\\ud800" alone, but it is no character: SQLite refused it with a
    # UnicodeEncodeError traceback before the reader learned to name it.
    source, _ = labeled_store(tmp_path / "a.db")
    export_labels(source, tmp_path / "labels")
    path = tmp_path / "labels" / "ben.jsonl"
    lines = path.read_text().splitlines()
    paired = json.loads(lines[1]) | {"note": "emoji \U0001f600 is a valid pair"}
    lines[0] = json.dumps(json.loads(lines[0]) | {"note": "half a pair \ud800 here"})
    lines[1] = json.dumps(paired)
    path.write_text("\n".join(lines) + "\n")
    target, _ = store_with_run(tmp_path / "b.db", n_items=4)
    build_review_items(target, "run-1")
    with pytest.raises(InputError) as caught:
        import_labels(target, [path], RUBRIC)
    column = lines[0].index("\\ud800") + 1
    assert [(p.line, p.field, p.message) for p in caught.value.problems] == [
        (1, "(line)", f"invalid JSON: lone UTF-16 surrogate escape (half a character) at column {column}")
    ]
    assert target.labels() == []


def test_a_different_label_under_an_existing_revision_is_refused(tmp_path: Path) -> None:
    source, _ = labeled_store(tmp_path / "a.db")
    export_labels(source, tmp_path / "labels")
    path = tmp_path / "labels" / "ben.jsonl"
    first = json.loads(path.read_text().splitlines()[0]) | {"note": "edited outside qaeval"}
    path.write_text(json.dumps(first) + "\n")
    with pytest.raises(InputError, match="append-only"):
        import_labels(source, [path], RUBRIC)
    assert len(source.labels()) == 7


def test_verdict_export_reads_back_and_needs_a_config_hash(tmp_path: Path) -> None:
    store, items = store_with_run(tmp_path / "q.db", n_items=3)
    assert export_verdicts(store, tmp_path / VERDICTS_FILENAME) == 3
    verdicts = read_verdicts([tmp_path])
    assert [v.item_id for v in verdicts] == items and verdicts[0].judge["config_hash"] == JUDGE_HASH
    bad = json.loads((tmp_path / VERDICTS_FILENAME).read_text().splitlines()[0])
    bad["judge"] = {"name": "x"}
    (tmp_path / "bad.jsonl").write_text(json.dumps(bad) + "\n")
    with pytest.raises(InputError, match=r"bad.jsonl:1: judge.config_hash"):
        read_verdicts([tmp_path / "bad.jsonl"])


def test_folder_reading_leaves_out_the_verdict_export(tmp_path: Path) -> None:
    store, _ = labeled_store(tmp_path / "q.db")
    export_labels(store, tmp_path / "labels")
    export_verdicts(store, tmp_path / "labels" / VERDICTS_FILENAME)
    assert {label.reviewer for label in read_labels([tmp_path / "labels"], RUBRIC)} == {"ana", "ben"}


CSV = """annotator,case,faith,cite,correct,comment,secs
ana,readable-case-000,2,1,NA,looks fine,12.5
ben,readable-case-000,1,,2,,8
ben,readable-case-001,2,2,2,"multi-line
comment",3
"""


def test_csv_from_another_tool_with_a_field_mapping_is_imported_once(tmp_path: Path) -> None:
    store, items = store_with_run(tmp_path / "q.db", n_items=2)
    build_review_items(store, "run-1")
    (tmp_path / "theirs.csv").write_text(CSV)
    mapping = FieldMapping.parse(["reviewer=annotator,case_id=case", "faithfulness=faith", "citation_correctness=cite"])
    mapping = FieldMapping(
        {**mapping.columns, "answer_correctness": "correct", "note": "comment", "seconds_spent": "secs"}
    )
    report = import_labels(store, [tmp_path / "theirs.csv"], RUBRIC, mapping=mapping)
    assert report.added == 3
    rows = {(r.reviewer, r.item_id): r.model_dump() for r in (row.label for row in store.labels())}
    assert rows[("ana", items[0])]["scores"] == {
        "faithfulness": 2,
        "citation_correctness": 1,
        "answer_correctness": None,
    }
    assert rows[("ben", items[0])]["scores"] == {"faithfulness": 1, "answer_correctness": 2}  # empty cell: not scored
    assert rows[("ben", items[1])]["note"] == "multi-line\ncomment" and rows[("ana", items[0])]["seconds_spent"] == 12.5
    assert import_labels(store, [tmp_path / "theirs.csv"], RUBRIC, mapping=mapping).added == 0
    assert len(store.labels()) == 3


def test_foreign_problems_name_the_line_and_import_nothing(tmp_path: Path) -> None:
    store, _ = store_with_run(tmp_path / "q.db", n_items=2)
    build_review_items(store, "run-1")
    (tmp_path / "theirs.csv").write_text(
        "who,case,faithfulness\nana,readable-case-000,2\n,readable-case-001,9\nana,nope,1\n"
    )
    with pytest.raises(InputError) as caught:
        import_labels(
            store, [tmp_path / "theirs.csv"], RUBRIC, mapping=FieldMapping({"reviewer": "who", "case_id": "case"})
        )
    assert {(p.line, p.field) for p in caught.value.problems} == {
        (3, "reviewer"),
        (3, "scores.faithfulness"),
        (4, "case_id"),
    }
    assert store.labels() == []
    with pytest.raises(InputError, match="no column 'annotator'"):
        import_labels(store, [tmp_path / "theirs.csv"], RUBRIC, mapping=FieldMapping({"reviewer": "annotator"}))


def test_foreign_jsonl_with_nested_scores_and_a_default_reviewer(tmp_path: Path) -> None:
    store, items = store_with_run(tmp_path / "q.db", n_items=2)
    build_review_items(store, "run-1")
    line = {"id": items[1], "scores": {"faithfulness": "2", "citation_correctness": None}, "flag": "yes"}
    (tmp_path / "theirs.jsonl").write_text(json.dumps(line) + "\n")
    mapping = FieldMapping({"item_id": "id", "flagged": "flag"})
    report = import_labels(store, [tmp_path / "theirs.jsonl"], RUBRIC, mapping=mapping, reviewer="dana")
    assert report.added_by_reviewer == {"dana": 1}
    (revision,) = store.labels()
    row = revision.label
    assert (row.scores, row.flagged, row.case_id) == (
        {"faithfulness": 2, "citation_correctness": None},
        True,
        "readable-case-001",
    )


def _native_line(**overrides: object) -> str:
    line = {
        "item_id": "i1", "case_id": "c", "reviewer": "ana", "scores": {"faithfulness": 2}, "note": "",
        "flagged": False, "skipped": False, "rubric_version": "1", "revealed": False, "revision": 1,
        "created_at": "2026-01-01T00:00:00Z", "seconds_spent": 1.0,
    }  # fmt: skip
    return json.dumps(line | overrides)


def test_a_revision_beyond_the_store_integers_is_a_located_problem(tmp_path: Path) -> None:
    # SQLite holds signed 64-bit integers: 2**63 escaped the import as an OverflowError traceback. Files
    # are capped far below, so the revision after the largest one still fits (and exports read back).
    largest = MAX_REVISION
    (tmp_path / "ana.jsonl").write_text(_native_line(revision=largest) + "\n" + _native_line(revision=largest + 1))
    with Store.open(tmp_path / "q.db") as store:
        with pytest.raises(InputError) as caught:
            import_labels(store, [tmp_path / "ana.jsonl"], RUBRIC)
        assert [(p.line, p.field) for p in caught.value.problems] == [(2, "revision")]
        assert store.labels() == []
        (tmp_path / "ana.jsonl").write_text(_native_line(revision=largest) + "\n")
        assert import_labels(store, [tmp_path / "ana.jsonl"], RUBRIC).added == 1
        assert [row.label.revision for row in store.labels()] == [largest]


@pytest.mark.parametrize("seconds", ["inf", "1e999", "nan", "-inf"])
def test_time_spent_that_is_not_finite_is_a_located_problem(tmp_path: Path, seconds: str) -> None:
    store, _ = store_with_run(tmp_path / "q.db", n_items=1)
    build_review_items(store, "run-1")
    (tmp_path / "theirs.csv").write_text(f"who,case,faithfulness,secs\nana,readable-case-000,2,{seconds}\n")
    mapping = FieldMapping({"reviewer": "who", "case_id": "case", "seconds_spent": "secs"})
    with pytest.raises(InputError) as caught:
        import_labels(store, [tmp_path / "theirs.csv"], RUBRIC, mapping=mapping)
    assert [(p.line, p.field) for p in caught.value.problems] == [(2, "seconds_spent")]
    assert store.labels() == []


def test_time_spent_given_as_a_boolean_is_not_one_second(tmp_path: Path) -> None:
    store, items = store_with_run(tmp_path / "q.db", n_items=1)
    build_review_items(store, "run-1")
    line = {"id": items[0], "who": "ana", "scores": {"faithfulness": 2}, "seconds_spent": True}
    (tmp_path / "theirs.jsonl").write_text(json.dumps(line) + "\n")
    with pytest.raises(InputError, match=r"theirs.jsonl:1: seconds_spent: True is not a number"):
        import_labels(
            store, [tmp_path / "theirs.jsonl"], RUBRIC, mapping=FieldMapping({"item_id": "id", "reviewer": "who"})
        )
    assert store.labels() == []


@pytest.mark.parametrize(
    ("rows", "line", "field", "fragment"),
    [
        ("ana,readable-case-000,2\n", 2, "(line)", "3 cells, but the header has 4 columns (missing cells"),
        ("ana,readable-case-000,2,1,0\n", 2, "(line)", "5 cells, but the header has 4 columns (extra cells"),
        ("ana,readable-case-000,2,1\nben,readable-case-000\n", 3, "(line)", "2 cells, but the header has 4"),
    ],
    ids=["truncated", "overlong", "truncated-second"],
)
def test_a_csv_row_that_does_not_fit_its_header_is_a_located_problem(
    tmp_path: Path, rows: str, line: int, field: str, fragment: str
) -> None:
    # A short row used to read its missing cells as "can't judge" on every axis they held.
    store, _ = store_with_run(tmp_path / "q.db", n_items=1)
    build_review_items(store, "run-1")
    (tmp_path / "theirs.csv").write_text("who,case,faithfulness,citation_correctness\n" + rows)
    with pytest.raises(InputError) as caught:
        import_labels(
            store, [tmp_path / "theirs.csv"], RUBRIC, mapping=FieldMapping({"reviewer": "who", "case_id": "case"})
        )
    assert [(p.line, p.field) for p in caught.value.problems] == [(line, field)]
    assert fragment in caught.value.problems[0].message
    assert store.labels() == []


def test_a_csv_column_named_twice_is_a_problem(tmp_path: Path) -> None:
    store, _ = store_with_run(tmp_path / "q.db", n_items=1)
    build_review_items(store, "run-1")
    (tmp_path / "theirs.csv").write_text("who,case,faithfulness,faithfulness\nana,readable-case-000,0,2\n")
    with pytest.raises(InputError, match=r"theirs.csv:1: \(header\): column 'faithfulness' appears more than once"):
        import_labels(
            store, [tmp_path / "theirs.csv"], RUBRIC, mapping=FieldMapping({"reviewer": "who", "case_id": "case"})
        )
    assert store.labels() == []


@pytest.mark.parametrize(
    ("judge", "field"),
    [({"rubric_version": 1}, "judge.rubric_version"), ({"config_hash": 7}, "judge.config_hash")],
)
def test_a_verdicts_judge_binding_must_be_text(tmp_path: Path, judge: dict[str, object], field: str) -> None:
    store, _ = store_with_run(tmp_path / "q.db", n_items=1)
    export_verdicts(store, tmp_path / VERDICTS_FILENAME)
    line = json.loads((tmp_path / VERDICTS_FILENAME).read_text())
    line["judge"] |= judge
    (tmp_path / VERDICTS_FILENAME).write_text(json.dumps(line) + "\n")
    with pytest.raises(InputError) as caught:
        read_verdicts([tmp_path])
    assert [(p.line, p.field) for p in caught.value.problems] == [(1, field)]


def test_scores_that_no_longer_fit_the_rubric_of_their_version_say_to_bump_it(tmp_path: Path) -> None:
    (tmp_path / "ana.jsonl").write_text(_native_line(scores={"faithfulness": 3, "grounded": 1}) + "\n")
    with pytest.raises(InputError) as caught:
        read_labels([tmp_path], RUBRIC)
    assert {(p.field, p.message) for p in caught.value.problems} == {
        ("scores.faithfulness", "3 is not on the faithfulness scale [0, 1, 2] of rubric version '1'; "
         "if the rubric changed, bump rubric.version in the config"),
        ("scores.grounded", "rubric version '1' has no axis 'grounded' (its axes: faithfulness, citation_correctness, "
         "answer_correctness): a typo, or if the rubric changed, bump rubric.version in the config"),
    }  # fmt: skip
    (tmp_path / "ana.jsonl").write_text(_native_line(scores={"grounded": 9}, rubric_version="0") + "\n")
    assert [label.scores for label in read_labels([tmp_path], RUBRIC)] == [{"grounded": 9}]  # another version: history


def test_bad_mappings_are_usage_errors() -> None:
    with pytest.raises(UsageError):
        FieldMapping.parse(["reviewer"])
    with pytest.raises(UsageError, match="unknown field"):
        FieldMapping({"tone": "x"}).check(RUBRIC)


score = st.one_of(st.none(), st.sampled_from([0, 1, 2]))
label_lines = st.lists(
    st.fixed_dictionaries(
        {
            "item_id": st.sampled_from(["i1", "i2", "i3"]),
            "reviewer": st.sampled_from(["ana", "ben"]),
            "revision": st.integers(1, 3),
            "scores": st.dictionaries(st.sampled_from(list(RUBRIC.axis_names)), score),
            "note": st.text(max_size=20),
            "flagged": st.booleans(),
            "revealed": st.booleans(),
            "seconds_spent": st.floats(0, 1000),
        }
    ),
    unique_by=lambda line: (line["item_id"], line["reviewer"], line["revision"]),
    max_size=12,
)


@settings(max_examples=40, deadline=None)
@given(lines=label_lines)
def test_any_valid_label_file_imports_exactly_once(
    tmp_path_factory: pytest.TempPathFactory, lines: list[dict[str, Any]]
) -> None:
    folder = tmp_path_factory.mktemp("labels")
    full = [
        {**line, "case_id": "c", "skipped": False, "rubric_version": "1", "created_at": "2026-01-01T00:00:00Z"}
        for line in lines
    ]
    (folder / "all.jsonl").write_text("".join(json.dumps(line) + "\n" for line in full))
    with Store.open(":memory:") as store:
        first = import_labels(store, [folder], RUBRIC)
        second = import_labels(store, [folder], RUBRIC)
        assert (first.added, second.added, second.unchanged) == (len(lines), 0, len(lines))
        stored = {(r.item_id, r.reviewer, r.revision): r.model_dump() for r in (row.label for row in store.labels())}
        for line in full:
            row = stored[(line["item_id"], line["reviewer"], line["revision"])]
            assert {key: row[key] for key in line} == line


def test_a_note_with_line_separator_characters_round_trips(tmp_path: Path) -> None:
    # Exported with ensure_ascii=False, U+2028 and a form feed sit raw inside one JSON line;
    # reading must split on "\n" only, or the record is cut in two.
    source, items = store_with_run(tmp_path / "a.db", n_items=1)
    build_review_items(source, "run-1")
    assign(source, ["ana"], overlap=1, seed=1)
    note = "first part\u2028second part\x0cthird"
    ReviewSession(source, Config(), "ana").submit(items[0], FULL, note, False, 1.0)
    export_labels(source, tmp_path / "labels")
    assert "\u2028" in (tmp_path / "labels" / "ana.jsonl").read_text(encoding="utf-8")
    target, _ = store_with_run(tmp_path / "b.db", n_items=1)
    build_review_items(target, "run-1")
    report = import_labels(target, [tmp_path / "labels"], RUBRIC)
    assert report.added == 1
    assert [row.label.note for row in target.labels()] == [note]
