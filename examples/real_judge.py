"""A real-model judge: how to plug an LLM behind `qaeval run --judge`.

    qaeval run --judge examples.real_judge:make_judge

It speaks the OpenAI-compatible chat-completions protocol over plain HTTP (set JUDGE_BASE_URL,
JUDGE_API_KEY and JUDGE_MODEL), at temperature 0 with a fixed seed. Everything that changes its
behaviour is pinned in its JudgeConfig (model, temperature, seed, prompt version), and that
config's hash is recorded in every verdict: change the prompt below, bump PROMPT_VERSION.

The judge must quote the span behind each score. If the model's reply is not valid JSON or a
score falls outside the rubric's scale, `score` raises, and qaeval records an error verdict for
that item instead of crashing the run. Before trusting its scores, calibrate it against human
labels (`qaeval calibrate`); the gate marks metrics from axes that are not TRUSTED.
"""

from __future__ import annotations

import json
import os
import urllib.request
from typing import Any

from qaeval_tui import GoldenCase, JudgeConfig, JudgeResult, Rubric, SUTOutput

PROMPT_VERSION = "llm-judge-1"
SYSTEM = (
    "You grade one answer of a question-answering system that must answer only from the given sources and cite "
    "them. For each axis, first quote the exact span (from the sources or the answer) that decides the score, "
    "then give the score from the axis's scale using its anchors. Reply with JSON only: "
    '{"<axis>": {"span": "...", "score": <int or null>}, ...}. Use null only when the axis cannot be judged.'
)


class ChatJudge:
    def __init__(self, base_url: str, api_key: str, model: str, seed: int = 7) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
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

    def _complete(self, prompt: str) -> str:
        body = {
            "model": self._config.model,
            "temperature": self._config.temperature,
            "seed": self._config.seed,
            "response_format": {"type": "json_object"},
            "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": prompt}],
        }
        request = urllib.request.Request(
            f"{self.base_url}/chat/completions",
            data=json.dumps(body).encode("utf-8"),
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {self.api_key}"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=60) as response:
            reply: dict[str, Any] = json.loads(response.read().decode("utf-8"))
        return str(reply["choices"][0]["message"]["content"])

    def score(self, case: GoldenCase, output: SUTOutput, rubric: Rubric) -> JudgeResult:
        graded = json.loads(self._complete(self._prompt(case, output, rubric)))
        scores: dict[str, int | None] = {}
        evidence: dict[str, str] = {}
        for axis in rubric.axes:
            item = graded.get(axis.name) or {}
            value = item.get("score")
            if value is not None and value not in axis.scale:
                raise ValueError(f"{axis.name}: score {value!r} is outside {list(axis.scale)}")
            scores[axis.name] = value
            if item.get("span"):
                evidence[axis.name] = str(item["span"])
        return JudgeResult(scores, evidence)


def make_judge() -> ChatJudge:
    """Zero-argument factory for --judge (configuration comes from the environment)."""
    missing = [name for name in ("JUDGE_BASE_URL", "JUDGE_API_KEY", "JUDGE_MODEL") if not os.environ.get(name)]
    if missing:
        raise RuntimeError(f"set {', '.join(missing)} to use the chat judge")
    return ChatJudge(os.environ["JUDGE_BASE_URL"], os.environ["JUDGE_API_KEY"], os.environ["JUDGE_MODEL"])
