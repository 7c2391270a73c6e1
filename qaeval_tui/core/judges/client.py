"""A model judge: the versioned prompt sent over a provider's protocol, its reply read strictly.

`ascore` is the judge's call as a coroutine: a run awaits `concurrency` of them on one event loop,
all through one pooled HTTP client. `score` is the same call for a caller without a loop (a test, a
script): it runs on one background loop this process shares among every such caller.

Its `JudgeConfig` pins what changes a verdict: the kind, the model, the prompt template's hash and
version, the rubric's scales and anchors (hashed), temperature, seed and the output-token cap.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

from qaeval_tui.core.config.judge import JudgeSection
from qaeval_tui.core.config.judge_providers import provider_of
from qaeval_tui.core.judges.calls import call_with_retries
from qaeval_tui.core.judges.prompt import (
    ReplyError,
    prompt_hash,
    quotable,
    read_reply,
    rubric_hash,
    system_message,
    user_message,
)
from qaeval_tui.core.judges.providers import Endpoint, Send, transport
from qaeval_tui.core.models.golden import GoldenCase
from qaeval_tui.core.models.run import JudgeConfig, SUTOutput
from qaeval_tui.core.rubric import Rubric
from qaeval_tui.core.running.judge import JudgeFailure, JudgeResult

T = TypeVar("T")


class ModelJudge:
    """A `JudgeClient` asking a model over its provider's protocol (OpenAI-compatible, Anthropic...)."""

    asynchronous = True
    """The runner awaits `ascore` on its event loop rather than calling `score` on a thread."""

    def __init__(self, section: JudgeSection, rubric: Rubric, api_key: str, *, backoff_s: float = 0.5) -> None:
        if section.model is None or not section.is_model:
            raise ValueError("a model judge needs a provider's kind (config/judge_providers.py) and a model")
        self.section = section
        self.concurrency = section.concurrency
        self._backoff_s = backoff_s
        self._system: tuple[Rubric, str] | None = None
        self._config = JudgeConfig(
            name=f"{section.kind}-judge",
            model=section.model,
            temperature=section.temperature,
            seed=section.seed,
            prompt_version=section.prompt_version,
            rubric_version=rubric.version,
            kind=section.kind,
            prompt_hash=prompt_hash(section.prompt_version),
            rubric_hash=rubric_hash(rubric),
            max_tokens=section.max_tokens,
            min_evidence_chars=section.min_evidence_chars,
        )
        self._send: Send
        self._endpoint: Endpoint
        self._send, self._endpoint = transport(
            provider_of(section.kind),
            model=section.model,
            api_key=api_key,
            base_url=section.base_url,
            timeout_s=section.timeout_s,
            temperature=section.temperature,
            seed=section.seed,
            max_tokens=section.max_tokens,
            connections=section.concurrency,
        )

    @property
    def config(self) -> JudgeConfig:
        return self._config

    def score(self, case: GoldenCase, output: SUTOutput, rubric: Rubric) -> JudgeResult:
        return _on_background_loop(self.ascore(case, output, rubric))

    def _system_message(self, rubric: Rubric) -> str:
        """The system message for `rubric`, rendered once per rubric (every call of a run sends the same)."""
        cached = self._system
        if cached is None or cached[0] is not rubric:
            cached = self._system = (rubric, system_message(self.section.prompt_version, rubric))
        return cached[1]

    async def aclose(self) -> None:
        """Close the running loop's connection pool (the runner calls it when its loop ends)."""
        await self._endpoint.aclose()

    async def ascore(self, case: GoldenCase, output: SUTOutput, rubric: Rubric) -> JudgeResult:
        texts = quotable(case, output)
        if not any(text and not text.isspace() for text in texts):  # no evidence could pass: asking would only cost
            return JudgeResult(
                dict.fromkeys(rubric.axis_names), abstained=True, reason="nothing to quote: no source text, no answer"
            )
        system = self._system_message(rubric)
        user = user_message(case, output, rubric)
        reply, call = await call_with_retries(
            lambda: self._send(system, user),
            requested_model=self._config.model,
            max_retries=self.section.max_retries,
            backoff_s=self._backoff_s,
        )
        try:
            judgment = read_reply(reply.text, rubric, texts, min_evidence_chars=self.section.min_evidence_chars)
        except ReplyError as exc:
            raise JudgeFailure(str(exc), call) from None
        return JudgeResult(
            judgment.scores, judgment.evidence, abstained=judgment.abstained, reason=judgment.reason, call=call
        )


_background: asyncio.AbstractEventLoop | None = None
_background_lock = threading.Lock()


def _on_background_loop(coroutine: Coroutine[Any, Any, T]) -> T:
    """The coroutine's result, run on this process's one background loop (started on first use)."""
    global _background
    with _background_lock:
        if _background is None:
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="qaeval-judge-loop", daemon=True).start()
            _background = loop
        loop = _background
    future = asyncio.run_coroutine_threadsafe(coroutine, loop)
    try:
        return future.result()
    except BaseException:
        future.cancel()
        raise
