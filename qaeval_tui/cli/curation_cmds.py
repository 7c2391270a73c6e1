"""`qaeval inbox import|list|show`, `qaeval promote` and `qaeval reject`: curation without the TUI.

Exit codes (DESIGN §8.5): 0 done · 1 invalid input, nothing written (or a miss found already promoted
in the golden set: only that promotion is recorded) · 2 usage (unknown trace id, missing option,
unreadable file).
"""

from __future__ import annotations

from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from qaeval_tui.cli.common import config_from, guarded, open_store, print_json, stderr, stdout
from qaeval_tui.cli.options import AsJson, Curator, Db
from qaeval_tui.core.text import literal, one_line

if TYPE_CHECKING:
    from qaeval_tui.core.curation.inbox import InboxEntry
    from qaeval_tui.core.curation.promotion import CurationError
    from qaeval_tui.core.curation.traces.receiver import Received
    from qaeval_tui.core.golden.neardup import SimilarCase
    from qaeval_tui.core.usecases.inbox import InboxImport
    from qaeval_tui.core.usecases.promotion import PromotionOutcome

# The curation core is imported inside each command, so other commands do not pay for it.

inbox_app = typer.Typer(
    help="Production misses waiting for a curator: import, list, show.", no_args_is_help=True, rich_markup_mode=None
)

# Draft fields as the options that set them, so an error names what to retype.
_OPTION = {
    "trace_id": "TRACE_ID",
    "case_id": "--id",
    "question": "--question",
    "expected_behavior": "--behavior",
    "gold_answer": "--gold-answer",
    "gold_source_ids": "--gold-source",
    "difficulty": "--difficulty",
    "adversarial": "--tag",
    "checkpoints": "--checkpoint",
    "curator": "--curator",
    "reason": "--reason",
}


def _say(text: str) -> None:
    """A line of output to stdout, never wrapped or cut (it may hold a path or an id to copy)."""
    stdout.print(text, soft_wrap=True)


def _tell(text: str) -> None:
    """A diagnostic line to stderr, never wrapped or cut."""
    stderr.print(text, soft_wrap=True)


def _fail(exc: CurationError) -> typer.Exit:
    for error in exc.errors:
        where = _OPTION.get(error.field, error.field)
        if error.index is not None:
            where = f"{where} #{error.index + 1}"
        _tell(f"{exc.trace_id}: {where}: {literal(error.message)}")
    _tell(f"error: {len(exc.errors)} problem(s); {exc.written}")
    return typer.Exit(exc.exit_code)


def _warn_near_duplicates(similar: list[SimilarCase]) -> None:
    if not similar:
        return
    _tell("warning: the question is close to existing case(s); check it is not already covered:")
    for case in similar:
        _tell(f"  {case.case_id} ({case.score:.2f}): {one_line(case.question, 90)}")


InboxFile = Annotated[
    Path | None,
    typer.Argument(help="Production-miss JSONL or a trace export (default: the configured paths.inbox)."),
]
ImportFormat = Annotated[
    str,
    typer.Option("--format", help="jsonl (production-miss lines), otlp, openinference or langfuse (trace exports)."),
]
ImportWhere = Annotated[
    list[str],
    typer.Option("--where", help="KEY=VALUE a trace must carry to be imported (repeatable: all must hold)."),
]
SkipIncomplete = Annotated[
    bool,
    typer.Option("--skip-incomplete", help="Leave out (and count) traces lacking a question, answer or sources."),
]
Reason = Annotated[str | None, typer.Option("--reason", help="Why these traces are misses (default: the --where).")]


@guarded
def inbox_import(
    ctx: typer.Context,
    file: InboxFile = None,
    fmt: ImportFormat = "jsonl",
    where: ImportWhere = [],  # noqa: B006  # typer's default, never mutated
    skip_incomplete: SkipIncomplete = False,
    reason: Reason = None,
    db: Db = None,
) -> None:
    """Import production misses: all lines or none, idempotent by trace id.

    Exit 0 imported, 1 invalid (every problem listed as path:line: field: message, or for a trace
    export path:span-id: field: message), 2 usage.
    """
    from qaeval_tui.core.usecases.inbox import import_into_inbox, plan_inbox_import

    config = config_from(ctx)  # the request is checked before the store is opened
    request = plan_inbox_import(config, file, fmt, where, skip_incomplete=skip_incomplete, reason=reason)
    with open_store(ctx, db) as store:
        imported = import_into_inbox(store, request)
    _print_import(imported)


