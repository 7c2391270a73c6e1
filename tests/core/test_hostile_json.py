"""Every reader of user files turns JSON that Python's parser chokes on into a located error.

json.loads (and tomllib) recurse once per nesting level: a line of a hundred thousand "[" used to
escape every reader as a RecursionError traceback instead of `path:line: field: message`. An
integer of more than 4,300 digits did the same with a ValueError.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from qaeval_tui.core.config import load_config
from qaeval_tui.core.curation.inbox import import_misses
from qaeval_tui.core.errors import ConfigError, InputError, Problem, UsageError
from qaeval_tui.core.gate.baseline import BaselineInputError, load_baseline
from qaeval_tui.core.golden.loader import load_golden
from qaeval_tui.core.jsonl import lone_surrogate_column
from qaeval_tui.core.review.labels_io import read_labels, read_verdicts
from qaeval_tui.core.statistics.drift import read_timeseries
from qaeval_tui.core.store.sqlite import Store

DEPTH = 100_000
DEEP_ARRAY = "[" * DEPTH + "]" * DEPTH
DEEP_OBJECT = '{"a":' * DEPTH + "1" + "}" * DEPTH
HUGE_INTEGER = '{"id": ' + "9" * 5000 + "}"


def _store_import(path: Path) -> object:
    with Store.open(path.parent / "q.db") as store:
        return import_misses(store, path)


READERS: dict[str, tuple[str, Callable[[Path], object]]] = {
    "golden": ("frozen.jsonl", lambda p: load_golden([p])),
    "labels": ("ana.jsonl", lambda p: read_labels([p])),
    "verdicts": ("judge-verdicts.jsonl", lambda p: read_verdicts([p])),
    "inbox": ("misses.jsonl", _store_import),
    "timeseries": ("drift.jsonl", read_timeseries),
}


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize(
    ("line", "reason"),
    [(DEEP_ARRAY, "nested too deeply"), (DEEP_OBJECT, "nested too deeply"), (HUGE_INTEGER, "Exceeds the limit")],
    ids=["deep-array", "deep-object", "huge-integer"],
)
def test_json_python_cannot_parse_is_a_located_problem(tmp_path: Path, reader: str, line: str, reason: str) -> None:
    name, read = READERS[reader]
    path = tmp_path / name
    path.write_text("\n" + line + "\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read(path)
    [problem] = caught.value.problems
    assert (problem.path, problem.line, problem.field) == (str(path), 2, "(line)")
    assert problem.message.startswith("invalid JSON: " + reason)
    if line is HUGE_INTEGER:  # the column of the digits, not of the line
        assert problem.message.endswith(f"at column {line.index('9') + 1}")


def test_deep_nesting_in_a_baseline_is_a_usage_error_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "baseline.json"
    path.write_text(DEEP_ARRAY, encoding="utf-8")
    with pytest.raises(UsageError, match=r"baseline\.json: the baseline is not valid JSON \(nested too deeply"):
        load_baseline(path)


def test_deep_nesting_in_the_config_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "qaeval.toml"
    path.write_text("a = " + DEEP_ARRAY + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"qaeval\.toml: invalid TOML: nested too deeply"):
        load_config(path)


def test_a_lone_surrogate_in_a_production_miss_is_a_located_problem(tmp_path: Path) -> None:
    # The miss model accepted it in a source text, and SQLite then refused it with a traceback.
    from tests.curation_fixtures import make_miss

    miss = make_miss("tr-1")
    miss["sources"][0]["text"] = "The warranty \udc00 lasts ten years."
    line = json.dumps(miss)
    path = tmp_path / "misses.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        _store_import(path)
    [problem] = caught.value.problems
    assert (problem.line, problem.field) == (1, "(line)")
    assert problem.message.endswith(f"at column {line.index(chr(92) + 'udc00') + 1}")
    with Store.open(tmp_path / "q.db") as store:
        assert store.count("inbox") == 0


def test_a_huge_integer_in_the_config_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "qaeval.toml"
    path.write_text("[run]\nworkers = " + "9" * 5000 + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"qaeval\.toml: invalid TOML: Exceeds the limit"):
        load_config(path)


@pytest.mark.parametrize(
    ("line", "column"),
    [
        ('"a\\ud800b"', 3),  # a high half alone
        ('"a\\udc00"', 3),  # a low half alone
        ('"\\ud83d\\ude00"', None),  # a pair: one character (an emoji)
        ('"\\uD83D\\uDE00"', None),  # the same pair in capitals
        ('"\\ud83d\\ud83d\\ude00"', 2),  # a high half followed by a pair
        ('"\\ud800\\u0041"', 2),  # a high half followed by a plain escape
        ('"x\\\\ud800"', None),  # an escaped backslash, then plain text
        ('"\\\\\\ud800"', 4),  # an escaped backslash, then a lone half
        ('{"\\udfff": 1}', 3),  # in a key
        ('"\\u00e9\\n\\ud800"', 10),  # after other escapes
    ],
)
def test_lone_surrogate_column(line: str, column: int | None) -> None:
    json.loads(line)  # every case is JSON Python accepts
    assert lone_surrogate_column(line) == column


# -- JSON Python's parser reads but a user file must not hold ------------------------------------------------
# A repeated key used to replace the first one silently (a second "reviewer" relabelled a line), and
# NaN, Infinity and 1e999 were read as numbers: NaN and Infinity checkpoint values even gave one
# golden case the same content hash. Each is now a located problem naming the key.

LABEL = {
    "item_id": "i1", "case_id": "c1", "reviewer": "ana", "scores": {"faithfulness": 2}, "note": "",
    "flagged": False, "skipped": False, "rubric_version": "1", "revealed": False, "revision": 1,
    "created_at": "2026-01-01T00:00:00Z", "seconds_spent": 1.5,
}  # fmt: skip
VERDICT = {
    "item_id": "i1", "case_id": "c1", "status": "ok", "scores": {"faithfulness": 2}, "evidence": {},
    "judge": {"name": "mech", "model": "m", "config_hash": "J1", "rubric_version": "1", "temperature": 0.5},
    "created_at": "2026-01-01T00:00:00Z",
}  # fmt: skip
POINT = {
    "version": 1, "at": "2026-01-01T00:00:00Z", "run_id": "r1", "suite_hash": "s", "judge_config_hash": "j",
    "metrics": {"faithfulness_rate": 0.5},
}  # fmt: skip


def _miss() -> dict[str, object]:
    from tests.curation_fixtures import make_miss

    return make_miss("tr-1")


def _aggregation_case() -> dict[str, object]:
    from tests.conftest import make_case

    checkpoints = [{"kind": "retrieve", "source_id": "s1"}, {"kind": "value", "name": "years", "value": 10.5}]
    return make_case("agg-1", difficulty="aggregation", checkpoints=checkpoints)


# reader -> (a valid line, (the key repeated and its field), the number replaced by a non-finite one)
VALID_LINES: dict[str, tuple[dict[str, object], tuple[str, str], tuple[str, str]]] = {
    "golden": (_aggregation_case(), ('"question": ', "question"), ('"value": 10.5', "checkpoints[1].value")),
    "labels": (LABEL, ('"reviewer": ', "reviewer"), ('"seconds_spent": 1.5', "seconds_spent")),
    "verdicts": (VERDICT, ('"faithfulness": ', "scores.faithfulness"), ('"temperature": 0.5', "judge.temperature")),
    "inbox": (_miss(), ('"text": ', "sources[0].text"), ('"answer": "Five days."', "answer")),
    "timeseries": (POINT, ('"run_id": ', "run_id"), ('"faithfulness_rate": 0.5', "metrics.faithfulness_rate")),
}


def _refused(tmp_path: Path, reader: str, line: str) -> tuple[Path, list[Problem]]:
    name, read = READERS[reader]
    path = tmp_path / name
    valid = json.dumps(VALID_LINES[reader][0])
    path.write_text(valid + "\n" + line + "\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read(path)
    return path, list(caught.value.problems)


@pytest.mark.parametrize("reader", sorted(READERS))
def test_a_repeated_key_is_a_located_problem_naming_the_key(tmp_path: Path, reader: str) -> None:
    obj, (key_text, field), _ = VALID_LINES[reader]
    line = json.dumps(obj)
    first = line.index(key_text)
    # The same key again, just before the first one, with its own (valid, string) value.
    repeated = line[:first] + key_text + '"other", ' + line[first:]
    path, problems = _refused(tmp_path, reader, repeated)
    key = field.rsplit(".", 1)[-1].split("[")[0]
    column = first + len(key_text) + len('"other", ') + 1
    assert [(p.path, p.line, p.field, p.message) for p in problems] == [
        (str(path), 2, field, f"invalid JSON: duplicate key {key!r} at column {column}")
    ]


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e999", "-1e999"])
def test_a_number_that_is_not_finite_is_a_located_problem(tmp_path: Path, reader: str, number: str) -> None:
    obj, _, (number_text, field) = VALID_LINES[reader]
    line = json.dumps(obj)
    key = number_text.split(":")[0]
    at = line.index(number_text) + len(key) + 2
    path, problems = _refused(tmp_path, reader, line.replace(number_text, f"{key}: {number}"))
    [problem] = problems
    assert (problem.path, problem.line, problem.field) == (str(path), 2, field)
    assert problem.message.startswith(f"invalid JSON: {number} is ")
    assert problem.message.endswith(f"write a finite number at column {at + 1}")  # null is not always allowed


def test_a_repeated_key_in_a_baseline_is_an_error_naming_file_line_and_field(tmp_path: Path) -> None:
    from tests.conftest import REPO

    text = (REPO / "baselines" / "demo.json").read_text(encoding="utf-8")
    path = tmp_path / "baseline.json"
    path.write_text(text.replace('"suite_hash": ', '"suite_hash": "0000", "suite_hash": ', 1), encoding="utf-8")
    load_baseline(REPO / "baselines" / "demo.json")  # the untouched file loads
    line = next(n for n, row in enumerate(path.read_text().splitlines(), 1) if '"suite_hash"' in row)
    with pytest.raises(BaselineInputError) as caught:
        load_baseline(path)
    assert caught.value.exit_code == 2
    assert f"{path}:{line}: run.suite_hash: duplicate key 'suite_hash'" in str(caught.value)


def test_nan_and_infinity_checkpoint_values_no_longer_load_as_one_case(tmp_path: Path) -> None:
    line = json.dumps(_aggregation_case())
    for number in ("NaN", "Infinity"):
        path = tmp_path / f"{number}.jsonl"
        path.write_text(line.replace('"value": 10.5', f'"value": {number}') + "\n", encoding="utf-8")
        with pytest.raises(InputError) as caught:
            load_golden([path])
        assert [(p.line, p.field) for p in caught.value.problems] == [(1, "checkpoints[1].value")]
