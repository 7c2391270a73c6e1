"""The judge (DESIGN §3.3): the `JudgeClient` interface, loading a judge, and turning its result into a verdict.

A judge scores one (case, output) per rubric axis and quotes the span behind each score. The
verdict records the pinned `JudgeConfig` and its hash, because the judge is itself a dependency
that drifts. A judge that raises or returns nonsense produces an error verdict, never a crash.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Protocol, runtime_checkable

from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.models.golden import GoldenCase
from qaeval_tui.core.models.run import Attempt, JudgeConfig, JudgeVerdict, Outcome, SUTOutput, TokenUsage
from qaeval_tui.core.rubric import Rubric
from qaeval_tui.core.running.adapters import describe_failure, load_factory
from qaeval_tui.core.text import one_line

FAITHFULNESS = "faithfulness"
ANSWER_CORRECTNESS = "answer_correctness"
CITATION_CORRECTNESS = "citation_correctness"
SAMPLE: ContextVar[int] = ContextVar("qaeval_sample", default=0)
"""The sample (0..k-1) of the case being judged (`[run] samples`): part of the verdict cache's key."""


@dataclass(frozen=True)
class JudgeCall:
    """What asking a model cost: the model ids, tokens (None: unknown, never 0) and each attempt."""

    requested_model: str | None = None
    returned_model: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    attempts: tuple[Attempt, ...] = ()

    @property
    def retries(self) -> int:
        return max(0, len(self.attempts) - 1)


@dataclass(frozen=True)
class JudgeResult:
    """Scores per axis (None: can't judge) and the quoted span behind each score.

    `abstained` says on purpose that the judge cannot judge this case (with a `reason`); `call` is
    what a model judge's request cost, recorded in the verdict.
    """

    scores: dict[str, int | None]
    evidence: dict[str, str] = field(default_factory=dict)
    abstained: bool = False
    reason: str | None = None
    call: JudgeCall | None = None
    stages: tuple[dict[str, Any], ...] = ()
    """A cascade's stages (screen, then the stronger judge when escalated), each as recorded in the verdict."""


class JudgeFailure(Exception):
    """A model judge's failed call (request, refusal, truncation, invalid reply): an error verdict that
    keeps what the call cost. `reason` is one sanitized line."""

    def __init__(self, reason: str, call: JudgeCall | None = None) -> None:
        super().__init__(reason)
        self.reason = one_line(reason, 300)
        self.call = call


class SkippedJudge:
    """The judge of a checks-only run: asks nobody; every verdict is `skipped`."""

    def __init__(self) -> None:
        self._config = JudgeConfig(name="checks-only", model="none", kind="skipped")

    @property
    def config(self) -> JudgeConfig:
        return self._config

    def score(self, case: GoldenCase, output: SUTOutput, rubric: Rubric) -> JudgeResult:
        raise AssertionError("a checks-only run asks no judge")  # judge_verdict never calls it


SKIPPED_REASON = "checks-only run: no judge was asked"


@runtime_checkable
class JudgeClient(Protocol):
    """Anything with a pinned `config` and `score(case, output, rubric) -> JudgeResult`."""

    @property
    def config(self) -> JudgeConfig: ...

    def score(self, case: GoldenCase, output: SUTOutput, rubric: Rubric) -> JudgeResult: ...


ITEM_HASHES: ContextVar[tuple[object, object, str, str] | None] = ContextVar("qaeval_item_hashes", default=None)
"""(case, output, case hash, output hash) of the case a run is asking the judge about: the runner has
computed both hashes already, and the verdict cache reads them here rather than hashing again."""


def known_hashes(case: GoldenCase, output: SUTOutput) -> tuple[str, str] | None:
    """The hashes the runner set for exactly this case and output, if it did."""
    known = ITEM_HASHES.get()
    if known is None or known[0] is not case or known[1] is not output:
        return None
    return known[2], known[3]


def is_asynchronous(judge: JudgeClient) -> bool:
    """The judge's calls are coroutines (`ascore`, a model judge's): a run awaits them on one event loop."""
    try:
        return getattr(judge, "asynchronous", False) is True
    except Exception:  # a user judge's attribute that fails to read: it is a plain synchronous judge
        return False


