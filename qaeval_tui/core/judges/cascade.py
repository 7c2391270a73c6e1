"""A cascade of two judges (`[cascade]`): a cheap judge screens, a stronger one settles what the screen
found low, borderline or could not judge, or failed on.

The screen's valid result is final unless one of the configured triggers fires; then the stronger
judge is asked and its valid result is final. When the stronger judge fails, the screen's valid
result stands (its stage says why); when both fail, the verdict is an error naming both. Every
stage is recorded in the verdict (`stages`): which judge, its outcome and scores, why it escalated,
its tokens and attempts. The cascade's config hash covers both judges' and the triggers.
"""

from __future__ import annotations

from asyncio import CancelledError
from collections.abc import Sequence
from typing import Any

from qaeval_tui.core.config import Config
from qaeval_tui.core.hashing import content_hash
from qaeval_tui.core.models.golden import GoldenCase
from qaeval_tui.core.models.run import JudgeConfig, SUTOutput
from qaeval_tui.core.rubric import Rubric
from qaeval_tui.core.running.adapters import describe_failure
from qaeval_tui.core.running.judge import (
    FAITHFULNESS,
    JudgeCall,
    JudgeClient,
    JudgeFailure,
    JudgeResult,
    ask,
    close_judge,
    effective_config,
    faithfulness_outcome,
    is_asynchronous,
    validate_result,
)
from qaeval_tui.core.text import one_line


def escalation(result: JudgeResult | None, rubric: Rubric, triggers: Sequence[str]) -> list[str]:
    """The triggers a screening result fires (None: the screen failed), in the order configured."""
    if result is None:
        return ["error"] if "error" in triggers else []
    fired: list[str] = []
    for trigger in triggers:
        if trigger == "abstained" and (result.abstained or faithfulness_outcome(result.scores, rubric) == "abstained"):
            fired.append(trigger)
        elif trigger == "unfaithful" and not result.abstained:
            if faithfulness_outcome(result.scores, rubric) == "unfaithful":
                fired.append(trigger)
        elif trigger in ("low", "borderline") and not result.abstained:
            for axis in rubric.axes:
                value = result.scores.get(axis.name)
                if value is None:
                    continue
                low = value == axis.scale[0]
                if (trigger == "low" and low) or (trigger == "borderline" and not low and value != axis.scale[-1]):
                    fired.append(trigger)
                    break
    return fired


def _stage(
    name: str, judge: JudgeConfig, rubric: Rubric, result: JudgeResult | None, call: JudgeCall | None, error: str | None
) -> dict[str, Any]:
    spent = call or JudgeCall()
    outcome = (
        "error" if result is None else "abstained" if result.abstained else faithfulness_outcome(result.scores, rubric)
    )
    return {
        "stage": name,
        "judge": {"name": judge.name, "model": judge.model, "config_hash": judge.config_hash()},
        "outcome": outcome,
        "scores": None if result is None else dict(result.scores),
        "error": error,
        "returned_model": spent.returned_model,
        "usage": {"input_tokens": spent.input_tokens, "output_tokens": spent.output_tokens},
        "attempts": [attempt.model_dump() for attempt in spent.attempts],
    }


def _together(first: JudgeCall | None, second: JudgeCall | None, final: JudgeCall | None) -> JudgeCall | None:
    """Both stages' cost as one call: tokens summed (unknown if either is), every attempt, the final model."""
    calls = [call for call in (first, second) if call is not None]
    if not calls:
        return None

    def total(values: list[int | None]) -> int | None:
        return None if any(value is None for value in values) else sum(v for v in values if v is not None)

    last = final or calls[-1]
    return JudgeCall(
        requested_model=last.requested_model,
        returned_model=last.returned_model,
        input_tokens=total([call.input_tokens for call in calls]),
        output_tokens=total([call.output_tokens for call in calls]),
        attempts=tuple(attempt for call in calls for attempt in call.attempts),
    )


