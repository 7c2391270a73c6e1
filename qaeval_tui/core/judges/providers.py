"""The providers' official SDKs behind one `send` and one `classify` (imported only when a judge is built).

Each SDK's own retries are off (`max_retries=0`): `calls` retries, so every attempt is timed and counted.
"""

from __future__ import annotations

import email.utils
import math
import time
from collections.abc import Callable, Mapping
from typing import Any

from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.judges.calls import Failed, Reply, Stop

Send = Callable[[str, str], Reply]
"""(system message, user message) -> the reply."""


def _sdk(name: str) -> Any:
    import importlib

    try:
        return importlib.import_module(name)
    except ImportError:
        raise UsageError(f"judge kind {name!r} needs the {name!r} package: pip install 'qaeval_tui[llm]'") from None


def openai_transport(
    *, model: str, api_key: str, base_url: str | None, timeout_s: float, temperature: float, seed: int, max_tokens: int
) -> tuple[Send, Callable[[BaseException], Failed]]:
    sdk = _sdk("openai")
    client = sdk.OpenAI(api_key=api_key, base_url=base_url, timeout=timeout_s, max_retries=0)

    def send(system: str, user: str) -> Reply:
        completion = client.chat.completions.create(
            model=model,
            messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
            temperature=temperature,
            seed=seed,
            max_tokens=max_tokens,
            response_format={"type": "json_object"},
        )
        usage = getattr(completion, "usage", None)
        choices = completion.choices or []
        if not choices:
            return Reply("", "refused", completion.model, *_openai_tokens(usage))
        choice = choices[0]
        message = choice.message
        refused = getattr(message, "refusal", None) or choice.finish_reason == "content_filter"
        stop: Stop = "refused" if refused else "done" if choice.finish_reason == "stop" else "truncated"
        return Reply(message.content or "", stop, completion.model, *_openai_tokens(usage))

    return send, lambda exc: classify(sdk, exc)


def _openai_tokens(usage: Any) -> tuple[int | None, int | None]:
    if usage is None:
        return None, None
    return _count(getattr(usage, "prompt_tokens", None)), _count(getattr(usage, "completion_tokens", None))


def anthropic_transport(
    *, model: str, api_key: str, base_url: str | None, timeout_s: float, temperature: float, seed: int, max_tokens: int
) -> tuple[Send, Callable[[BaseException], Failed]]:
    sdk = _sdk("anthropic")
    client = sdk.Anthropic(api_key=api_key, base_url=base_url, timeout=timeout_s, max_retries=0)

    def send(system: str, user: str) -> Reply:
        message = client.messages.create(
            model=model,
            system=system,
            messages=[{"role": "user", "content": user}],
            max_tokens=max_tokens,
            extra_body={"temperature": temperature},  # the SDK no longer names it; the API still reads it
        )
        text = "".join(getattr(block, "text", "") for block in message.content or [] if block.type == "text")
        reason = message.stop_reason
        stop: Stop = "done" if reason == "end_turn" else "refused" if reason == "refusal" else "truncated"
        usage = getattr(message, "usage", None)
        tokens = (None, None) if usage is None else (_count(usage.input_tokens), _count(usage.output_tokens))
        return Reply(text, stop, message.model, *tokens)

    return send, lambda exc: classify(sdk, exc)


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def classify(sdk: Any, exc: BaseException) -> Failed:
    """A request failure as a code, a line and whether to retry; the two SDKs share their error classes' names."""
    if isinstance(exc, sdk.APITimeoutError):
        return Failed("timeout", "the judge's request timed out", True)
    if isinstance(exc, sdk.APIConnectionError):
        return Failed("network", "the judge's endpoint could not be reached", True)
    if isinstance(exc, sdk.APIStatusError):
        status = int(exc.status_code)
        code = f"http_{status}"
        if status == 429:
            return Failed(code, "the judge's API is rate limiting (HTTP 429)", True, _retry_after(exc.response.headers))
        if status >= 500:
            return Failed(code, f"the judge's API failed (HTTP {status})", True)
        if status in (401, 403):
            return Failed(code, f"the judge's API refused the credentials (HTTP {status}); not retried", False)
        return Failed(code, f"the judge's API rejected the request (HTTP {status}); not retried", False)
    if isinstance(exc, sdk.APIResponseValidationError):
        return Failed("invalid_response", "the judge's API returned a response that is not its protocol", False)
    return Failed("request_failed", f"the judge's request failed ({type(exc).__name__})", False)


def _retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds the server asks to wait: `retry-after-ms`, else `Retry-After` in seconds or as an HTTP date."""
    milliseconds = _seconds(headers.get("retry-after-ms"))
    if milliseconds is not None:
        return milliseconds / 1000
    value = headers.get("retry-after")
    if value is None:
        return None
    seconds = _seconds(value)
    if seconds is not None:
        return seconds
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, moment.timestamp() - time.time())


def _seconds(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return max(0.0, number) if math.isfinite(number) else None
