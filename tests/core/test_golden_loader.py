"""The strict golden loader: every error kind, reported all at once, nothing loaded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qaeval_tui.core.errors import InputError, UsageError
from qaeval_tui.core.golden.loader import load_golden
from tests.conftest import DEMO_GOLDEN, make_case, provenance, write_jsonl


def problems_of(*paths: Path) -> list[tuple[int, str, str]]:
    with pytest.raises(InputError) as caught:
        load_golden(list(paths))
    return [(p.line, p.field, p.message) for p in caught.value.problems]


def test_valid_set_loads_with_splits_and_hashes(golden_dir: Path) -> None:
    golden = load_golden([golden_dir])
    assert [c.case.id for c in golden.cases] == ["c1", "c2", "c3"]
    assert {c.case.id: c.split for c in golden.cases} == {"c1": "frozen", "c2": "frozen", "c3": "living"}
    assert golden.summary()["split"] == {"frozen": 2, "living": 1}
    assert len(golden.suite_hash) == 64


@pytest.mark.parametrize(
    ("override", "field", "fragment"),
    [
        ({"bogus": 1}, "bogus", "unknown field"),
        ({"question": 7}, "question", "valid string"),
        ({"question": "   "}, "question", "pattern"),
        ({"id": "has space"}, "id", "pattern"),
        ({"difficulty": "hard"}, "difficulty", "single_hop"),
        ({"expected_behavior": "maybe"}, "expected_behavior", "answer"),
        ({"gold_source_ids": ["s9"]}, "gold_source_ids[0]", "not a source id"),
        ({"gold_answer": None}, "gold_answer", "required"),
        ({"gold_answer": "  "}, "gold_answer", "required"),
        ({"gold_source_ids": []}, "gold_source_ids", "non-empty"),
        ({"expected_behavior": "abstain", "gold_source_ids": []}, "gold_answer", "must be null"),
        ({"difficulty": "multi_hop"}, "checkpoints", "required for a multi_hop case"),
        (
            {"difficulty": "aggregation", "checkpoints": [{"kind": "retrieve", "source_id": "nope"}]},
            "checkpoints[0].source_id",
            "not a source id",
        ),
        ({"checkpoints": [{"kind": "guess"}]}, "checkpoints[0]", "tag"),
        ({"sources": [{"id": "s1", "text": "a"}, {"id": "s1", "text": "b"}]}, "sources[1].id", "duplicate source id"),
        ({"sources": [{"id": "s1", "text": 3}]}, "sources[0].text", "valid string"),
        ({"provenance": {"origin": "x"}}, "provenance.trace_id", "Field required"),
        (
            {"provenance": {**provenance(), "promoted_at": "yesterday"}},
            "provenance.promoted_at",
            "not an ISO 8601 timestamp: 'yesterday'",
        ),
    ],
)
def test_each_field_error_is_named(tmp_path: Path, override: dict[str, object], field: str, fragment: str) -> None:
    path = write_jsonl(tmp_path / "frozen.jsonl", [make_case("c1", **override)])
    found = problems_of(path)
    assert any(f == field and fragment in m for _, f, m in found), found


def test_every_problem_in_every_file_is_reported_with_line(tmp_path: Path) -> None:
    first = write_jsonl(
        tmp_path / "a" / "frozen.jsonl",
        [make_case("c1"), "{not json", make_case("c2", bogus=True, gold_source_ids=["zz"])],
    )
    second = write_jsonl(
        tmp_path / "b" / "living.jsonl", ["", make_case("c1", provenance=provenance()), make_case("c4")]
    )
    found = problems_of(first, second)
    assert (2, "(line)", "invalid JSON: Expecting property name enclosed in double quotes at column 2") in found
    assert any(line == 3 and field == "bogus" for line, field, _ in found)
    assert any(line == 3 and field == "gold_source_ids[0]" for line, field, _ in found)
    assert any(line == 2 and field == "id" and "duplicate case id 'c1'" in msg for line, field, msg in found)
    assert (3, "provenance", "required in the living split") in found


def test_error_text_is_path_line_field_message(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "frozen.jsonl", [make_case("c1", gold_source_ids=["s9"])])
    with pytest.raises(InputError) as caught:
        load_golden([path])
    assert str(caught.value.problems[0]) == f"{path}:1: gold_source_ids[0]: 's9' is not a source id of this case"


def test_bom_invalid_utf8_and_non_object_lines(tmp_path: Path) -> None:
    bom = tmp_path / "bom" / "frozen.jsonl"
    bom.parent.mkdir()
    bom.write_bytes(b"\xef\xbb\xbf" + json.dumps(make_case()).encode() + b"\n")
    assert problems_of(bom)[0][1:] == ("(file)", "starts with a UTF-8 byte order mark; save without BOM")
    bad = tmp_path / "utf" / "frozen.jsonl"
    bad.parent.mkdir()
    bad.write_bytes(json.dumps(make_case()).encode() + b"\n" + b'{"id": "\xff"}\n' + b"[1, 2]\n")
    assert problems_of(bad) == [
        (2, "(line)", "invalid UTF-8 at byte 8"),
        (3, "(line)", "each line must be a JSON object"),
    ]


def test_a_lone_surrogate_escape_is_reported_and_a_valid_pair_loads(tmp_path: Path) -> None:
    # "\\udc00" alone parses with json.loads but is no character; hashing the case used to
    # crash with a serialization error instead of naming the line.
    lone = make_case("c1", sources=[{"id": "s1", "text": "The warranty \udc00 lasts ten years."}])
    pair = make_case("c2", question="How long is the warranty \U0001f50b?")
    path = write_jsonl(tmp_path / "frozen.jsonl", [pair, lone])
    [(line, field, message)] = problems_of(path)
    assert (line, field) == (2, "(line)")
    column = json.dumps(lone).index("\\udc00") + 1
    assert message == f"invalid JSON: lone UTF-16 surrogate escape (half a character) at column {column}"
    in_question = json.dumps(make_case("c3", question="Why \ud800?"))
    path.write_text(in_question + "\n", encoding="utf-8")
    column = in_question.index("\\ud800") + 1
    assert problems_of(path) == [
        (1, "(line)", f"invalid JSON: lone UTF-16 surrogate escape (half a character) at column {column}")
    ]
    path.write_text(json.dumps(pair) + "\n", encoding="utf-8")
    assert load_golden([path]).cases[0].case.question.endswith("\U0001f50b?")


def test_blank_lines_are_allowed_and_line_numbers_count_them(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "frozen.jsonl", ["", make_case("c1"), "   ", make_case("c2", bogus=1)])
    assert problems_of(path) == [(4, "bogus", "unknown field")]


def test_abstain_case_without_gold_is_valid(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "frozen.jsonl", [make_case("c1", expected_behavior="abstain", gold_answer=None, gold_source_ids=[])]
    )
    assert load_golden([path]).cases[0].case.expected_behavior == "abstain"


def test_missing_path_and_empty_folder_are_usage_errors(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no such file"):
        load_golden([tmp_path / "nope.jsonl"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(UsageError, match=r"no \.jsonl files"):
        load_golden([tmp_path / "empty"])


def test_hash_ignores_key_order_and_whitespace(tmp_path: Path) -> None:
    case = make_case("c1")
    write_jsonl(tmp_path / "a" / "frozen.jsonl", [case])
    reordered = json.dumps(dict(reversed(list(case.items()))), indent=None, separators=(" ,  ", " :   "))
    write_jsonl(tmp_path / "b" / "frozen.jsonl", [reordered])
    first, second = load_golden([tmp_path / "a"]), load_golden([tmp_path / "b"])
    assert first.cases[0].content_hash == second.cases[0].content_hash
    assert first.suite_hash == second.suite_hash


def test_hash_changes_with_content_and_suite_hash_ignores_file_order(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "a" / "frozen.jsonl", [make_case("c1"), make_case("c2")])
    write_jsonl(tmp_path / "b" / "frozen.jsonl", [make_case("c2"), make_case("c1")])
    write_jsonl(tmp_path / "c" / "frozen.jsonl", [make_case("c1"), make_case("c2", gold_answer="Eleven years.")])
    a, b, c = (load_golden([tmp_path / name]) for name in "abc")
    assert a.suite_hash == b.suite_hash
    assert a.suite_hash != c.suite_hash
    assert a.by_id()["c1"].content_hash == c.by_id()["c1"].content_hash


@pytest.mark.parametrize(
    ("spacing", "key_text", "field", "bogus"),
    [
        ((", ", ": "), '"text": ', "sources[1].text", False),  # a valid line otherwise: pydantic kept the last one
        ((",", " : "), '"gold_answer" : ', "gold_answer", False),  # a space before the colon
        ((" ,\t", "\t:\t"), '"id"\t:\t', "id", True),  # an invalid line too: the careful path
    ],
)
def test_a_repeated_key_is_refused_on_both_paths(
    tmp_path: Path, spacing: tuple[str, str], key_text: str, field: str, bogus: bool
) -> None:
    case = make_case("c1", **({"bogus": 1} if bogus else {}))
    line = json.dumps(case, separators=spacing)
    first = line.index(key_text, line.index("s2") if field.startswith("sources") else 0)
    path = write_jsonl(tmp_path / "frozen.jsonl", [line[:first] + key_text + '"again"' + spacing[0] + line[first:]])
    [(number, reported, message)] = problems_of(path)
    assert (number, reported) == (1, field)
    assert message.startswith(f"invalid JSON: duplicate key {field.rsplit('.', 1)[-1].split('[')[0]!r} at column ")


def test_escaped_quotes_before_colons_in_text_are_not_repeated_keys(tmp_path: Path) -> None:
    text = 'The label reads "Warranty": ten years. "Note" : keep the receipt.'
    case = make_case("c1", sources=[{"id": "s1", "title": 'say "x":', "text": text}])
    path = write_jsonl(tmp_path / "frozen.jsonl", [case])
    assert load_golden([path]).cases[0].case.sources[0].text == text


def test_demo_set_is_valid_and_meets_its_brief() -> None:
    golden = load_golden([DEMO_GOLDEN])
    summary = golden.summary()
    assert summary["split"]["frozen"] >= 24 and summary["split"]["living"] >= 6
    assert set(summary["difficulty"]) == {"single_hop", "multi_hop", "aggregation"}
    assert summary["behavior"]["abstain"] >= 5
    tags = set(summary["adversarial"]) - {"none"}
    assert {"time_sensitive", "decoy", "prompt_injection", "unanswerable_lookalike"} <= tags
    for loaded in golden.cases:
        if loaded.case.difficulty != "single_hop":
            assert loaded.case.checkpoints, loaded.case.id
        if loaded.split == "living":
            assert loaded.case.provenance is not None


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_arbitrary_bytes_never_escape_as_anything_but_input_error(
    tmp_path_factory: pytest.TempPathFactory, data: bytes
) -> None:
    path = tmp_path_factory.mktemp("bytes") / "frozen.jsonl"
    path.write_bytes(data)
    try:
        load_golden([path])
    except InputError as exc:
        assert exc.problems and all(p.line >= 1 for p in exc.problems)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(st.characters(exclude_categories=()), max_size=8),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from([*make_case().keys(), "x"]), json_values, max_size=10))
def test_arbitrary_json_objects_never_escape(tmp_path_factory: pytest.TempPathFactory, obj: dict[str, object]) -> None:
    path = tmp_path_factory.mktemp("json") / "living.jsonl"
    path.write_text(json.dumps(obj) + "\n", encoding="utf-8")
    try:
        load_golden([path])
    except InputError as exc:
        assert all(str(p).startswith(f"{path}:1: ") for p in exc.problems)


def test_a_suite_loaded_by_reference_reads_each_case_again_as_it_was(golden_dir: Path) -> None:
    # A run's suite keeps each case by its line only (its memory flat in the texts): the case read again is
    # the one validated, with the same hash, and the summary a run reads needs no second read.
    whole = load_golden([golden_dir])
    by_line = load_golden([golden_dir], by_reference=True)
    assert by_line.cases == whole.cases and by_line.suite_hash == whole.suite_hash
    assert all(loaded.by_line for loaded in by_line.cases)
    assert [loaded.case for loaded in by_line.cases] == [loaded.case for loaded in whole.cases]
    assert by_line.summary() == whole.summary()
    held = by_line.cases[0].held()
    assert not held.by_line and held.case is held.case  # read once, kept while it is held
    assert held.released().by_line and held.released().case == held.case


def test_a_golden_file_edited_while_its_suite_runs_stops_the_run_in_one_line(tmp_path: Path) -> None:
    # Measuring another case under the first one's hash would be a wrong number that looks right.
    path = write_jsonl(tmp_path / "golden" / "frozen.jsonl", [make_case("c1"), make_case("c2")])
    golden = load_golden([path], by_reference=True)
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('"c2"', '"c9"'), encoding="utf-8")
    assert golden.cases[0].case.id == "c1"  # a line left as it was still reads
    with pytest.raises(UsageError, match=r"frozen\.jsonl:2: the golden file changed while the suite was running"):
        _ = golden.cases[1].case
