"""What a stored run holds, as view models: the listing, the case × check/metric table, one case.

Everything is read through the store's run API (`list_runs`, `get_run`, `run_outputs`, `verdicts`,
`case_json`); a run is named by its id, a unique prefix of it, or `latest` / `previous`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from qaeval_tui.core.batch import with_collector_paused
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.running.checks import CHECK_NAMES
from qaeval_tui.core.running.metrics import METRIC_NAMES
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.rows import RunOutput, RunRecord, VerdictRecord

HEADLINE_METRICS = (
    "deterministic_pass_rate",
    "faithfulness_rate",
    "answer_correctness",
    "citation_correctness",
    "abstention_recall",
    "over_refusal_rate",
)
"""The metrics a run listing shows (every metric is in `qaeval runs show --json`)."""
SHORT_NAMES = {
    "deterministic_pass_rate": "pass",
    "faithfulness_rate": "faith",
    "answer_correctness": "corr",
    "citation_correctness": "cite",
    "abstention_recall": "abst",
    "over_refusal_rate": "refus",
}
SLICE_KINDS = ("split", "difficulty", "adversarial")
CaseStatus = Literal["pass", "fail", "judge error"]


@dataclass(frozen=True)
class RunSummary:
    """One line of `qaeval runs`: what ran, on which suite, with which judge, when, and how it did."""

    run_id: str
    adapter: str
    judge: str
    judge_config_hash: str | None
    suite_hash: str
    started_at: str
    finished_at: str
    n_cases: int
    judge_errors: int
    metrics: dict[str, float | None]

    def to_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "adapter": self.adapter,
            "judge": self.judge,
            "judge_config_hash": self.judge_config_hash,
            "suite_hash": self.suite_hash,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "n_cases": self.n_cases,
            "judge_errors": self.judge_errors,
            "metrics": self.metrics,
        }


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def summary(run: RunRecord) -> RunSummary:
    overall = run.metrics.get("overall")
    overall = overall if isinstance(overall, dict) else {}
    metrics = {}
    for name in METRIC_NAMES:
        entry = overall.get(name)
        metrics[name] = _number(entry.get("value")) if isinstance(entry, dict) else None
    judge = run.data.get("judge")
    model = judge.get("model") if isinstance(judge, dict) else None
    name = run.judge_name or "none"
    errors = run.data.get("judge_errors")
    return RunSummary(
        run.run_id,
        run.adapter,
        f"{name}/{model}" if isinstance(model, str) and model else name,
        run.judge_config_hash,
        run.suite_hash,
        run.started_at,
        run.finished_at,
        run.n_cases,
        errors if isinstance(errors, int) and not isinstance(errors, bool) else 0,
        metrics,
    )


def list_runs(store: StoreBackend) -> list[RunSummary]:
    """Every stored run, newest first."""
    return [summary(run) for run in store.list_runs()]


def list_unfinished(store: StoreBackend) -> list[RunSummary]:
    """The runs cut short before their end (killed, crashed), newest first; `n_cases` is what each stored."""
    return [summary(run) for run in store.unfinished_runs()]


def resolve_run(store: StoreBackend, name: str) -> RunRecord:
    """The run `name` names: its id, a unique prefix of it, `latest` or `previous`; else a UsageError."""
    runs = store.list_runs()
    if name in ("latest", "previous"):
        index = 0 if name == "latest" else 1
        if len(runs) <= index:
            raise UsageError(f"{name}: the store holds {len(runs)} run(s); run `qaeval run` first")
        return runs[index]
    exact = [run for run in runs if run.run_id == name]
    if exact:
        return exact[0]
    found = [run for run in runs if run.run_id.startswith(name)] if name else []
    if len(found) == 1:
        return found[0]
    if found:
        shown = ", ".join(run.run_id for run in found[:5])
        raise UsageError(f"run {name!r} is ambiguous: it starts {len(found)} run ids ({shown}); give more of the id")
    raise UsageError(f"no run {name!r} in the store; `qaeval runs` lists them")


@dataclass(frozen=True)
class CaseRow:
    """One case of a run: its slice, pass/fail, each check, each metric value and the judge's scores."""

    position: int
    case_id: str
    item_id: str
    slices: dict[str, str]
    passed: bool
    failures: tuple[str, ...]
    checks: dict[str, str]
    """Check name -> pass, fail or skip."""
    values: dict[str, float | None]
    scores: dict[str, int | None]
    verdict_status: str
    """ok, error or skipped (no verdict stored: "missing")."""
    outcome: str | None
    judge_error: str | None

    @property
    def status(self) -> CaseStatus:
        if self.judge_error is not None and self.verdict_status == "error":
            return "judge error"
        return "pass" if self.passed else "fail"

    def to_json(self) -> dict[str, Any]:
        return {
            "position": self.position,
            "case_id": self.case_id,
            "item_id": self.item_id,
            **self.slices,
            "status": self.status,
            "passed": self.passed,
            "failures": list(self.failures),
            "checks": self.checks,
            "values": self.values,
            "judge": {
                "status": self.verdict_status,
                "outcome": self.outcome,
                "scores": self.scores,
                "error": self.judge_error,
            },
        }