def _print_import(imported: InboxImport) -> None:
    report, traced = imported.stored, imported.traces
    _say(
        f"imported {len(report.added)} new production miss(es) from {report.path}; "
        f"{len(report.unchanged)} already in the inbox"
    )
    if traced is not None:
        _say(
            f"{traced.traces} trace(s) read: {traced.not_selected} not selected by --where, "
            f"{traced.without_case} without a question-answering span, {len(traced.skipped)} skipped as incomplete"
        )
        for trace_id in traced.skipped:
            _tell(f"skipped (incomplete): {trace_id}")


ReceivePort = Annotated[int, typer.Option("--port", min=0, max=65535, help="Port on 127.0.0.1 (0: any free one).")]
ReceiveFormat = Annotated[str, typer.Option("--format", help="otlp (GenAI conventions) or openinference.")]
ReceiveWhere = Annotated[
    list[str], typer.Option("--where", help="KEY=VALUE a trace must carry to be imported (repeatable).")
]
IdleExit = Annotated[
    float | None,
    typer.Option(
        "--idle-exit", min=0.0, help="Stop after this many seconds without a request (default: run until Ctrl-C)."
    ),
]


@guarded
def inbox_receive(
    ctx: typer.Context,
    port: ReceivePort = 4318,
    fmt: ReceiveFormat = "otlp",
    where: ReceiveWhere = [],  # noqa: B006  # typer's default, never mutated
    skip_incomplete: SkipIncomplete = False,
    reason: Reason = None,
    idle_exit: IdleExit = None,
    db: Db = None,
) -> None:
    """Receive OTLP/HTTP traces on loopback (POST /v1/traces) and import their misses as they come.

    Exit 0 stopped (Ctrl-C or --idle-exit), 2 usage (a port that cannot be had, an unknown format).
    """
    from qaeval_tui.core.curation.traces.conventions import genai_case, openinference_case
    from qaeval_tui.core.curation.traces.importer import Selection
    from qaeval_tui.core.curation.traces.model import parse_conditions
    from qaeval_tui.core.curation.traces.receiver import TraceReceiver, serve
    from qaeval_tui.core.errors import UsageError

    extractors = {"otlp": genai_case, "openinference": openinference_case}
    if fmt not in extractors:
        raise UsageError(f"--format: must be otlp or openinference, not {fmt!r}")
    selection = Selection(fmt, parse_conditions(where), skip_incomplete, reason)
    with open_store(ctx, db) as store:
        receiver = TraceReceiver(store, selection, extractors[fmt])
        with suppress(KeyboardInterrupt):  # a second Ctrl-C, while a request is in hand
            serve(
                receiver,
                port,
                on_ready=_listening,
                on_received=_received,
                on_trouble=lambda message: _tell(literal(message)),
                idle_exit=idle_exit,
            )
    if receiver.waiting():
        _tell(f"{receiver.waiting()} trace(s) still without their root span: not imported")
    _tell(f"stopped after {receiver.requests} request(s)")


def _listening(bound: int) -> None:
    from qaeval_tui.core.curation.traces.receiver import PATH

    _tell(f"listening on http://127.0.0.1:{bound}{PATH} (OTLP/HTTP, JSON or protobuf); Ctrl-C stops")


def _received(result: Received) -> None:
    for problem in result.problems:
        _tell(str(problem))
    if result.status != 200:
        _tell(f"refused ({result.status}): {literal(result.message)}")
    elif result.report is not None and (result.report.added or result.report.unchanged):
        added, unchanged = len(result.report.added), len(result.report.unchanged)
        _say(f"imported {added} new production miss(es) from {result.report.path}; {unchanged} already in the inbox")
    if result.chosen is not None:
        for trace_id in result.chosen.skipped:
            _tell(f"skipped (incomplete): {trace_id}")