async def ask(judge: JudgeClient, case: GoldenCase, output: SUTOutput, rubric: Rubric) -> object:
    """What the judge returns for the case: `await judge.ascore(...)` for an asynchronous judge, else its
    `score` on a thread of the running loop's executor (a user's judge may block)."""
    import asyncio  # only a run's event loop needs it: off the start path of the CLI and the TUI
    import inspect

    if is_asynchronous(judge):
        ascore = getattr(judge, "ascore", None)
        if ascore is not None and inspect.iscoroutinefunction(ascore):
            result: object = await ascore(case, output, rubric)
            return result
    return await asyncio.get_running_loop().run_in_executor(None, judge.score, case, output, rubric)


async def close_judge(judge: JudgeClient) -> None:
    """Close what the judge holds on the running loop (a model judge's connection pool), if it holds any."""
    import inspect

    aclose = getattr(judge, "aclose", None) if is_asynchronous(judge) else None
    if aclose is not None and inspect.iscoroutinefunction(aclose):
        await aclose()


def effective_config(judge: JudgeClient, rubric: Rubric) -> JudgeConfig:
    """The judge's config bound to the rubric version it scores under (part of the hash)."""
    config = judge.config
    problem = config_problem(config)
    if problem is not None:
        raise UsageError(f"the judge's config: {problem}")
    if config.rubric_version == rubric.version:
        return config
    return config.model_copy(update={"rubric_version": rubric.version})


def judge_descriptor(config: JudgeConfig) -> dict[str, Any]:
    """The `judge` object of a verdict (§8.3): name, model, config hash and the pinned settings."""
    return dict(_shared_descriptor(config))


_last_descriptor: tuple[JudgeConfig, dict[str, Any]] | None = None


def _shared_descriptor(config: JudgeConfig) -> dict[str, Any]:
    """`_descriptor(config)`, the last config's kept by identity (a run builds every verdict with one config,
    and hashing a config for the cache reads every field). Never mutated: callers copy it."""
    global _last_descriptor
    last = _last_descriptor
    if last is not None and last[0] is config:
        return last[1]
    descriptor = _descriptor(config)
    _last_descriptor = (config, descriptor)
    return descriptor


@lru_cache(maxsize=64)
def _descriptor(config: JudgeConfig) -> dict[str, Any]:
    return {**config.model_dump(mode="json", exclude_none=True), "config_hash": config.config_hash()}


@dataclass(frozen=True)
class RubricAxes:
    """What the judge path (the prompt, the reply check, the verdict) reads of a rubric on every call, read
    once per rubric (`rubric_axes`)."""

    names: tuple[str, ...]
    known: frozenset[str]
    scales: tuple[tuple[str, tuple[int, ...]], ...]
    top_of_faithfulness: int | None
    """The top of the faithfulness scale; None when the rubric has no faithfulness axis."""
    needs_gold: bool
    """Some axis shows the judge the reference answer."""


_last_axes: tuple[Rubric, RubricAxes] | None = None


def rubric_axes(rubric: Rubric) -> RubricAxes:
    """The rubric's `RubricAxes` (a rubric is frozen: the last one's are kept, as a run asks the same one each
    time)."""
    global _last_axes
    last = _last_axes
    if last is not None and last[0] is rubric:
        return last[1]
    names = rubric.axis_names
    faithfulness = next((axis for axis in rubric.axes if axis.name == FAITHFULNESS), None)
    axes = RubricAxes(
        names,
        frozenset(names),
        tuple((axis.name, axis.scale) for axis in rubric.axes),
        None if faithfulness is None else faithfulness.scale[-1],
        any(axis.needs_gold for axis in rubric.axes),
    )
    _last_axes = (rubric, axes)
    return axes


