"""The README's trace examples import as the README says they do."""

from __future__ import annotations

import json
import re
from pathlib import Path

from qaeval_tui.core.curation.inbox import list_inbox
from qaeval_tui.core.curation.traces.importer import import_traces
from qaeval_tui.core.curation.traces.model import parse_conditions
from qaeval_tui.core.store.sqlite import Store
from tests.conftest import REPO

EXAMPLES = re.findall(r"```json\n(.*?)```", (REPO / "README.md").read_text(encoding="utf-8"), re.DOTALL)


def _example(marker: str) -> object:
    return json.loads(next(block for block in EXAMPLES if marker in block))


def test_each_example_gives_its_miss(tmp_path: Path) -> None:
    otlp = _example("gen_ai.input.messages")
    phoenix = {"resourceSpans": [{"resource": {}, "scopeSpans": [{"spans": _example('"CHAIN"')}]}]}
    langfuse = _example('"observations"')
    cases = [
        ("otlp", otlp, "user.feedback=negative", "5b8efff798038103d269b633813fc60c"),
        ("openinference", phoenix, "user.feedback=negative", "5b8efff798038103d269b633813fc60c"),
        ("langfuse", langfuse, "user-feedback=0", "lf-trace-0001"),
    ]
    for fmt, document, where, trace_id in cases:
        path = tmp_path / f"{fmt}.json"
        path.write_text(json.dumps(document), encoding="utf-8")
        with Store.open(tmp_path / f"{fmt}.db") as store:
            report = import_traces(store, path, fmt, parse_conditions([where]))
            assert report.stored.added == (trace_id,), fmt
            (entry,) = list_inbox(store)
        assert entry.miss.question == "Can the HB-10 go in a bedroom?" and entry.miss.answer == "Yes."
        assert [source.id for source in entry.miss.sources] == ["s2"]
