"""A judge of your own, for when `[judge]` does not fit: your prompt, your service, the same contract.

For an OpenAI-compatible endpoint (hosted, vLLM, Ollama, llama.cpp, LiteLLM) or Anthropic you need no
code: set `[judge] kind = "openai"` or `"anthropic"` in qaeval.toml (see the README, "Plug in a real
judge"). Write a judge like this one only to change the prompt or speak another service:

    JUDGE_BASE_URL=http://localhost:8000/v1 JUDGE_API_KEY=... JUDGE_MODEL=qwen2.5-7b-instruct \\
        qaeval run --judge examples.real_judge:make_judge

It uses the official `openai` SDK (`pip install openai`: its own dependency), whose own retries wait out HTTP
429 (honouring Retry-After), 5xx and timeouts. Everything that changes its scores is pinned in its
`JudgeConfig`; change the prompt below and bump PROMPT_VERSION. The verdict contract, through the
public API: return a `JudgeResult` (scores on each axis's scale, the quoted span behind each); return
one with `abstained=True` and a `reason` when the case cannot be judged; raise `JudgeFailure` (with the
`JudgeCall` it cost) for a refusal, a cut-off or an invalid reply — any other exception is an error
verdict too. Never guess a score. Calibrate it against human labels (`qaeval calibrate`) before
trusting it; the gate marks the metrics of axes that are not TRUSTED.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

from qaeval_tui import (
    Attempt,
    GoldenCase,
    JudgeCall,
    JudgeConfig,
    JudgeFailure,
    JudgeResult,
    Rubric,
    SUTOutput,
)

PROMPT_VERSION = "my-judge-1"
SYSTEM = (
    "You grade one answer of a question-answering system that must answer only from the given sources and cite "
    "them. For each axis, quote the exact span (from the sources or the answer) that decides the score, then give "
    "the score from the axis's scale using its anchors. Reply with JSON only: "
    '{"<axis>": {"span": "...", "score": <int>}, ...}, or {"abstain": "<why>"} when the case cannot be judged.'
)


class ChatJudge:
    def __init__(self, base_url: str, api_key: str, model: str, seed: int = 7) -> None:
        import openai  # this example's own dependency: imported only when the judge is used

        self._client = openai.OpenAI(base_url=base_url, api_key=api_key, timeout=60, max_retries=2)
        self._config = JudgeConfig(
            name="chat-judge", model=model, temperature=0.0, seed=seed, prompt_version=PROMPT_VERSION
        )

    @property
    def config(self) -> JudgeConfig:
        return self._config

    def _prompt(self, case: GoldenCase, output: SUTOutput, rubric: Rubric) -> str:
        axes = []
        for axis in rubric.axes:
            anchors = "; ".join(f"{value} = {text}" for value, text in zip(axis.scale, axis.anchors, strict=True))
            axes.append(f"- {axis.name} ({anchors})")
        sources = "\n".join(f"[{s.id}] {s.title or ''}\n{s.text}" for s in case.sources)
        gold = case.gold_answer if case.expected_behavior == "answer" else "(the system must abstain)"
        citations = json.dumps([c.model_dump() for c in output.citations], ensure_ascii=False)
        return (
            "Axes:\n" + "\n".join(axes) + f"\n\nSources:\n{sources}\n\nQuestion: {case.question}\n"
            f"Reference answer (for answer_correctness only): {gold}\n\nSystem answer: {output.answer}\n"
            f"System abstained: {output.abstained}\nCitations: {citations}"
        )

    def score(self, case: GoldenCase, output: SUTOutput, rubric: Rubric) -> JudgeResult:
        started = time.perf_counter()
        completion = self._client.chat.completions.create(
            model=self._config.model,
            temperature=self._config.temperature,
            seed=self._config.seed,
            response_format={"type": "json_object"},
            messages=[
                {"role": "system", "content": SYSTEM},
                {"role": "user", "content": self._prompt(case, output, rubric)},
            ],
        )
        usage = completion.usage
        call = JudgeCall(
            requested_model=self._config.model,
            returned_model=completion.model,
            input_tokens=None if usage is None else usage.prompt_tokens,  # unknown stays None, never 0
            output_tokens=None if usage is None else usage.completion_tokens,
            attempts=(Attempt(latency_s=round(time.perf_counter() - started, 6)),),
        )
        choice = completion.choices[0]
        if choice.message.refusal or choice.finish_reason != "stop":
            raise JudgeFailure(f"the model did not finish its reply ({choice.finish_reason})", call)
        try:
            graded: dict[str, Any] = json.loads(choice.message.content or "")
        except ValueError:
            raise JudgeFailure("the model's reply is not JSON", call) from None
        if "abstain" in graded:
            return JudgeResult(
                {axis: None for axis in rubric.axis_names}, abstained=True, reason=str(graded["abstain"]), call=call
            )
        scores: dict[str, int | None] = {}
        evidence: dict[str, str] = {}
        for axis in rubric.axes:
            item = graded.get(axis.name)
            if not isinstance(item, dict) or item.get("score") not in axis.scale or not item.get("span"):
                raise JudgeFailure(f"{axis.name}: no score on {list(axis.scale)} with a quoted span", call)
            scores[axis.name] = item["score"]
            evidence[axis.name] = str(item["span"])
        return JudgeResult(scores, evidence, call=call)


def make_judge() -> ChatJudge:
    """Zero-argument factory for --judge (configuration comes from the environment)."""
    missing = [name for name in ("JUDGE_BASE_URL", "JUDGE_API_KEY", "JUDGE_MODEL") if not os.environ.get(name)]
    if missing:
        raise RuntimeError(f"set {', '.join(missing)} to use the chat judge")
    return ChatJudge(os.environ["JUDGE_BASE_URL"], os.environ["JUDGE_API_KEY"], os.environ["JUDGE_MODEL"])