def validate_result(result: object, rubric: Rubric) -> JudgeResult:
    """The judge's result checked against the rubric; ValueError names what is wrong.

    Every rubric axis must be scored (None is "can't judge", said on purpose): a result that
    leaves an axis out, or has nothing at all, is a judge failure, not a verdict.
    """
    if not isinstance(result, JudgeResult):
        raise ValueError(f"the judge returned {type(result).__name__}, not a JudgeResult")
    scores, evidence = result.scores, result.evidence
    if not isinstance(scores, dict):
        raise ValueError(f"the judge's scores are {type(scores).__name__}, not a dict of axis -> score")
    if not isinstance(evidence, dict):
        raise ValueError(f"the judge's evidence is {type(evidence).__name__}, not a dict of axis -> quoted span")
    axes = rubric_axes(rubric)
    names = axes.known
    if not names.issuperset(scores):
        unknown = sorted(repr(axis) for axis in scores if axis not in names)
        raise ValueError(f"the judge scored unknown axis {unknown[0]}")
    for name, scale in axes.scales:
        value = scores.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value not in scale):
            raise ValueError(f"the judge gave {value!r} for {name}, outside its scale {list(scale)}")
    missing = [axis for axis in axes.names if axis not in scores]
    if missing:
        raise ValueError(f"the judge gave no score for {missing[0]} (None, for can't judge, must be given explicitly)")
    for name, span in evidence.items():
        if name not in names:
            raise ValueError(f"the judge gave evidence for unknown axis {name!r}")
        if not isinstance(span, str):
            raise ValueError(f"the judge's evidence for {name} is {type(span).__name__}, not a quoted span")
        if not _is_text(span):
            raise ValueError(f"the judge's evidence for {name} is not valid Unicode (a lone surrogate)")
    return JudgeResult(
        {axis: scores[axis] for axis in axes.names},
        dict(evidence),
        abstained=result.abstained is True,
        reason=None if result.reason is None else one_line(str(result.reason)),
        call=result.call if isinstance(result.call, JudgeCall) else None,
        stages=result.stages if isinstance(result.stages, tuple) else (),
    )


def faithfulness_outcome(scores: dict[str, int | None], rubric: Rubric) -> Outcome:
    """faithful at the top of the faithfulness scale, unfaithful below it, abstained when unscored
    (or when the rubric has no faithfulness axis: there is no faithfulness to judge)."""
    top = rubric_axes(rubric).top_of_faithfulness
    if top is None or scores.get(FAITHFULNESS) is None:
        return "abstained"
    return "faithful" if scores[FAITHFULNESS] == top else "unfaithful"


def _checked(raw: object, rubric: Rubric) -> tuple[str, JudgeResult | None]:
    """(why not, None) for a malformed result, ("", result) for a sound one; never raises."""
    try:
        return "", validate_result(raw, rubric)
    except KeyboardInterrupt:
        raise
    except ValueError as exc:
        return one_line(str(exc)), None
    except BaseException as exc:  # a result whose attributes themselves fail (a hostile __eq__, __iter__...)
        return f"the judge returned an unreadable result: {describe_failure(exc)}", None


def _builder(config: JudgeConfig, case: GoldenCase, item_id: str, created_at: str) -> Callable[..., JudgeVerdict]:
    """The function building this case's verdict from an outcome, scores, evidence and what the call cost."""

    def verdict(
        outcome: Outcome,
        scores: dict[str, int | None],
        evidence: dict[str, str],
        *,
        error: str | None = None,
        reason: str | None = None,
        call: JudgeCall | None = None,
        stages: tuple[dict[str, Any], ...] = (),
    ) -> JudgeVerdict:
        spent = call or JudgeCall()
        return JudgeVerdict(
            item_id=item_id,
            case_id=case.id,
            judge=_shared_descriptor(config),  # validated into a dict of the verdict's own
            status="error" if outcome == "error" else "skipped" if outcome == "skipped" else "ok",
            scores=scores,
            evidence=evidence,
            created_at=created_at,
            error=error,
            outcome=outcome,
            reason=reason,
            requested_model=spent.requested_model,
            returned_model=spent.returned_model,
            usage=TokenUsage(input_tokens=spent.input_tokens, output_tokens=spent.output_tokens),
            attempts=list(spent.attempts),
            retries=spent.retries,
            stages=list(stages) or None,
        )

    return verdict


def _unasked(
    judge: JudgeClient, config: JudgeConfig, case: GoldenCase, output: SUTOutput, rubric: Rubric, item_id: str,
    created_at: str,
) -> JudgeVerdict | None:  # fmt: skip
    """The verdict of a case no judge is asked about (a checks-only run; a failed system), else None."""
    if isinstance(judge, SkippedJudge):
        reason = SKIPPED_REASON
    elif output.error is not None:
        reason = "the system failed on this case: nothing to judge"
    else:
        return None
    unscored = dict.fromkeys(rubric_axes(rubric).names)
    verdict = _builder(config, case, item_id, created_at)
    return verdict("skipped" if isinstance(judge, SkippedJudge) else "abstained", unscored, {}, reason=reason)


