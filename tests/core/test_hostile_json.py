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

from qaeval_tui.core.baseline import load_baseline
from qaeval_tui.core.config import load_config
from qaeval_tui.core.drift import read_timeseries
from qaeval_tui.core.errors import ConfigError, InputError, UsageError
from qaeval_tui.core.golden import load_golden
from qaeval_tui.core.inbox import import_misses
from qaeval_tui.core.jsonl import lone_surrogate_column
from qaeval_tui.core.labels_io import read_labels, read_verdicts
from qaeval_tui.core.store import Store

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
