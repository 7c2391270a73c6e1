"""A model-like judge for the cache tests: each score is one POST to a loopback server (its URL in
QAEVAL_TEST_JUDGE_URL) whose scripted reply holds the scores and the tokens the "model" used."""

from __future__ import annotations

import os

import httpx

from qaeval_tui import GoldenCase, JudgeConfig, JudgeResult, Rubric, SUTOutput
from qaeval_tui.core.models.run import Attempt
from qaeval_tui.core.running.judge import JudgeCall, JudgeFailure

URL_ENV = "QAEVAL_TEST_JUDGE_URL"


class LoopbackJudge:
    def __init__(self, url: str) -> None:
        self.url = url
        self.config = JudgeConfig(name="loopback", model="scripted-1", prompt_version="test-1")
        self._client = httpx.Client(timeout=10)

    def score(self, case: GoldenCase, output: SUTOutput, rubric: Rubric) -> JudgeResult:
        response = self._client.post(self.url, json={"id": case.id, "question": case.question, "answer": output.answer})
        call = JudgeCall(requested_model="scripted-1", attempts=(Attempt(latency_s=0.0),))
        if response.status_code != 200:
            raise JudgeFailure(f"HTTP {response.status_code}", call)
        body = response.json()
        call = JudgeCall(
            requested_model="scripted-1",
            returned_model=body.get("model"),
            input_tokens=body.get("input_tokens"),
            output_tokens=body.get("output_tokens"),
            attempts=call.attempts,
        )
        scores = {axis: body["scores"].get(axis) for axis in rubric.axis_names}
        return JudgeResult(scores, {}, call=call)


def make_loopback_judge() -> LoopbackJudge:
    return LoopbackJudge(os.environ[URL_ENV])
