"""A run's results, case by case and whole, and its versioned JSON artifact (`qaeval run --out`)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from qaeval_tui import __version__
from qaeval_tui.core.batch import collector_paused
from qaeval_tui.core.models.golden import LoadedCase
from qaeval_tui.core.models.run import JudgeConfig, JudgeVerdict, SUTOutput, TokenUsage
from qaeval_tui.core.running.checks import CheckResult
from qaeval_tui.core.running.judge import judge_descriptor
from qaeval_tui.core.running.metrics import Scoreboard
from qaeval_tui.core.running.trajectory import TrajectoryResult

RUN_FORMAT = "qaeval-run"
ARTIFACT_VERSION = 1
CODE_VERSION = f"qaeval_tui {__version__}"


@dataclass(frozen=True)
class SampleRecord:
    """One of a sampled case's k runs (`[run] samples`): its output's hash, item, values and failures."""

    sample: int
    output_hash: str
    item_id: str
    values: dict[str, float | None]
    failures: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "sample": self.sample,
            "output_hash": self.output_hash,
            "item_id": self.item_id,
            "values": self.values,
            "failures": list(self.failures),
        }


@dataclass(frozen=True, slots=True)
class CaseResult:
    """Everything measured for one case of a run. A sampled case (k > 1) shows one of its samples (the
    first that failed, else the first) and its `values` are the means over the samples (`samples`)."""

    position: int
    loaded: LoadedCase
    output: SUTOutput
    output_json: dict[str, Any]
    output_hash: str
    item_id: str
    checks: tuple[CheckResult, ...]
    verdict: JudgeVerdict
    trajectory: TrajectoryResult | None
    values: dict[str, float | None]
    failures: tuple[str, ...]
    seconds: float
    samples: tuple[SampleRecord, ...] = ()
    compacted: bool = False
    """Kept compact once stored (`compact`): its output, checks, trajectory and evidence are in the store."""

    @property
    def case_id(self) -> str:
        return self.loaded.case_id

    @property
    def passed(self) -> bool:
        return not self.failures

    @property
    def judge_error(self) -> str | None:
        """The judge's failure on this case (an error verdict), or None when it returned a verdict.

        A skipped verdict (checks-only run) counts too: its judge metrics are missing just the same,
        so the gate blocks on it and no baseline is written from it, never a pass by accident."""
        if self.verdict.status == "skipped":
            return f"not judged: {self.verdict.reason or 'checks-only run'}"
        if self.verdict.status != "error":
            return None
        return self.verdict.error or "the judge failed"

    def slice_keys(self) -> dict[str, str]:
        loaded = self.loaded
        return {"split": loaded.split, "difficulty": loaded.difficulty, "adversarial": loaded.adversarial or "none"}

    def result_json(self) -> dict[str, Any]:
        """What a run stores beside the raw output: checks, verdict, trajectory, values, pass/fail."""
        return {
            "item_id": self.item_id,
            "split": self.loaded.split,
            "difficulty": self.loaded.difficulty,
            "adversarial": self.loaded.adversarial,
            "expected_behavior": self.loaded.expected_behavior,
            "passed": self.passed,
            "failures": list(self.failures),
            "checks": [check.to_json() for check in self.checks],
            "trajectory": None if self.trajectory is None else self.trajectory.to_json(),
            "values": self.values,
            "verdict": self.verdict.to_json(),
            "seconds": round(self.seconds, 6),
            **({"samples": [sample.to_json() for sample in self.samples]} if self.samples else {}),
        }

    def compact(self) -> CaseResult:
        """What a run streamed to the store keeps of this case once it is written: what the gate, the
        scoreboard, the baseline and the console read (position, case, hashes, values, failures, the failed
        checks, the verdict's status, scores and error, the output's error). The output, every check, the
        trajectory and the verdict's evidence and attempts are read back from the store when wanted
        (`RunResult.stored_cases`; `expanded` rebuilds the case from its stored output)."""
        output = self.output
        kept = (
            _NO_ERROR
            if output.error is None and not output.abstained
            else SUTOutput(abstained=output.abstained, error=output.error)
        )
        return replace(
            self,
            loaded=self.loaded.released(),
            output=kept,
            output_json=_NOTHING,
            checks=tuple(check for check in self.checks if check.failed),
            verdict=_compact_verdict(self.verdict),
            trajectory=None,
            compacted=True,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "position": self.position,
            "case_id": self.case_id,
            "case_hash": self.loaded.content_hash,
            "output_hash": self.output_hash,
            "output": self.output_json,
            **self.result_json(),
        }


@dataclass(frozen=True)
class RunResult:
    """One run of a suite through one adapter and one judge."""

    run_id: str
    suite_hash: str
    adapter: str
    adapter_spec: str
    judge_spec: str
    judge_config: JudgeConfig
    rubric_version: str
    top_k: int
    workers: int
    started_at: str
    finished_at: str
    cases: tuple[CaseResult, ...]
    board: Scoreboard
    code_version: str = CODE_VERSION
    judge_calls: dict[str, Any] | None = None
    """What a model judge cost (calls, cached, errors, tokens, estimated cost); None when none was asked."""
    samples: int = 1
    """Runs of each case (`[run] samples`): per-case values are means over them."""
    stored_cases: Callable[[], Iterator[dict[str, Any]]] | None = field(default=None, compare=False, repr=False)
    """A run streamed to the store keeps its cases compact: its artifact's cases are read back from the
    store by this (the store must still be open); None when the run holds its cases whole."""

    @property
    def judge_errors(self) -> tuple[CaseResult, ...]:
        """The cases whose verdict is an error: their judge metrics are missing, never zero or skipped."""
        return tuple(result for result in self.cases if result.judge_error is not None)

    def header(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "suite_hash": self.suite_hash,
            "adapter": self.adapter,
            "adapter_spec": self.adapter_spec,
            "judge": judge_descriptor(self.judge_config),
            "judge_spec": self.judge_spec,
            "rubric_version": self.rubric_version,
            "top_k": self.top_k,
            "workers": self.workers,
            "code_version": self.code_version,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "n_cases": len(self.cases),
            "judge_errors": len(self.judge_errors),
            **({} if self.judge_calls is None else {"judge_calls": self.judge_calls}),
            **({"samples": self.samples} if self.samples > 1 else {}),
        }

    def artifact(self) -> dict[str, Any]:
        """The versioned JSON artifact of `qaeval run --out`."""
        with collector_paused():  # a batch step (core/batch.py): about a second of 10,000 cases otherwise
            return {
                "format": RUN_FORMAT,
                "version": ARTIFACT_VERSION,
                "run": self.header(),
                "metrics": self.board.to_json(),
                "cases": list(self.stored_cases())
                if self.stored_cases is not None
                else [result.to_json() for result in self.cases],
            }


_NO_ERROR = SUTOutput()
_NO_USAGE = TokenUsage()
_NOTHING: dict[str, Any] = {}
_NO_EVIDENCE: dict[str, str] = {}
_NO_ATTEMPTS: list[Any] = []
_ALL_FIELDS = set(JudgeVerdict.model_fields)
_JUDGES: dict[tuple[tuple[str, Any], ...], dict[str, Any]] = {}


def _compact_verdict(verdict: JudgeVerdict) -> JudgeVerdict:
    """The verdict without its evidence, attempts, stages and usage (kept in the store), built so that what
    every compact case shares (the judge's descriptor, the empty parts, the set of its fields) is one object
    for all of them, not a copy each: a compact case stays a few hundred bytes at any suite size. Nothing
    mutates a verdict (frozen)."""
    fields = dict(verdict.__dict__)
    fields["judge"] = _shared_judge(fields["judge"])
    fields.update(evidence=_NO_EVIDENCE, attempts=_NO_ATTEMPTS, stages=None, usage=_NO_USAGE)
    return JudgeVerdict.model_construct(_ALL_FIELDS, **fields)


def _shared_judge(judge: dict[str, Any]) -> dict[str, Any]:
    """One descriptor object for every verdict of the same judge (a run has one or two)."""
    try:
        key = tuple(judge.items())
        shared = _JUDGES.get(key)
    except TypeError:  # a setting that does not hash (a list): kept as it is
        return judge
    if shared is None and len(_JUDGES) < 64:
        shared = _JUDGES[key] = judge
    return judge if shared is None else shared


def dumps_document(document: dict[str, Any]) -> str:
    """JSON with the header indented and one compact line per case: diffs stay readable, 10k cases stay fast.

    NaN and infinities are refused (ValueError), never written: strict JSON parsers reject them.
    """
    parts = []
    for key, value in document.items():
        if key == "cases" and isinstance(value, list) and value:
            rows = ",\n".join("    " + json.dumps(row, ensure_ascii=False, allow_nan=False) for row in value)
            parts.append(f'  "cases": [\n{rows}\n  ]')
        else:
            text = json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False).replace("\n", "\n  ")
            parts.append(f"  {json.dumps(key)}: {text}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def write_json(path: str | Path, document: dict[str, Any]) -> None:
    """Write a JSON document through the one output writer: whole or not at all, never NaN (UsageError)."""
    from qaeval_tui.core.atomic_file import require_finite, write_output

    require_finite(document, str(path))
    write_output(Path(path), dumps_document(document))
