"""The content-addressed verdict cache as a judge wrapper, and the tally of what a run's judge did.

`CachedJudge` wraps any judge: before asking it, it looks up the key (judge config hash, case
content hash, system output hash) among the entries loaded from the store before the run; a hit
is the cached result and no call. A fresh valid result that cost a call (`JudgeResult.call` set:
a model was asked) is kept for the store, written in batches while the run goes on (by the thread
that reports progress); an error is never cached, so it is asked again next time. Judge calls touch
only memory, never the store.

`JudgeTally` counts, thread-safely, what the progress line and the run's totals show: calls done
and in flight, cached results, errors, tokens, and the cost the optional `[judge.pricing]` puts on
them (cached results cost nothing).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from qaeval_tui.core.golden.loader import case_content_hash
from qaeval_tui.core.hashing import content_hash
from qaeval_tui.core.models.golden import GoldenCase
from qaeval_tui.core.models.run import JudgeConfig, SUTOutput
from qaeval_tui.core.rubric import Rubric
from qaeval_tui.core.running.judge import (
    SAMPLE,
    JudgeCall,
    JudgeClient,
    JudgeFailure,
    JudgeResult,
    ask,
    known_hashes,
    validate_result,
)
from qaeval_tui.core.store.backend import StoreBackend
from qaeval_tui.core.store.judge_cache import CachedJudgement
from qaeval_tui.core.text import one_line

Key = tuple[str, str]
"""(case content hash, system output hash, with "#sample-N" from a case's second sample on), under one judge
config hash."""


@dataclass(frozen=True)
class Pricing:
    """Price per million input and output tokens (`[judge.pricing]`), in `currency`."""

    input_per_million: float
    output_per_million: float
    currency: str = "USD"


_COUNTS = ("calls", "in_flight", "cached", "errors", "input_tokens", "output_tokens", "unknown_usage")
"""The counts of a `JudgeTally` a worker process reports to the run's parent."""


@dataclass
class JudgeTally:
    """What the run's judge did so far; every count changes under one lock (judge calls run on threads)."""

    calls: int = 0
    in_flight: int = 0
    cached: int = 0
    errors: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    unknown_usage: int = 0
    """Calls whose token usage the provider did not report: the totals are then a lower bound."""
    asked_model: bool = False
    """A result came from a model call (or from the cache of one): the run reports these totals."""
    pricing: Pricing | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def started(self) -> None:
        with self._lock:
            self.in_flight += 1

    def finished(self, call: JudgeCall | None, *, failed: bool) -> None:
        with self._lock:
            self.in_flight -= 1
            self.calls += 1
            self.errors += failed
            if call is None or call.input_tokens is None or call.output_tokens is None:
                self.unknown_usage += call is not None
            if call is not None:
                self.asked_model = True
                self.input_tokens += call.input_tokens or 0
                self.output_tokens += call.output_tokens or 0

    def hit(self) -> None:
        with self._lock:
            self.cached += 1
            self.asked_model = True

    def after_fork(self) -> None:
        """In a just-forked worker process: a lock of its own (another thread may have held the parent's)."""
        self._lock = threading.Lock()

    def counts(self) -> dict[str, int]:
        """The counts so far (a worker process's, reported to the run's parent as they change)."""
        with self._lock:
            return {name: getattr(self, name) for name in _COUNTS}

    def add_counts(self, counts: dict[str, int], *, asked_model: bool) -> None:
        """A worker process's counts since its last report, added to this (the parent's) tally."""
        with self._lock:
            for name in _COUNTS:
                setattr(self, name, getattr(self, name) + counts.get(name, 0))
            self.asked_model = self.asked_model or asked_model

    @property
    def cost(self) -> float | None:
        """Estimated cost of the tokens counted, or None without a pricing table."""
        if self.pricing is None:
            return None
        return round(
            (self.input_tokens * self.pricing.input_per_million + self.output_tokens * self.pricing.output_per_million)
            / 1_000_000,
            6,
        )

    def line(self) -> str:
        """One line for the progress display: calls, in flight, cached, errors, tokens, cost."""
        with self._lock:
            text = (
                f"judge: {self.calls} calls, {self.in_flight} in flight, {self.cached} cached, {self.errors} errors, "
                f"{self.input_tokens + self.output_tokens} tokens"
            )
        cost = self.cost
        if cost is not None and self.pricing is not None:
            text += f", ~{cost:.4f} {one_line(self.pricing.currency)}"  # from the config: shown, never sent
        return text

    def to_json(self) -> dict[str, Any]:
        """The totals a run artifact records (`run.judge_calls`)."""
        with self._lock:
            return {
                "calls": self.calls,
                "cached": self.cached,
                "errors": self.errors,
                "input_tokens": self.input_tokens,
                "output_tokens": self.output_tokens,
                "calls_without_usage": self.unknown_usage,
                "estimated_cost": self.cost,
                "currency": None if self.pricing is None else self.pricing.currency,
            }


def result_document(result: JudgeResult) -> dict[str, Any]:
    """A valid judge result as the cache stores it (what it scored and what the call that made it cost)."""
    call = result.call
    return {
        "scores": dict(result.scores),
        "evidence": dict(result.evidence),
        "abstained": result.abstained,
        "reason": result.reason,
        "requested_model": None if call is None else call.requested_model,
        "returned_model": None if call is None else call.returned_model,
        "stages": list(result.stages),
    }


def result_from_document(document: Mapping[str, Any]) -> JudgeResult | None:
    """The cached result, or None for an entry this version cannot read (then the judge is asked again)."""
    try:
        scores = {str(axis): _score(value) for axis, value in document["scores"].items()}
        evidence = {str(axis): span for axis, span in document["evidence"].items()}
        reason = document.get("reason")
        if not all(isinstance(span, str) for span in evidence.values()) or not isinstance(reason, str | None):
            return None
        call = JudgeCall(requested_model=document.get("requested_model"), returned_model=document.get("returned_model"))
        return JudgeResult(
            scores,
            evidence,
            abstained=document.get("abstained") is True,
            reason=None if reason is None else str(reason),
            call=call,  # no attempts and no tokens: this run asked nobody
            stages=tuple(dict(stage) for stage in document.get("stages", [])),
        )
    except (KeyError, AttributeError, TypeError, ValueError):
        return None


def _score(value: object) -> int | None:
    """A cached score as written: a whole number or None; anything else (1.5, true, "2") is no entry of ours."""
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise ValueError(f"a cached score {value!r} is no whole number")


class VerdictCache:
    """The cache entries of one judge config, read before a run; the new ones, written after it."""

    def __init__(self, config_hash: str, entries: Mapping[Key, Mapping[str, Any] | str] | None = None) -> None:
        """`entries`: each key's result document, or its JSON text (parsed when the key is asked)."""
        self.config_hash = config_hash
        self._entries: dict[Key, Mapping[str, Any] | str] = dict(entries or {})
        self._new: dict[Key, dict[str, Any]] = {}
        self._lock = threading.Lock()

    @classmethod
    def load(cls, store: StoreBackend, config_hash: str, *, fresh: bool = False) -> VerdictCache:
        """The store's entries for `config_hash`; none with `fresh` (`--no-cache`: every case is asked again)."""
        if fresh:
            return cls(config_hash)
        # Held as the stored text, each parsed on a hit: a parsed entry is about three times its text, and a
        # rerun of 100,000 cases would hold every one for the whole run.
        entries = {(case, output): text for case, output, text in store.cached_judgement_texts(config_hash)}
        return cls(config_hash, entries)

    @property
    def empty(self) -> bool:
        return not self._entries

    def get(self, key: Key) -> JudgeResult | None:
        document = self._entries.get(key)
        if document is None:
            return None
        return result_from_document(json.loads(document) if isinstance(document, str) else document)

    def put(self, key: Key, result: JudgeResult) -> None:
        with self._lock:
            self._new[key] = result_document(result)

    def after_fork(self) -> None:
        """In a just-forked worker process: a lock of its own (another thread may have held the parent's)."""
        self._lock = threading.Lock()

    def take_new(self) -> dict[Key, dict[str, Any]]:
        """The new results not yet handed on, handed over (a worker process's, to the run's parent)."""
        with self._lock:
            taken, self._new = self._new, {}
        return taken

    def add_new(self, entries: Mapping[Key, dict[str, Any]]) -> None:
        """New results a worker process paid for, written with this cache's next `save`."""
        with self._lock:
            self._new.update(entries)

    def new_entries(self) -> list[CachedJudgement]:
        with self._lock:
            return [CachedJudgement(self.config_hash, case, output, doc) for (case, output), doc in self._new.items()]

    @property
    def pending(self) -> int:
        """New results not yet written to the store."""
        with self._lock:
            return len(self._new)

    def save(self, store: StoreBackend) -> int:
        """Write the results this run paid for and that are not written yet; returns how many.

        A run saves as it goes (`qaeval run` every `SAVE_EVERY` results), so a run stopped halfway has
        kept every verdict it paid for, and its rerun asks only for the rest."""
        with self._lock:
            taken, self._new = self._new, {}
        entries = [CachedJudgement(self.config_hash, case, output, doc) for (case, output), doc in taken.items()]
        try:
            return store.cache_judgements(entries)
        except BaseException:
            with self._lock:  # not written: kept for the next save
                self._new = {**taken, **self._new}
            raise


ShardReport = tuple[dict[Key, dict[str, Any]], dict[str, int], bool]
"""A worker process's new cache entries, its tally's counts since its last report, and whether a model was asked."""

SAVE_EVERY = 256
"""New verdict-cache entries a run writes to the store at a time, as the cases finish."""


class CachedJudge:
    """A judge that answers from the cache when it can, asks `inner` otherwise, and tallies both."""

    def __init__(
        self,
        inner: JudgeClient,
        cache: VerdictCache,
        tally: JudgeTally | None = None,
        case_hashes: Mapping[int, str] | None = None,
    ) -> None:
        self.inner = inner
        self.cache = cache
        self.tally = tally or JudgeTally()
        self._case_hashes = dict(case_hashes or {})  # id(case) -> its content hash, known from loading
        self._reported: dict[str, int] = {}  # a worker process's counts already reported to the parent

    @property
    def config(self) -> JudgeConfig:
        return self.inner.config

    def __getattr__(self, name: str) -> Any:  # anything else the runner asks of a judge (its concurrency...)
        if name in {"inner", "cache", "tally", "_case_hashes", "_reported"}:
            raise AttributeError(name)
        return getattr(self.inner, name)

    def after_fork(self) -> None:
        """In a worker process of a sharded run, just forked: locks of its own, the counts its reports start from."""
        self.cache.after_fork()
        self.tally.after_fork()
        self._reported = self.tally.counts()

    def shard_report(self) -> ShardReport:
        """In a worker: the cache's new entries and the tally's counts since the last report."""
        now = self.tally.counts()
        delta = {name: value - self._reported.get(name, 0) for name, value in now.items()}
        self._reported = now
        return self.cache.take_new(), delta, self.tally.asked_model

    def shard_merge(self, report: object) -> None:
        """In the parent: a worker's `shard_report`, saved with the cache's next save and counted."""
        entries, delta, asked_model = cast(ShardReport, report)
        self.cache.add_new(entries)
        self.tally.add_counts(delta, asked_model=asked_model)

    def score(self, case: GoldenCase, output: SUTOutput, rubric: Rubric) -> JudgeResult:
        key, cached = self._lookup(case, output, rubric)
        if cached is not None:
            return cached
        self.tally.started()
        try:
            raw = self.inner.score(case, output, rubric)
        except BaseException as exc:
            self._failed(exc)
            raise
        return self._settle(raw, key, case, output, rubric)

    async def ascore(self, case: GoldenCase, output: SUTOutput, rubric: Rubric) -> JudgeResult:
        """`score` on a run's event loop: the inner judge's call awaited (`ask`)."""
        key, cached = self._lookup(case, output, rubric)
        if cached is not None:
            return cached
        self.tally.started()
        try:
            raw = await ask(self.inner, case, output, rubric)
        except BaseException as exc:
            self._failed(exc)
            raise
        return self._settle(raw, key, case, output, rubric)

    def _lookup(self, case: GoldenCase, output: SUTOutput, rubric: Rubric) -> tuple[Key | None, JudgeResult | None]:
        """The case's cache key (when worth computing) and its sound cached result, if any (a hit is tallied)."""
        if self.cache.empty and not _costs_calls(self.inner):
            return None, None
        key = self._key(case, output)
        cached = self.cache.get(key)
        if cached is not None and _sound(cached, rubric):
            self.tally.hit()
            return key, cached
        return key, None

    def _failed(self, exc: BaseException) -> None:
        call = exc.call if isinstance(exc, JudgeFailure) and isinstance(exc.call, JudgeCall) else None
        self.tally.finished(call, failed=True)

    def _settle(self, raw: object, key: Key | None, case: GoldenCase, output: SUTOutput, rubric: Rubric) -> JudgeResult:
        """The inner judge's result, tallied, and kept for the cache when a model was asked and it is valid
        (an invalid one is handed on as it came: `judge_verdict` names what is wrong)."""
        try:
            result = validate_result(raw, rubric)
        except Exception:  # judge_verdict names what is wrong (an error verdict); nothing is cached
            self.tally.finished(getattr(raw, "call", None) if isinstance(raw, JudgeResult) else None, failed=True)
            return raw  # type: ignore[return-value]  # not a JudgeResult: the verdict says so
        self.tally.finished(result.call, failed=False)
        if result.call is not None and not _stands_in_for_a_failure(result):  # a model was asked: worth keeping
            self.cache.put(key or self._key(case, output), result)
        return result

    def _key(self, case: GoldenCase, output: SUTOutput) -> Key:
        """(case hash, output hash); from the second sample of a case on (`[run] samples`), the output hash
        carries the sample, so k samples are k judgements even where the system answered alike."""
        sample = SAMPLE.get()
        case_hash, digest = known_hashes(case, output) or (self._case_hash(case), output_hash(output))
        return (case_hash, digest if sample == 0 else f"{digest}#sample-{sample}")

    def _case_hash(self, case: GoldenCase) -> str:
        return self._case_hashes.get(id(case)) or case_content_hash(case)


def _sound(result: JudgeResult, rubric: Rubric) -> bool:
    """A cached result the verdict would accept (an entry off the rubric's scales is asked again, not an error)."""
    try:
        validate_result(result, rubric)
    except ValueError:
        return False
    return True


def _stands_in_for_a_failure(result: JudgeResult) -> bool:
    """A cascade's screen result kept because the stronger judge failed: not cached, so the next run asks again."""
    return bool(result.stages) and result.stages[-1].get("outcome") == "error"


def output_hash(output: SUTOutput) -> str:
    """The system output's hash, as the runner computes it (`CaseResult.output_hash`)."""
    return content_hash(output.model_dump(mode="json"))


def _costs_calls(judge: JudgeClient) -> bool:
    """True for a configured model judge: worth a cache key per case even while the cache is empty.

    Any other judge's results are cached too when they carry a call (`JudgeResult.call`); its keys
    are computed only once the cache holds something (the bundled judge's never does: no overhead)."""
    kind = getattr(judge.config, "kind", None)
    return bool(kind and kind not in {"mechanical", "skipped"})


__all__ = ["SAVE_EVERY", "CachedJudge", "JudgeTally", "Pricing", "VerdictCache", "output_hash"]
