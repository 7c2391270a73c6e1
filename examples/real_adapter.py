"""A real-system adapter: how to put your own RAG service behind `qaeval run --adapter`.

    qaeval gate --adapter examples.real_adapter:make_adapter --baseline baselines/prod.json

Set QA_HUB_URL to the service's answer endpoint. The adapter receives only a CaseView (an opaque
id, the question and the frozen sources) and must hand back what the checks need: the answer,
its citations (with the quoted span), the ids it retrieved, whether it abstained, whether it
called its model, and the exact prompt it sent. The service is expected to answer over the
sources it is given (the frozen fixture), not over its live index, so runs are comparable.

The request/response shape below is an example; map your service's fields in `to_output`.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from typing import Any

from qaeval_tui import CaseView, Citation, SUTOutput


class HttpHubAdapter:
    name = "prod-qa-hub"

    def __init__(self, url: str, timeout: float = 30.0, token: str | None = None) -> None:
        self.url = url
        self.timeout = timeout
        self.token = token

    def answer(self, view: CaseView) -> SUTOutput:
        payload = {
            "request_id": view.opaque_id,
            "question": view.question,
            "corpus": [{"id": s.id, "title": s.title, "text": s.text} for s in view.sources],
            "debug": {"return_prompt": True},
        }
        request = urllib.request.Request(
            self.url,
            data=json.dumps(payload).encode("utf-8"),
            headers={
                "Content-Type": "application/json",
                **({"Authorization": f"Bearer {self.token}"} if self.token else {}),
            },
            method="POST",
        )
        # Any exception here (timeout, HTTP 500, bad JSON) makes this case a failed case in the run;
        # qaeval records the error and carries on with the next case.
        with urllib.request.urlopen(request, timeout=self.timeout) as response:
            body = json.loads(response.read().decode("utf-8"))
        return self.to_output(body)

    @staticmethod
    def to_output(body: dict[str, Any]) -> SUTOutput:
        return SUTOutput(
            answer=body.get("answer", ""),
            citations=tuple(
                Citation(source_id=c["source_id"], quote=c.get("quote"), claim=c.get("claim"))
                for c in body.get("citations", [])
            ),
            retrieved_ids=tuple(body.get("retrieved_ids", [])),
            abstained=bool(body.get("abstained", False)),
            model_was_called=bool(body.get("model_called", True)),  # for fail-closed accounting
            prompt=body.get("debug", {}).get("prompt", ""),  # for grounding isolation
            computed=body.get("computed", {}),  # named intermediate values for aggregation checkpoints
        )


def make_adapter() -> HttpHubAdapter:
    """Zero-argument factory for --adapter (configuration comes from the environment)."""
    url = os.environ.get("QA_HUB_URL")
    if not url:
        raise RuntimeError("set QA_HUB_URL to your QA service's answer endpoint")
    return HttpHubAdapter(
        url, timeout=float(os.environ.get("QA_HUB_TIMEOUT", "30")), token=os.environ.get("QA_HUB_TOKEN")
    )
