"""Every reader of user files: arbitrary bytes never escape as anything but the project's own errors.

The golden loader has its own property tests (test_golden_loader.py). These feed the other
readers files made of random bytes, JSON-ish lines, lone surrogate escapes, and nesting deeper
than Python's parser goes: each must load or raise a QaevalError (a located problem list or a
usage error), never a traceback. Two real crashes of this kind (a lone surrogate reaching SQLite,
deep nesting reaching json.loads) are why this file exists.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qaeval_tui.core.baseline import load_baseline
from qaeval_tui.core.config import Config
from qaeval_tui.core.drift import read_timeseries
from qaeval_tui.core.errors import InputError, QaevalError
from qaeval_tui.core.inbox import import_misses
from qaeval_tui.core.labels_foreign import FieldMapping
from qaeval_tui.core.labels_io import import_labels, read_labels, read_verdicts
from qaeval_tui.core.store import Store
from tests.curation_fixtures import make_miss

RUBRIC = Config().rubric

# A production miss valid in every field but one source text holding half a UTF-16 pair.
_MISS_WITH_SURROGATE = json.dumps(
    make_miss("tr-fuzz") | {"sources": [{"id": "s1", "title": "t", "text": "half \udc00 pair"}]}
).encode()
_KEYS = ["item_id", "case_id", "reviewer", "scores", "note", "trace_id", "question", "sources", "format", "x"]
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
