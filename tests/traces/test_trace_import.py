"""`qaeval inbox import --format otlp|openinference|langfuse`: misses from exports the real libraries wrote."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from qaeval_tui.cli.main import app
from tests.curation_fixtures import demo_copy
from tests.traces.exports import (
    ANSWER,
    DOCS,
    QUESTION,
    Recorder,
    genai_trace,
    health_check,
    langfuse_trace,
    openinference_trace,
    otlp_json,
    write,
)

runner = CliRunner()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return demo_copy(tmp_path)


def qaeval(root: Path, *args: str) -> Result:
    return runner.invoke(app, ["--config", str(root / "qaeval.toml"), *args])


def inbox(root: Path) -> dict[str, dict[str, object]]:
    result = qaeval(root, "inbox", "list", "--json")
    assert result.exit_code == 0, result.output
    return {row["trace_id"]: row for row in json.loads(result.stdout)}


def expected_sources() -> list[dict[str, str]]:
    return [{"id": i, "title": title, "text": text} for i, title, text in DOCS]


@pytest.mark.parametrize("style", ["messages", "details", "flat", "events", "choice"])
@pytest.mark.parametrize("hex_ids", [True, False])
def test_a_genai_trace_with_negative_feedback_becomes_a_miss_with_provenance(
    root: Path, style: str, hex_ids: bool
) -> None:
    rec = Recorder()
    miss_trace = genai_trace(rec, style=style, citations=[{"source_id": "s1", "quote": "rated IP65"}])
    liked = genai_trace(rec, feedback="positive", style=style)
    health = health_check(rec)
    export = write(root / "traces.json", otlp_json(rec.spans(), hex_ids=hex_ids))

    result = qaeval(root, "inbox", "import", str(export), "--format", "otlp", "--where", "user.feedback=negative")

    assert result.exit_code == 0, result.output
    assert "imported 1 new production miss(es)" in result.stdout
    assert "3 trace(s) read: 2 not selected by --where" in result.stdout
    entries = inbox(root)
    assert liked not in entries and health not in entries
    miss = entries[miss_trace]
    assert miss["question"] == QUESTION and miss["answer"] == ANSWER
    assert miss["sources"] == expected_sources()
    assert miss["citations"] == [{"source_id": "s1", "quote": "rated IP65"}]
    assert miss["reason"] == "selected by user.feedback=negative"
    assert miss["reporter"] == "support-bot"
    provenance = miss["provenance"]
    assert isinstance(provenance, dict)
    chat = next(s for s in rec.spans() if s.name.startswith("chat"))
    assert provenance == {
        "origin": "otlp",
        "trace_id": miss_trace,
        "span_id": format(chat.context.span_id, "016x"),
        "service": "support-bot",
        "time": miss["reported_at"],
    }
    assert str(provenance["time"]).startswith("2026-09-21T14:13:2")


def test_reimporting_the_same_export_changes_nothing(root: Path) -> None:
    rec = Recorder()
    trace = genai_trace(rec)
    export = write(root / "traces.json", otlp_json(rec.spans()))
    assert qaeval(root, "inbox", "import", str(export), "--format", "otlp").exit_code == 0
    before = inbox(root)[trace]
    again = qaeval(root, "inbox", "import", str(export), "--format", "otlp")
    assert again.exit_code == 0
    assert "imported 0 new production miss(es)" in again.stdout and "1 already in the inbox" in again.stdout
    assert inbox(root)[trace] == before


def test_an_openinference_chain_and_its_retriever_combine_into_one_case(root: Path) -> None:
    rec = Recorder(seed=11)
    plain = openinference_trace(rec)
    as_json = openinference_trace(rec, json_input=True, question="Where may the HB-10 go?")
    export = write(root / "phoenix.json", otlp_json(rec.spans()))

    result = qaeval(root, "inbox", "import", str(export), "--format", "openinference")

    assert result.exit_code == 0, result.output
    entries = inbox(root)
    assert entries[plain]["question"] == QUESTION  # the CHAIN root's input, not the LLM's prompt
    assert entries[as_json]["question"] == "Where may the HB-10 go?"
    assert entries[plain]["answer"] == ANSWER
    assert entries[plain]["sources"] == expected_sources()
    root_span = next(s for s in rec.spans() if s.name == "rag" and format(s.context.trace_id, "032x") == plain)
    provenance = entries[plain]["provenance"]
    assert isinstance(provenance, dict)
    assert provenance["origin"] == "openinference"
    assert provenance["span_id"] == format(root_span.context.span_id, "016x")


def test_an_incomplete_span_is_listed_and_nothing_is_imported(root: Path) -> None:
    rec = Recorder(seed=3)
    good = openinference_trace(rec)
    genai_trace(rec)  # no OpenInference span: only counted
    openinference_trace(rec, docs=[("s1", "Manual", "text"), ("s2", "Guide", None)])
    export = write(root / "traces.json", otlp_json(rec.spans()))

    result = qaeval(root, "inbox", "import", str(export), "--format", "openinference")

    assert result.exit_code == 1
    retriever = [s for s in rec.spans() if s.name == "retrieve"][-1]
    span_id = format(retriever.context.span_id, "016x")
    assert f"{export}:{span_id}: retrieval.documents.1.document.content: document 's2' has no text" in result.stderr
    assert "nothing was changed" in result.stderr and "Traceback" not in result.output
    assert good not in inbox(root)  # all or nothing


def test_skip_incomplete_imports_the_rest_and_counts_what_it_left(root: Path) -> None:
    rec = Recorder(seed=5)
    good = openinference_trace(rec)
    bad = openinference_trace(rec, question="   ")
    export = write(root / "traces.json", otlp_json(rec.spans()))

    result = qaeval(root, "inbox", "import", str(export), "--format", "openinference", "--skip-incomplete")

    assert result.exit_code == 0, result.output
    assert "1 skipped as incomplete" in result.stdout
    assert f"skipped (incomplete): {bad}" in result.stderr
    assert good in inbox(root) and bad not in inbox(root)


def test_a_selected_trace_without_an_answering_span_is_an_error(root: Path) -> None:
    rec = Recorder(seed=9)
    with rec.span("GET /ask", {"user.feedback": "negative"}) as span:
        trace = format(span.get_span_context().trace_id, "032x")
    export = write(root / "traces.json", otlp_json(rec.spans()))
    result = qaeval(root, "inbox", "import", str(export), "--format", "otlp", "--where", "user.feedback=negative")
    assert result.exit_code == 1
    assert f"{export}:{trace}: (trace): selected by --where, but no span records a question" in result.stderr


def test_where_reads_resource_attributes_and_numbers_by_value(root: Path) -> None:
    rec = Recorder(service="billing-bot", seed=13)
    trace = genai_trace(rec, feedback=None)
    export = write(root / "traces.json", otlp_json(rec.spans()))
    none = qaeval(root, "inbox", "import", str(export), "--format", "otlp", "--where", "service.name=support-bot")
    assert none.exit_code == 0 and "imported 0 new" in none.stdout
    some = qaeval(root, "inbox", "import", str(export), "--format", "otlp", "--where", "service.name=billing-bot")
    assert some.exit_code == 0 and trace in inbox(root)


def test_a_langfuse_export_selected_by_score(root: Path) -> None:
    miss = langfuse_trace("lf-trace-0001", feedback=0, citations=["s2"])
    liked = langfuse_trace("lf-trace-0002", feedback=1)
    export = write(root / "langfuse.json", json.dumps({"data": [miss, liked], "meta": {"page": 1}}))

    result = qaeval(root, "inbox", "import", str(export), "--format", "langfuse", "--where", "user-feedback=0")

    assert result.exit_code == 0, result.output
    entries = inbox(root)
    assert set(entries) - {t for t in entries if t.startswith("tr-")} == {"lf-trace-0001"}
    got = entries["lf-trace-0001"]
    assert got["question"] == QUESTION and got["answer"] == ANSWER
    assert got["sources"] == expected_sources()
    assert got["citations"] == [{"source_id": "s2", "quote": None}]
    assert got["provenance"] == {
        "origin": "langfuse",
        "trace_id": "lf-trace-0001",
        "span_id": "lf-trace-0001-root",
        "service": "support-bot",
        "time": "2026-09-21T14:13:20.010Z",
    }


def test_langfuse_where_reads_metadata_and_trace_fields(root: Path) -> None:
    export = write(root / "langfuse.jsonl", json.dumps(langfuse_trace("lf-a")) + "\n")
    assert "imported 0 new" in qaeval(root, "inbox", "import", str(export), "--format", "langfuse",
                                      "--where", "channel=email").stdout  # fmt: skip
    result = qaeval(root, "inbox", "import", str(export), "--format", "langfuse",
                    "--where", "channel=web", "--where", "tags=production")  # fmt: skip
    assert result.exit_code == 0 and "lf-a" in inbox(root)


def test_a_langfuse_list_page_without_observation_bodies_is_refused(root: Path) -> None:
    trace = langfuse_trace("lf-ids-only")
    trace["observations"] = ["o1", "o2"]
    export = write(root / "langfuse.json", json.dumps([trace]))
    result = qaeval(root, "inbox", "import", str(export), "--format", "langfuse")
    assert result.exit_code == 1
    assert f"{export}:lf-ids-only: observations: must be a list of observation objects" in result.stderr


def test_a_langfuse_document_without_id_is_located_at_its_retriever(root: Path) -> None:
    export = write(root / "langfuse.json", json.dumps(langfuse_trace("lf-b", docs=[{"content": "x"}])))
    result = qaeval(root, "inbox", "import", str(export), "--format", "langfuse")
    assert result.exit_code == 1
    assert f"{export}:lf-b-ret: output.documents[0].id: missing or empty" in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--format", "zipkin"], "--format: must be one of jsonl, otlp, openinference, langfuse"),
        (["--format", "otlp", "--where", "feedback"], "--where: 'feedback' is not KEY=VALUE"),
        (["--where", "a=b"], "--where, --skip-incomplete and --reason apply to trace exports"),
    ],
)
def test_usage_mistakes_exit_2(root: Path, args: list[str], message: str) -> None:
    export = write(root / "traces.json", "{}")
    result = qaeval(root, "inbox", "import", str(export), *args)
    assert result.exit_code == 2
    assert message in result.stderr


def test_a_file_that_is_not_json_is_located_by_line(root: Path) -> None:
    export = write(root / "traces.jsonl", '{"resourceSpans": []}\nnot json\n')
    result = qaeval(root, "inbox", "import", str(export), "--format", "otlp")
    assert result.exit_code == 1
    assert f"{export}:2: (line): invalid JSON" in result.stderr


def test_a_trace_miss_is_promoted_with_its_trace_id(root: Path) -> None:
    rec = Recorder(seed=21)
    trace = genai_trace(rec)
    export = write(root / "traces.json", otlp_json(rec.spans(), hex_ids=True))
    assert qaeval(root, "inbox", "import", str(export), "--format", "otlp").exit_code == 0
    result = qaeval(
        root, "promote", trace, "--id", "install-bedroom-otlp", "--gold-answer", "No: not in sleeping areas.",
        "--gold-source", "s2", "--curator", "Mara Okafor",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    living = (root / "golden" / "living.jsonl").read_text(encoding="utf-8").splitlines()
    case = json.loads(living[-1])
    assert case["id"] == "install-bedroom-otlp" and case["provenance"]["trace_id"] == trace
    assert inbox(root)[trace]["status"] == "promoted"


def test_show_and_the_curator_app_say_which_trace_and_span_a_miss_came_from(root: Path) -> None:
    from qaeval_tui.core.curation.inbox import inbox_entry
    from qaeval_tui.core.store.sqlite import Store
    from qaeval_tui.tui.widgets.miss_view import miss_content

    rec = Recorder(seed=31)
    trace = genai_trace(rec)
    export = write(root / "traces.json", otlp_json(rec.spans()))
    assert qaeval(root, "inbox", "import", str(export), "--format", "otlp").exit_code == 0
    chat = next(s for s in rec.spans() if s.name.startswith("chat"))
    span_id = format(chat.context.span_id, "016x")
    shown = qaeval(root, "inbox", "show", trace)
    assert f"from:     otlp trace {trace} span {span_id} of support-bot at 2026-09-21T" in shown.stdout
    with Store.open(root / ".qaeval" / "qaeval.db") as store:
        entry = inbox_entry(store, trace)
    assert f"otlp trace {trace} span {span_id} of support-bot" in miss_content(entry).plain