class CascadeJudge:
    """`screen` on every case; `strong` on the cases whose screening result fires a trigger."""

    def __init__(self, screen: JudgeClient, strong: JudgeClient, triggers: Sequence[str], rubric: Rubric) -> None:
        self.screen = screen
        self.strong = strong
        self.triggers = tuple(triggers)
        self._screen_config = effective_config(screen, rubric)
        self._strong_config = effective_config(strong, rubric)
        self.concurrency = max(_concurrency(screen), _concurrency(strong))
        self._config = JudgeConfig(
            name="cascade",
            model=f"{self._screen_config.model} > {self._strong_config.model}",
            rubric_version=rubric.version,
            prompt_version="cascade-1",
            kind="cascade",
            prompt_hash=content_hash(
                {
                    "screen": self._screen_config.config_hash(),
                    "strong": self._strong_config.config_hash(),
                    "escalate": list(self.triggers),
                }
            ),
        )

    @property
    def config(self) -> JudgeConfig:
        return self._config

    @property
    def asynchronous(self) -> bool:
        """Either judge's calls are coroutines: the run awaits `ascore` on its loop."""
        return is_asynchronous(self.screen) or is_asynchronous(self.strong)

    def score(self, case: GoldenCase, output: SUTOutput, rubric: Rubric) -> JudgeResult:
        screened, screen_call, screen_error = _settled(_call(self.screen, case, output, rubric), rubric)
        first, fired = self._screened(screened, screen_call, screen_error, rubric)
        if not fired:
            return _screen_final(screened, screen_call, screen_error, first)
        strong = _settled(_call(self.strong, case, output, rubric), rubric)
        return self._settle(first, (screened, screen_call, screen_error), strong, rubric)

    async def ascore(self, case: GoldenCase, output: SUTOutput, rubric: Rubric) -> JudgeResult:
        """`score` on a run's event loop: each stage's call awaited (`ask`)."""
        screened, screen_call, screen_error = _settled(await _acall(self.screen, case, output, rubric), rubric)
        first, fired = self._screened(screened, screen_call, screen_error, rubric)
        if not fired:
            return _screen_final(screened, screen_call, screen_error, first)
        strong = _settled(await _acall(self.strong, case, output, rubric), rubric)
        return self._settle(first, (screened, screen_call, screen_error), strong, rubric)

    async def aclose(self) -> None:
        """Close both judges' connection pools on the running loop."""
        for judge in (self.screen, self.strong):
            await close_judge(judge)

    def _screened(
        self, screened: JudgeResult | None, call: JudgeCall | None, error: str | None, rubric: Rubric
    ) -> tuple[dict[str, Any], list[str]]:
        fired = escalation(screened, rubric, self.triggers)
        first = _stage("screen", self._screen_config, rubric, screened, call, error)
        first["escalated"] = fired
        return first, fired

    def _settle(self, first: dict[str, Any], screen: _Stage, strong: _Stage, rubric: Rubric) -> JudgeResult:
        screened, screen_call, screen_error = screen
        result, strong_call, strong_error = strong
        second = _stage("strong", self._strong_config, rubric, result, strong_call, strong_error)
        call = _together(screen_call, strong_call, strong_call)
        if result is not None:
            return _final(result, call, (first, second))
        if screened is not None:  # the stronger judge failed: the screen's valid result stands
            second["kept"] = "screen"
            return _final(screened, call, (first, second))
        raise JudgeFailure(f"screening judge: {screen_error}; stronger judge: {strong_error}", call)


_Stage = tuple[JudgeResult | None, JudgeCall | None, str | None]
"""(valid result, what it cost, None) or (None, what it cost, why not)."""


def _screen_final(
    screened: JudgeResult | None, call: JudgeCall | None, error: str | None, first: dict[str, Any]
) -> JudgeResult:
    if screened is None:  # the screen failed and "error" is no trigger: the verdict is that error
        raise JudgeFailure(f"screening judge: {error}", call)
    return _final(screened, call, (first,))


def _final(result: JudgeResult, call: JudgeCall | None, stages: tuple[dict[str, Any], ...]) -> JudgeResult:
    return JudgeResult(
        dict(result.scores), dict(result.evidence), abstained=result.abstained, reason=result.reason, call=call,
        stages=stages,
    )  # fmt: skip


def _call(
    judge: JudgeClient, case: GoldenCase, output: SUTOutput, rubric: Rubric
) -> tuple[object, BaseException | None]:
    try:
        return judge.score(case, output, rubric), None
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # a stage failing is that stage's error, recorded; never a crash
        return None, exc


async def _acall(
    judge: JudgeClient, case: GoldenCase, output: SUTOutput, rubric: Rubric
) -> tuple[object, BaseException | None]:
    try:
        return await ask(judge, case, output, rubric), None
    except (KeyboardInterrupt, CancelledError):
        raise
    except BaseException as exc:  # a stage failing is that stage's error, recorded; never a crash
        return None, exc


def _settled(outcome: tuple[object, BaseException | None], rubric: Rubric) -> _Stage:
    """A stage's (result or failure) as (valid result, what it cost, None) or (None, what it cost, why not)."""
    raw, failure = outcome
    if isinstance(failure, JudgeFailure):
        return None, failure.call if isinstance(failure.call, JudgeCall) else None, failure.reason
    if failure is not None:
        return None, None, describe_failure(failure)
    try:
        result = validate_result(raw, rubric)
    except ValueError as exc:
        call = raw.call if isinstance(raw, JudgeResult) and isinstance(raw.call, JudgeCall) else None
        return None, call, one_line(str(exc))
    return result, result.call, None


def _concurrency(judge: JudgeClient) -> int:
    value = getattr(judge, "concurrency", 1)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 1 else 1


def cascade_from_config(config: Config, screen: JudgeClient, screen_spec: str) -> tuple[JudgeClient, str]:
    """The configured cascade over the chosen judge (the screen); the stronger judge's key is checked now."""
    from qaeval_tui.core.judges.factory import configured_judge

    assert config.cascade is not None
    section = config.cascade.judge
    strong = configured_judge(section, config.rubric)
    cascade = CascadeJudge(screen, strong, config.cascade.escalate, config.rubric)
    return cascade, f"cascade: {screen_spec} > [cascade.judge] {section.kind} {section.model}"


__all__ = ["FAITHFULNESS", "CascadeJudge", "cascade_from_config", "escalation"]
