"""A model judge: the versioned prompt sent through a provider's SDK, its reply read strictly.

Its `JudgeConfig` pins what changes a verdict: the kind, the model, the prompt template's hash and
version, the rubric's scales and anchors (hashed), temperature, seed and the output-token cap.
"""

from __future__ import annotations

from collections.abc import Callable

from qaeval_tui.core.config.judge import JudgeSection
from qaeval_tui.core.golden.models import GoldenCase
from qaeval_tui.core.judges.calls import Failed, call_with_retries
from qaeval_tui.core.judges.prompt import (
    ReplyError,
    prompt_hash,
    quotable,
    read_reply,
    rubric_hash,
    system_message,
    user_message,
)
from qaeval_tui.core.judges.providers import Send, anthropic_transport, openai_transport
from qaeval_tui.core.rubric import Rubric
from qaeval_tui.core.running.judge import JudgeFailure, JudgeResult
from qaeval_tui.core.running.models import JudgeConfig, SUTOutput


class ModelJudge:
    """A `JudgeClient` asking a model over the OpenAI-compatible or the Anthropic API."""

    def __init__(self, section: JudgeSection, rubric: Rubric, api_key: str, *, backoff_s: float = 0.5) -> None:
        if section.model is None or not section.is_model:
            raise ValueError("a model judge needs kind openai or anthropic and a model")
        self.section = section
        self.concurrency = section.concurrency
        self._backoff_s = backoff_s
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
        build = openai_transport if section.kind == "openai" else anthropic_transport
        self._send: Send
        self._classify: Callable[[BaseException], Failed]
        self._send, self._classify = build(
            model=section.model,
            api_key=api_key,
            base_url=section.base_url,
            timeout_s=section.timeout_s,
            temperature=section.temperature,
            seed=section.seed,
            max_tokens=section.max_tokens,
        )

    @property
    def config(self) -> JudgeConfig:
        return self._config

    def score(self, case: GoldenCase, output: SUTOutput, rubric: Rubric) -> JudgeResult:
        texts = quotable(case, output)
        if not any(text.strip() for text in texts):  # no evidence could pass: asking would only cost
            return JudgeResult(
                dict.fromkeys(rubric.axis_names), abstained=True, reason="nothing to quote: no source text, no answer"
            )
        system = system_message(self.section.prompt_version, rubric)
        user = user_message(case, output, rubric)
        reply, call = call_with_retries(
            lambda: self._send(system, user),
            self._classify,
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