@dataclass(frozen=True)
class CaseFilter:
    """Which rows of a run's table to show: a slice (`kind=value`), failing cases (or failing one check),
    judge errors; every filter given must hold."""

    slice: tuple[str, str] | None = None
    failing: bool = False
    check: str | None = None
    judge_errors: bool = False

    def keeps(self, row: CaseRow) -> bool:
        if self.slice is not None and row.slices.get(self.slice[0]) != self.slice[1]:
            return False
        if self.failing and row.passed:
            return False
        if self.check is not None and row.checks.get(self.check) != "fail":
            return False
        return not (self.judge_errors and row.verdict_status not in ("error", "missing"))

    def words(self) -> str:
        parts = []
        if self.slice is not None:
            parts.append(f"{self.slice[0]}={self.slice[1]}")
        if self.failing:
            parts.append("failing")
        if self.check is not None:
            parts.append(f"failing {self.check}")
        if self.judge_errors:
            parts.append("judge errors")
        return ", ".join(parts) or "every case"


def parse_slice(text: str) -> tuple[str, str]:
    """`kind=value` (kind: split, difficulty or adversarial) as a pair; else a UsageError."""
    kind, sep, value = text.partition("=")
    if not sep or kind not in SLICE_KINDS or not value:
        raise UsageError(f"--slice {text!r}: write KIND=VALUE with KIND one of {', '.join(SLICE_KINDS)}")
    return kind, value


def check_names(name: str | None) -> None:
    if name is not None and name not in CHECK_NAMES:
        raise UsageError(f"--check {name!r}: no such check; known: {', '.join(CHECK_NAMES)}")


def _verdicts_by_item(verdicts: Sequence[VerdictRecord]) -> dict[str, VerdictRecord]:
    return {verdict.item_id: verdict for verdict in verdicts}  # the latest stored for an item wins


def case_row(output: RunOutput, verdict: VerdictRecord | None) -> CaseRow:
    result = output.result
    checks = {
        str(check.get("name")): str(check.get("status"))
        for check in result.get("checks") or ()
        if isinstance(check, dict)
    }
    values_raw = result.get("values")
    values = {name: _number(value) for name, value in (values_raw.items() if isinstance(values_raw, dict) else ())}
    slices = {kind: str(result.get(kind) or "none") for kind in SLICE_KINDS}
    failures = tuple(str(f) for f in result.get("failures") or ())
    scores: dict[str, int | None] = {}
    outcome: str | None = None
    error: str | None = "no judge verdict stored for this case"
    status = "missing"
    if verdict is not None:
        scores = dict(verdict.verdict.scores)
        status, outcome = verdict.verdict.status, verdict.verdict.outcome
        error = verdict.verdict.error or ("the judge failed" if status == "error" else None)
        if status == "skipped":
            error = f"not judged: {verdict.verdict.reason or 'checks-only run'}"
    return CaseRow(
        output.position,
        output.case_id,
        str(result.get("item_id") or ""),
        slices,
        bool(result.get("passed")),
        failures,
        checks,
        values,
        scores,
        status,
        outcome,
        error,
    )


def status_counts(rows: Sequence[CaseRow]) -> dict[str, int]:
    """How many of `rows` pass, fail and hit a judge error."""
    counts = {"pass": 0, "fail": 0, "judge error": 0}
    for row in rows:
        counts[row.status] += 1
    return counts


@dataclass(frozen=True)
class RunTable:
    """A run's cases (those the filter keeps), with its summary and every check and metric column."""

    run: RunSummary
    rows: tuple[CaseRow, ...]
    total: int
    criteria: CaseFilter
    axes: tuple[str, ...]
    slice_values: dict[str, tuple[str, ...]]
    """Every value each slice kind takes in the run (for a filter to cycle through)."""

    @property
    def counts(self) -> dict[str, int]:
        return status_counts(self.rows)

    def to_json(self) -> dict[str, Any]:
        return {
            "run": self.run.to_json(),
            "filter": self.criteria.words(),
            "total": self.total,
            "shown": len(self.rows),
            "counts": self.counts,
            "cases": [row.to_json() for row in self.rows],
        }


def all_rows(store: StoreBackend, run: RunRecord, outputs: Sequence[RunOutput] | None = None) -> list[CaseRow]:
    """Every case of `run` as a row (`outputs`: the run's outputs when the caller has read them already)."""
    verdicts = _verdicts_by_item(store.verdicts(run_id=run.run_id))
    rows = []
    for output in store.run_outputs(run.run_id) if outputs is None else outputs:
        item_id = str(output.result.get("item_id") or "")
        rows.append(case_row(output, verdicts.get(item_id)))
    return rows


@with_collector_paused  # a batch step over every case of the run: see core/batch.py
def run_table(store: StoreBackend, name: str, criteria: CaseFilter = CaseFilter()) -> RunTable:
    """The run `name` (see `resolve_run`) as a case × check/metric table, filtered by `criteria`."""
    check_names(criteria.check)
    run = resolve_run(store, name)
    rows = all_rows(store, run)
    axes = tuple(dict.fromkeys(axis for row in rows for axis in row.scores))
    slice_values = {kind: tuple(sorted({row.slices[kind] for row in rows})) for kind in SLICE_KINDS}
    return RunTable(
        summary(run), tuple(row for row in rows if criteria.keeps(row)), len(rows), criteria, axes, slice_values
    )


