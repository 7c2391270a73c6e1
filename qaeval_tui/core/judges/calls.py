"""One judge request with retries, every attempt timed and its failure recorded.

Retried: a timeout, a network error, HTTP 429 (waiting at least what `Retry-After` asks, up to
`MAX_WAIT_S`) and HTTP 5xx, with exponential backoff. Never retried: authentication and other 4xx
answers, a refusal, a truncated reply, a reply that is not the protocol or fails validation (asking
again at temperature 0 would pay for the same answer). A failure is a `JudgeFailure` with one
sanitized line and what the call cost; no upstream error body or exception text is ever recorded.
The calls are coroutines: a run keeps `concurrency` of them in flight on one event loop.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

from qaeval_tui.core.models.run import Attempt
from qaeval_tui.core.running.judge import JudgeCall, JudgeFailure

MAX_WAIT_S = 30.0
"""The longest pause between two attempts, whatever a Retry-After asks."""


Stop = Literal["done", "truncated", "refused"]


@dataclass(frozen=True)
class Reply:
    """A completed request: the text, how the model stopped, the model that answered and its tokens."""

    text: str
    stop: Stop
    returned_model: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None


@dataclass(frozen=True)
class Failed:
    """A request that failed: a short code for the attempt (`timeout`, `network`, `http_429`...), the line
    for the verdict, whether it is worth another attempt, and the wait the server asked for."""

    code: str
    reason: str
    retryable: bool
    retry_after: float | None = None


class AttemptFailed(Exception):
    """One attempt failed as `failed` says (raised by a transport; `call_with_retries` decides what follows)."""

    def __init__(self, failed: Failed) -> None:
        super().__init__(failed.code)
        self.failed = failed


async def call_with_retries(
    send: Callable[[], Awaitable[Reply]],
    *,
    requested_model: str,
    max_retries: int,
    backoff_s: float = 0.5,
) -> tuple[Reply, JudgeCall]:
    """`await send()` until it succeeds or a failure is final; the reply and what the call cost."""
    attempts: list[Attempt] = []
    replies: list[Reply] = []

    def spent() -> JudgeCall:
        return JudgeCall(
            requested_model=requested_model,
            returned_model=replies[-1].returned_model if replies else None,
            input_tokens=_total([r.input_tokens for r in replies]),
            output_tokens=_total([r.output_tokens for r in replies]),
            attempts=tuple(attempts),
        )

    for number in range(1, max_retries + 2):
        started = time.perf_counter()
        try:
            reply = await send()
        except AttemptFailed as exc:
            failed = exc.failed
        except Exception as exc:  # anything else the request path lets through: this attempt's failure, data
            failed = Failed("request_failed", f"the judge's request failed ({type(exc).__name__})", False)
        else:
            attempts.append(Attempt(latency_s=round(time.perf_counter() - started, 6)))
            replies.append(reply)
            break
        attempts.append(Attempt(latency_s=round(time.perf_counter() - started, 6), error=failed.code))
        if not failed.retryable:
            raise JudgeFailure(failed.reason, spent())
        if number > max_retries:
            tries = len(attempts)
            raise JudgeFailure(f"{failed.reason} (after {tries} attempt{'s' if tries != 1 else ''})", spent())
        await asyncio.sleep(min(MAX_WAIT_S, max(backoff_s * 2 ** (number - 1), failed.retry_after or 0.0)))
    if reply.stop == "refused":
        raise JudgeFailure("the judge refused to grade this case", spent())
    if reply.stop == "truncated":
        raise JudgeFailure("the judge's reply was cut off at max_tokens (truncated)", spent())
    return reply, spent()


def _total(values: list[int | None]) -> int | None:
    """The sum over the replies received; None when there was none or one did not say (unknown is never 0).

    A failed attempt (an HTTP error, a timeout) returned no usage and is not counted."""
    if not values or any(value is None for value in values):
        return None
    return sum(value for value in values if value is not None)