def _verdict_of(
    raw: object, failure: BaseException | None, judge: JudgeClient, config: JudgeConfig, case: GoldenCase,
    output: SUTOutput, rubric: Rubric, *, item_id: str, created_at: str,
) -> JudgeVerdict:  # fmt: skip
    """The verdict on what the judge returned (`raw`) or raised (`failure`)."""
    unscored = dict.fromkeys(rubric_axes(rubric).names)
    verdict = _builder(config, case, item_id, created_at)
    result: JudgeResult | None = None
    call: JudgeCall | None = None
    if isinstance(failure, JudgeFailure):
        problem, call = failure.reason, failure.call if isinstance(failure.call, JudgeCall) else None
    elif failure is not None:  # a judge failure (sys.exit too) is data, an error verdict, never a crash
        problem = describe_failure(failure)
    else:
        problem, result = _checked(raw, rubric)
    if result is None:
        return verdict("error", unscored, {}, error=problem, call=call)
    if result.abstained:
        why = result.reason or "the judge cannot judge this case"
        return verdict(
            "abstained", unscored, {}, reason=why, call=result.call, stages=result.stages
        )  # no score it disowns
    outcome = faithfulness_outcome(result.scores, rubric)
    unscored_why = "the judge did not score faithfulness" if outcome == "abstained" else None
    return verdict(outcome, result.scores, result.evidence, reason=unscored_why, call=result.call, stages=result.stages)


def judge_verdict(
    judge: JudgeClient,
    config: JudgeConfig,
    case: GoldenCase,
    output: SUTOutput,
    rubric: Rubric,
    *,
    item_id: str,
    created_at: str,
) -> JudgeVerdict:
    """One verdict in the §8.3 export shape with its outcome. Any judge failure, an exit included,
    becomes status and outcome "error"; a checks-only run's verdicts are "skipped"."""
    early = _unasked(judge, config, case, output, rubric, item_id, created_at)
    if early is not None:
        return early
    raw: object = None
    failure: BaseException | None = None
    try:
        raw = judge.score(case, output, rubric)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        failure = exc
    return _verdict_of(raw, failure, judge, config, case, output, rubric, item_id=item_id, created_at=created_at)


async def ajudge_verdict(
    judge: JudgeClient,
    config: JudgeConfig,
    case: GoldenCase,
    output: SUTOutput,
    rubric: Rubric,
    *,
    item_id: str,
    created_at: str,
) -> JudgeVerdict:
    """`judge_verdict` on a run's event loop: the judge's call awaited (see `ask`)."""
    from asyncio import CancelledError

    early = _unasked(judge, config, case, output, rubric, item_id, created_at)
    if early is not None:
        return early
    raw: object = None
    failure: BaseException | None = None
    try:
        raw = await ask(judge, case, output, rubric)
    except (KeyboardInterrupt, CancelledError):
        raise
    except BaseException as exc:
        failure = exc
    return _verdict_of(raw, failure, judge, config, case, output, rubric, item_id=item_id, created_at=created_at)


def load_judge(spec: str) -> JudgeClient:
    """The judge built by `module:factory`: it needs a JudgeConfig `config` and a `score` method."""
    judge = load_factory(spec, "--judge")
    try:  # `config` may be a property of user code: reading it can fail like any call into it
        client = judge if isinstance(judge, JudgeClient) and callable(judge.score) else None
        config = None if client is None else client.config
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        raise UsageError(f"--judge {spec!r}: reading the judge's config failed: {describe_failure(exc)}") from exc
    if client is None:
        raise UsageError(
            f"--judge {spec!r}: the factory returned {one_line(type(judge).__name__)}, which has no score() method"
        )
    if not isinstance(config, JudgeConfig):
        raise UsageError(
            f"--judge {spec!r}: the judge's config is {one_line(type(config).__name__)}, not a JudgeConfig"
        )
    problem = config_problem(config)
    if problem is not None:
        raise UsageError(f"--judge {spec!r}: the judge's config: {problem}")
    return client


def config_problem(config: JudgeConfig) -> str | None:
    """Why a judge config cannot be recorded in a verdict, or None when it can.

    NaN or an infinity is no JSON number; half a UTF-16 pair is no UTF-8 text.
    """
    if not math.isfinite(config.temperature):
        return f"temperature {config.temperature!r} is not a finite number"
    for name, value in config.model_dump().items():
        if isinstance(value, str) and not _is_text(value):
            return f"{name} is not valid Unicode (a lone surrogate)"
    return None


def _is_text(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