@guarded
def inbox_list(
    ctx: typer.Context,
    status: str | None = typer.Option(None, "--status", help="pending, promoted or rejected."),
    search: str | None = typer.Option(
        None, "--search", help="Case-insensitive text in trace id, question, answer, reason."
    ),
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """List inbox entries, oldest report first. Exit 0, or 2 on a usage error."""
    from qaeval_tui.core.curation.inbox import entry_to_json, list_inbox, status_counts

    with open_store(ctx, db) as store:
        entries = list_inbox(store, status=status, search=search)
        everything = list_inbox(store)
    if as_json:
        print_json([entry_to_json(entry) for entry in entries])
        return
    if not everything:
        _say("the inbox is empty; import production misses with `qaeval inbox import FILE`")
        return
    for line in _inbox_lines(entries, stdout.width):
        _say(line)
    counts = "  ".join(f"{name}={count}" for name, count in status_counts(everything).items())
    _say(f"{len(entries)} of {len(everything)} entries ({counts})")


def _inbox_lines(entries: list[InboxEntry], width: int) -> list[str]:
    """One line per entry; only the question is cut, never the trace id or case id a command needs."""
    trace_width = max((len(entry.trace_id) for entry in entries), default=8)
    case_ids = [entry.decision.case_id if entry.decision and entry.decision.case_id else "-" for entry in entries]
    case_width = max((len(case_id) for case_id in case_ids), default=1) if any(c != "-" for c in case_ids) else 0
    columns = [f"{'trace id':<{trace_width}}", f"{'status':<8}", f"{'reported':<10}"]
    if case_width:
        columns.append(f"{'case':<{case_width}}")
    header = "  ".join(columns)
    room = max(width - len(header) - 2, 20)
    lines = [f"{header}  question"]
    for entry, case_id in zip(entries, case_ids, strict=True):
        cells = [f"{entry.trace_id:<{trace_width}}", f"{entry.status:<8}", f"{entry.miss.reported_at[:10]:<10}"]
        if case_width:
            cells.append(f"{case_id:<{case_width}}")
        lines.append("  ".join(cells) + "  " + one_line(entry.miss.question, room))
    return lines


@guarded
def inbox_show(
    ctx: typer.Context,
    trace_id: str = typer.Argument(..., help="Trace id of the miss."),
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """Show one miss in full: its sources (ids to pick gold sources from), answer, citations, status."""
    from qaeval_tui.core.curation.inbox import entry_to_json, inbox_entry

    with open_store(ctx, db) as store:
        entry = inbox_entry(store, trace_id)
    if as_json:
        print_json(entry_to_json(entry))
        return
    _print_entry(entry)


def _print_entry(entry: InboxEntry) -> None:
    miss = entry.miss
    _say(f"{miss.trace_id}  [{entry.status}]  reported {miss.reported_at} by {literal(miss.reporter)}")
    _say(f"question: {literal(miss.question)}")
    _say(f"answer:   {literal(miss.answer) or '(empty)'}")
    for citation in miss.citations:
        known = "" if citation.source_id in miss.source_ids() else "  (not one of its sources)"
        _say(f"  cites {citation.source_id}: {literal(citation.quote or '')}{known}")
    _say(f"why a miss: {literal(miss.reason)}")
    if miss.provenance is not None:
        _say(f"from:     {literal(miss.provenance.describe())}")
    _say(f"sources ({len(miss.sources)}):")
    for source in miss.sources:
        _say(f"  {source.id}  {literal(source.title or '')}")
        _say(f"      {literal(source.text)}")
    if entry.decision is not None:
        done = entry.decision
        target = f" as {done.case_id}" if done.case_id else ""
        _say(f"{done.decision}{target} by {literal(done.curator)} at {done.decided_at}: {literal(done.reason)}")


PromoteTrace = Annotated[str, typer.Argument(help="Trace id of the miss to promote.")]
CaseId = Annotated[str, typer.Option("--id", help="Id of the new golden case ([A-Za-z0-9._-]+, new to the set).")]
Question = Annotated[str | None, typer.Option("--question", help="Edited question (default: the miss's question).")]
Behavior = Annotated[str, typer.Option("--behavior", help="Expected behaviour: answer or abstain.")]
GoldAnswer = Annotated[
    str, typer.Option("--gold-answer", help="The gold answer (required to answer, absent to abstain).")
]
GoldSources = Annotated[
    list[str], typer.Option("--gold-source", help="A gold source id from the miss's sources (repeat).")
]
Difficulty = Annotated[str, typer.Option("--difficulty", help="single_hop, multi_hop or aggregation.")]
Tag = Annotated[str, typer.Option("--tag", help="Adversarial tag, e.g. time_sensitive, decoy, prompt_injection.")]
Checkpoints = Annotated[
    list[str],
    typer.Option(
        "--checkpoint", help="retrieve:SOURCE_ID or value:NAME=VALUE (repeat; needed for multi_hop/aggregation)."
    ),
]
PromoteReason = Annotated[str | None, typer.Option("--reason", help="Why it is promoted (default: the miss's reason).")]
PromoteDryRun = Annotated[bool, typer.Option("--dry-run", help="Validate and print the line; write nothing.")]


@guarded
def promote_cmd(
    ctx: typer.Context,
    trace_id: PromoteTrace,
    *,
    case_id: CaseId,
    question: Question = None,
    behavior: Behavior = "answer",
    gold_answer: GoldAnswer = "",
    gold_sources: GoldSources = [],  # noqa: B006  # typer's default, never mutated
    difficulty: Difficulty = "single_hop",
    tag: Tag = "",
    checkpoints: Checkpoints = [],  # noqa: B006  # typer's default, never mutated
    curator: Curator,
    reason: PromoteReason = None,
    dry_run: PromoteDryRun = False,
    db: Db = None,
) -> None:
    """Promote a production miss to a golden case in the living split, with provenance.

    Validation is the loader's; the id must be new and gold sources must be the miss's. The line is
    appended atomically and the golden set re-validated; on any failure nothing is written.
    Exit 0 promoted, 1 invalid (nothing written; a miss already in the golden set: that promotion
    is recorded), 2 usage.
    """
    from qaeval_tui.core.usecases.promotion import PromoteRequest, promote_miss

    config = config_from(ctx)
    request = PromoteRequest(
        trace_id=trace_id, case_id=case_id, curator=curator, question=question, expected_behavior=behavior,
        gold_answer=gold_answer, gold_source_ids=tuple(gold_sources), difficulty=difficulty, adversarial=tag,
        checkpoints=tuple(checkpoints), reason=reason,
    )  # fmt: skip
    with open_store(ctx, db) as store:
        outcome = promote_miss(config, store, request, dry_run=dry_run)
    _print_promotion(trace_id, outcome)


def _print_promotion(trace_id: str, outcome: PromotionOutcome) -> None:
    """The near duplicates, then the dry run's line, the promotion done, or the error as the exit."""
    from qaeval_tui.core.curation.promotion import CurationError

    _warn_near_duplicates(outcome.near_duplicates)
    if isinstance(outcome.error, CurationError):
        raise _fail(outcome.error) from outcome.error
    if outcome.error is not None:
        raise outcome.error
    if outcome.line is not None:
        _say(outcome.line)
        _tell("dry run: valid; nothing was written")
    if (result := outcome.result) is not None:
        _say(f"promoted {trace_id} as {result.case.id}: {result.loaded.path}:{result.loaded.line}")
        _say(f"golden set still valid: {len(result.golden.cases)} cases, suite hash {result.golden.suite_hash}")


@guarded
def reject_cmd(
    ctx: typer.Context,
    trace_id: str = typer.Argument(..., help="Trace id of the miss to reject."),
    *,
    reason: str = typer.Option(..., "--reason", help="Why this miss does not become a golden case."),
    curator: Curator,
    db: Db = None,
) -> None:
    """Reject a production miss with a reason (recorded once, never changed).

    Exit 0 rejected, 1 invalid (empty reason, already decided; nothing written; a miss already in
    the golden set: that promotion is recorded), 2 usage.
    """
    from qaeval_tui.core.curation.promotion import CurationError, GoldenTarget
    from qaeval_tui.core.curation.rejection import reject

    with open_store(ctx, db) as store:
        try:
            target = GoldenTarget.from_config(config_from(ctx))
            decision = reject(store, trace_id, reason=reason, curator=curator, target=target)
        except CurationError as exc:
            raise _fail(exc) from exc
    _say(f"rejected {trace_id} by {literal(decision.curator)} at {decision.decided_at}")


def register(app: typer.Typer) -> None:
    inbox_app.command("import")(inbox_import)
    inbox_app.command("receive")(inbox_receive)
    inbox_app.command("list")(inbox_list)
    inbox_app.command("show")(inbox_show)
    app.add_typer(inbox_app, name="inbox")
    app.command("promote")(promote_cmd)
    app.command("reject")(reject_cmd)