@dataclass(frozen=True)
class Source:
    id: str
    title: str
    text: str
    retrieved_rank: int | None
    """1-based rank among what the system retrieved, or None: in the case but not retrieved."""
    cited: bool
    gold: bool


@dataclass(frozen=True)
class CheckLine:
    name: str
    status: str
    detail: str


@dataclass(frozen=True)
class AxisVerdict:
    axis: str
    score: int | None
    evidence: str


@dataclass(frozen=True)
class CaseDetail:
    """One case of a run: the question, the system's answer and citations, the sources it retrieved,
    each check with its reason, and the judge's verdict with its evidence."""

    run_id: str
    row: CaseRow
    question: str
    expected_behavior: str
    gold_answer: str | None
    answer: str
    abstained: bool
    adapter_error: str | None
    citations: tuple[dict[str, str], ...]
    sources: tuple[Source, ...]
    checks: tuple[CheckLine, ...]
    verdict: tuple[AxisVerdict, ...]
    judge_reason: str | None
    trajectory: dict[str, Any] | None

    def to_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            **self.row.to_json(),
            "question": self.question,
            "expected_behavior": self.expected_behavior,
            "gold_answer": self.gold_answer,
            "answer": self.answer,
            "abstained": self.abstained,
            "adapter_error": self.adapter_error,
            "citations": list(self.citations),
            "sources": [
                {"id": s.id, "title": s.title, "text": s.text, "retrieved_rank": s.retrieved_rank, "cited": s.cited}
                for s in self.sources
            ],
            "check_reasons": [{"name": c.name, "status": c.status, "detail": c.detail} for c in self.checks],
            "evidence": {v.axis: v.evidence for v in self.verdict},
            "judge_reason": self.judge_reason,
            "trajectory": self.trajectory,
        }


def _text(mapping: Mapping[str, Any], key: str) -> str:
    value = mapping.get(key)
    return value if isinstance(value, str) else ""


def case_detail(store: StoreBackend, name: str, case_id: str, *, viewer: str | None = None) -> CaseDetail:
    """One case of the run `name`. Built for a named `viewer`, it records their exposure to the item
    (the case id, the judge verdict and the system) when the item is in their own queue (DESIGN §4)."""
    run = resolve_run(store, name)
    outputs = [output for output in store.run_outputs(run.run_id) if output.case_id == case_id]
    if not outputs:
        raise UsageError(f"no case {case_id!r} in run {run.run_id}")
    output = outputs[0]
    item_id = str(output.result.get("item_id") or "")
    verdicts = [v for v in store.verdicts(run_id=run.run_id) if v.item_id == item_id]
    verdict = verdicts[-1] if verdicts else None
    row = case_row(output, verdict)
    case = store.case_json(output.case_hash) or {}
    if viewer and item_id:
        store.record_exposure(viewer, [item_id], "run browser", "the case id, the judge verdict and the system")
    sut = output.output
    retrieved = [str(i) for i in sut.get("retrieved_ids") or ()]
    citations = tuple(
        {key: str(citation.get(key) or "") for key in ("source_id", "quote", "claim")}
        for citation in sut.get("citations") or ()
        if isinstance(citation, dict)
    )
    cited = {c["source_id"] for c in citations}
    gold = {str(i) for i in case.get("gold_source_ids") or ()}
    sources = []
    for source in case.get("sources") or ():
        if not isinstance(source, dict):
            continue
        source_id = _text(source, "id")
        rank = retrieved.index(source_id) + 1 if source_id in retrieved else None
        sources.append(
            Source(
                source_id, _text(source, "title"), _text(source, "text"), rank, source_id in cited, source_id in gold
            )
        )
    sources.sort(key=lambda s: (s.retrieved_rank is None, s.retrieved_rank or 0, s.id))
    checks = tuple(
        CheckLine(str(c.get("name")), str(c.get("status")), str(c.get("detail") or ""))
        for c in output.result.get("checks") or ()
        if isinstance(c, dict)
    )
    axes = (
        tuple(AxisVerdict(axis, score, verdict.verdict.evidence.get(axis, "")) for axis, score in row.scores.items())
        if verdict
        else ()
    )
    trajectory = output.result.get("trajectory")
    gold_answer = case.get("gold_answer")
    error = sut.get("error")
    return CaseDetail(
        run.run_id,
        row,
        _text(case, "question"),
        _text(case, "expected_behavior"),
        gold_answer if isinstance(gold_answer, str) else None,
        _text(sut, "answer"),
        bool(sut.get("abstained")),
        error if isinstance(error, str) and error else None,
        citations,
        tuple(sources),
        checks,
        axes,
        (verdict.verdict.reason or verdict.verdict.error) if verdict else row.judge_error,
        trajectory if isinstance(trajectory, dict) else None,
    )
