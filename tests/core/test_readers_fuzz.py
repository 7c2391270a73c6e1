"""Every reader of user files: arbitrary bytes never escape as anything but the project's own errors.

The golden loader has its own property tests (test_golden_loader.py). These feed the other
readers files made of random bytes, JSON-ish lines, lone surrogate escapes, and nesting deeper
than Python's parser goes: each must load or raise a QaevalError (a located problem list or a
usage error), never a traceback. Two real crashes of this kind (a lone surrogate reaching SQLite,
deep nesting reaching json.loads) are why this file exists.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qaeval_tui.core.config import Config
from qaeval_tui.core.curation.inbox import import_misses
from qaeval_tui.core.curation.traces.importer import TRACE_FORMATS, import_traces
from qaeval_tui.core.errors import InputError, Problem, QaevalError, UsageError
from qaeval_tui.core.gate.baseline import load_baseline
from qaeval_tui.core.golden.loader import load_golden
from qaeval_tui.core.review.labels_foreign import FieldMapping
from qaeval_tui.core.review.labels_io import import_labels, read_labels, read_verdicts
from qaeval_tui.core.review.rubric_fit import check_rubric_unchanged
from qaeval_tui.core.rubric import Axis, Rubric
from qaeval_tui.core.statistics.drift import read_timeseries
from qaeval_tui.core.store.sqlite import Store
from tests.conftest import make_case, provenance
from tests.curation_fixtures import make_miss

RUBRIC = Config().rubric

# A production miss valid in every field but one source text holding half a UTF-16 pair.
_MISS_WITH_SURROGATE = json.dumps(
    make_miss("tr-fuzz") | {"sources": [{"id": "s1", "title": "t", "text": "half \udc00 pair"}]}
).encode()
_KEYS = ["item_id", "case_id", "reviewer", "scores", "note", "trace_id", "question", "sources", "format", "x",
         "resourceSpans", "scopeSpans", "spans", "attributes", "data", "observations", "id", "timestamp"]  # fmt: skip
_json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(st.characters(exclude_categories=()), max_size=8),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.sampled_from(_KEYS), children, max_size=4),
    max_leaves=10,
)
_line = st.one_of(
    st.binary(max_size=60),
    _json_values.map(lambda value: json.dumps(value).encode()),
    st.dictionaries(st.sampled_from(_KEYS), _json_values, max_size=6).map(lambda obj: json.dumps(obj).encode()),
    st.sampled_from(
        [
            b'{"note": "\\ud800"}',
            _MISS_WITH_SURROGATE,
            b"[" * 5000 + b"]" * 5000,
            b'{"version": ' + b"9" * 5000 + b"}",
            b"\xef\xbb\xbf{}",
            b"a,b\n1,2",
        ]
    ),
)
files = st.lists(_line, max_size=5).map(b"\n".join)


def _in_store(read: Callable[[Store, Path], object]) -> Callable[[Path], object]:
    def run(path: Path) -> object:
        with Store.open(path.parent / "q.db") as store:
            return read(store, path)

    return run


READERS: dict[str, tuple[str, Callable[[Path], object]]] = {
    "labels": ("ana.jsonl", lambda p: read_labels([p], RUBRIC)),
    "verdicts": ("judge-verdicts.jsonl", lambda p: read_verdicts([p])),
    "label import": ("ana.jsonl", _in_store(lambda s, p: import_labels(s, [p], RUBRIC))),
    "csv import": (
        "theirs.csv",
        _in_store(lambda s, p: import_labels(s, [p], RUBRIC, mapping=FieldMapping.parse(["reviewer=a,case_id=b"]))),
    ),
    "inbox import": ("misses.jsonl", _in_store(import_misses)),
    **{
        f"inbox import --format {fmt}": ("traces.json", _in_store(lambda s, p, fmt=fmt: import_traces(s, p, fmt)))
        for fmt in TRACE_FORMATS
    },
    "time series": ("drift.jsonl", read_timeseries),
    "baseline": ("baseline.json", load_baseline),
}


@pytest.mark.parametrize("reader", sorted(READERS))
@settings(max_examples=60, deadline=None)
@given(data=files)
def test_arbitrary_files_never_escape_a_reader(
    tmp_path_factory: pytest.TempPathFactory, reader: str, data: bytes
) -> None:
    name, read = READERS[reader]
    path = tmp_path_factory.mktemp("fuzz") / name
    path.write_bytes(data)
    try:
        read(path)
    except InputError as exc:
        assert exc.problems and all(p.path == str(path) and p.line >= 0 for p in exc.problems)
    except QaevalError:
        pass  # a usage error: one message naming the file


# -- the strict-reader classes, as properties over every reader --------------------------------------------------
# Each takes a file of valid lines, spoils one line in one way the readers once accepted or crashed on,
# and requires a problem naming that line and field, and nothing loaded.


_finite_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=3), children, max_size=3),
    max_leaves=6,
)


def _label(i: int) -> dict[str, Any]:
    return {
        "item_id": f"i{i}", "case_id": f"c{i}", "reviewer": "ana",
        "scores": {"faithfulness": 2, "answer_correctness": None}, "note": "n", "flagged": False,
        "skipped": False, "rubric_version": "1", "revealed": False, "revision": 1,
        "created_at": "2026-01-01T00:00:00Z", "seconds_spent": 1.5,
    }  # fmt: skip


def _verdict(i: int) -> dict[str, Any]:
    return {
        "item_id": f"i{i}", "case_id": f"c{i}", "status": "ok", "evidence": {"faithfulness": "span"},
        "scores": {"faithfulness": 1, "citation_correctness": 2}, "created_at": "2026-01-01T00:00:00Z",
        "judge": {"name": "mech", "model": "m", "config_hash": "J1", "rubric_version": "1", "temperature": 0.5,
                  "seed": 3},
    }  # fmt: skip


def _case(i: int) -> dict[str, Any]:
    checkpoints = [{"kind": "retrieve", "source_id": "s1"}, {"kind": "value", "name": "years", "value": 10}]
    return make_case(f"case-{i}", difficulty="multi_hop", checkpoints=checkpoints, provenance=provenance())


def _point(i: int) -> dict[str, Any]:
    return {
        "version": 1, "at": f"2026-01-0{i + 1}T00:00:00Z", "run_id": f"r{i}", "suite_hash": "s",
        "judge_config_hash": "j", "metrics": {"faithfulness_rate": 0.5, "mrr": None},
    }  # fmt: skip


# reader -> (file name, valid line number i, read)
STRICT_READERS: dict[str, tuple[str, Callable[[int], dict[str, Any]], Callable[[Path], object]]] = {
    "golden": ("living.jsonl", _case, lambda p: load_golden([p])),
    "labels": ("ana.jsonl", _label, lambda p: read_labels([p], RUBRIC)),
    "label import": ("ana.jsonl", _label, _in_store(lambda s, p: import_labels(s, [p], RUBRIC))),
    "verdicts": ("judge-verdicts.jsonl", _verdict, lambda p: read_verdicts([p], RUBRIC)),
    "inbox import": ("misses.jsonl", lambda i: make_miss(f"tr-{i}"), _in_store(import_misses)),
    "time series": ("drift.jsonl", _point, read_timeseries),
}
_SENTINEL = "\x00spoiled\x00"


def _nodes(value: Any, path: tuple[str | int, ...] = ()) -> Iterator[tuple[tuple[str | int, ...], Any]]:
    """(path, value) of every value in a JSON document, containers included."""
    yield path, value
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in children:
        yield from _nodes(child, (*path, key))


def _field(path: Sequence[str | int]) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text or "(line)"


def _replace(document: Any, path: Sequence[str | int], value: Any) -> Any:
    if not path:
        return value
    copy = dict(document) if isinstance(document, dict) else list(document)
    copy[path[0]] = _replace(document[path[0]], path[1:], value)  # type: ignore[index]
    return copy


def _read_spoiled(tmp: Path, reader: str, spoiled: str, where: int, lines: int) -> list[Problem]:
    name, record, read = STRICT_READERS[reader]
    path = tmp / name
    text = [spoiled if i == where else json.dumps(record(i)) for i in range(lines)]
    path.write_text("\n".join(text) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read(path)
    assert all(p.path == str(path) and p.line == where + 1 for p in caught.value.problems), caught.value
    if reader.endswith("import"):
        with Store.open(tmp / "q.db") as store:
            assert store.count("labels") == store.count("inbox") == 0  # nothing stored
    return caught.value.problems


@pytest.mark.parametrize("reader", sorted(STRICT_READERS))
@settings(max_examples=40, deadline=None)
@given(data=st.data(), literal=st.sampled_from(["NaN", "Infinity", "-Infinity", "1e999", "-2.5e400", "1E309"]))
def test_a_number_that_is_not_finite_anywhere_is_refused_at_its_field(
    tmp_path_factory: pytest.TempPathFactory, reader: str, data: st.DataObject, literal: str
) -> None:
    lines, where = data.draw(st.integers(1, 3).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n - 1))))
    record = STRICT_READERS[reader][1](where)
    path, _ = data.draw(st.sampled_from([node for node in _nodes(record) if node[0]]))
    spoiled = json.dumps(_replace(record, path, _SENTINEL)).replace(json.dumps(_SENTINEL), literal)
    [problem] = _read_spoiled(tmp_path_factory.mktemp("nonfinite"), reader, spoiled, where, lines)
    assert problem.field == _field(path)
    assert problem.message.startswith(f"invalid JSON: {literal} is ")


@pytest.mark.parametrize("reader", sorted(STRICT_READERS))
@settings(max_examples=40, deadline=None)
@given(data=st.data(), again=_finite_json_values, spacing=st.sampled_from([": ", ":", " : ", "\t:"]))
def test_a_key_repeated_in_any_object_is_refused_at_its_field(
    tmp_path_factory: pytest.TempPathFactory, reader: str, data: st.DataObject, again: object, spacing: str
) -> None:
    lines, where = data.draw(st.integers(1, 3).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n - 1))))
    record = STRICT_READERS[reader][1](where)
    objects = [(path, value) for path, value in _nodes(record) if isinstance(value, dict) and value]
    path, obj = data.draw(st.sampled_from(objects))
    key = data.draw(st.sampled_from(sorted(obj)))
    # The object written out with the key once more, before or after the original.
    pairs = [f"{json.dumps(k)}{spacing}{json.dumps(v)}" for k, v in obj.items()]
    pairs.insert(data.draw(st.integers(0, len(pairs))), f"{json.dumps(key)}{spacing}{json.dumps(again)}")
    spoiled = json.dumps(_replace(record, path, _SENTINEL)).replace(json.dumps(_SENTINEL), "{" + ", ".join(pairs) + "}")
    [problem] = _read_spoiled(tmp_path_factory.mktemp("repeated"), reader, spoiled, where, lines)
    assert problem.field == _field((*path, key))
    assert problem.message.startswith(f"invalid JSON: duplicate key {key!r} at column ")


_WRONG_SCORES = st.one_of(
    st.booleans(),
    st.integers(0, 2).map(str),
    st.floats(allow_infinity=False),
    st.integers().filter(lambda n: n not in (0, 1, 2)),
    st.integers(min_value=2**63, max_value=2**80),
)
_WRONG_FIELDS: dict[str, dict[str, st.SearchStrategy[Any]]] = {
    "labels": {
        "scores.faithfulness": _WRONG_SCORES,
        "revision": st.one_of(
            st.booleans(), st.integers(max_value=0), st.integers(min_value=2**63), st.just("2"), st.just(2.0)
        ),
        "seconds_spent": st.one_of(st.booleans(), st.floats(max_value=-0.001), st.just("1.5")),
        "flagged": st.one_of(st.integers(0, 1), st.just("true")),
        "reviewer": st.one_of(st.integers(), st.just("two words")),
    },
    "verdicts": {
        "scores.citation_correctness": _WRONG_SCORES,
        "judge.config_hash": st.one_of(st.integers(), st.booleans(), st.floats(allow_nan=False)),
        "judge.rubric_version": st.one_of(st.integers(), st.booleans()),
        "status": st.one_of(st.just("OK"), st.booleans(), st.integers()),
    },
}


@pytest.mark.parametrize("reader", sorted(_WRONG_FIELDS))
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_no_coercion_and_no_value_off_its_range_in_label_and_verdict_files(
    tmp_path_factory: pytest.TempPathFactory, reader: str, data: st.DataObject
) -> None:
    field = data.draw(st.sampled_from(sorted(_WRONG_FIELDS[reader])))
    value = data.draw(_WRONG_FIELDS[reader][field])
    record = STRICT_READERS[reader][1](1)
    spoiled = json.dumps(_replace(record, field.split("."), value))
    problems = _read_spoiled(tmp_path_factory.mktemp("coerced"), reader, spoiled, 1, 3)
    assert field in {p.field for p in problems}, problems


@settings(max_examples=40, deadline=None)
@given(
    rows=st.lists(
        st.tuples(st.sampled_from(["ana", "ben"]), st.sampled_from(["0", "1", "2", "", "NA"])), min_size=1, max_size=5
    ),
    data=st.data(),
)
def test_a_csv_row_of_the_wrong_width_is_refused_at_its_line(
    tmp_path_factory: pytest.TempPathFactory, rows: list[tuple[str, str]], data: st.DataObject
) -> None:
    bad = data.draw(st.integers(0, len(rows) - 1))
    width = data.draw(st.sampled_from([1, 2, 4, 5]))  # the header has 3 columns
    lines = [f"{who},i{k},{score}" for k, (who, score) in enumerate(rows)]
    lines[bad] = ",".join([*lines[bad].split(","), "x", "y"][:width])
    path = tmp_path_factory.mktemp("csv") / "theirs.csv"
    path.write_text("who,item,faithfulness\n" + "\n".join(lines) + "\n", encoding="utf-8")
    with Store.open(path.parent / "q.db") as store:
        with pytest.raises(InputError) as caught:
            import_labels(store, [path], RUBRIC, mapping=FieldMapping.parse(["reviewer=who,item_id=item"]))
        assert (bad + 2, "(line)") in {(p.line, p.field) for p in caught.value.problems}
        assert store.count("labels") == 0


_scales = st.lists(st.integers(-2, 5), min_size=2, max_size=4, unique=True).map(sorted)


@settings(max_examples=60, deadline=None)
@given(
    scale=_scales,
    given_scores=st.lists(
        st.dictionaries(st.sampled_from(["f", "g", "renamed"]), st.none() | st.integers(-3, 6), min_size=1),
        min_size=1,
        max_size=5,
    ),
)
def test_labels_that_no_longer_fit_their_rubric_version_are_refused_by_axis(
    tmp_path_factory: pytest.TempPathFactory, scale: list[int], given_scores: list[dict[str, int | None]]
) -> None:
    axes = tuple(Axis(name=name, scale=tuple(scale), anchors=tuple(map(str, scale))) for name in ("f", "g"))
    rubric = Rubric(version="1", axes=axes)
    misfits = {
        (line, f"scores.{axis}")
        for line, scores in enumerate(given_scores, start=1)
        for axis, value in scores.items()
        if axis == "renamed" or (value is not None and value not in scale)
    }
    path = tmp_path_factory.mktemp("rubric") / "ana.jsonl"
    lines = [_label(i) | {"scores": scores} for i, scores in enumerate(given_scores)]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    if not misfits:
        assert len(read_labels([path], rubric)) == len(lines)
        check_rubric_unchanged(given_scores, rubric, "store", "labels")
        return
    with pytest.raises(InputError) as caught:
        read_labels([path], rubric)
    assert {(p.line, p.field) for p in caught.value.problems} == misfits
    assert all("bump rubric.version" in p.message for p in caught.value.problems)
    with pytest.raises(UsageError, match=r"bump rubric\.version") as stored:
        check_rubric_unchanged(given_scores, rubric, "store", "labels")  # the same labels read from the store
    named = {field.removeprefix("scores.") for _, field in misfits}
    assert all(("'renamed'" if axis == "renamed" else f"give {axis} ") in str(stored.value) for axis in named)
