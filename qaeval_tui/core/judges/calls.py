"""One judge request with retries (tenacity), every attempt timed and its failure recorded.

Retried: a timeout, a network error, HTTP 429 (waiting at least what `Retry-After` asks, up to
`MAX_WAIT_S`) and HTTP 5xx, with exponential backoff. Never retried: authentication and other 4xx
answers, a refusal, a truncated reply or a reply that fails validation (asking again at temperature 0
would pay for the same answer). A failure is a `JudgeFailure` with one sanitized line and what the
call cost; no upstream error body or exception text is ever recorded.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from tenacity import RetryCallState, Retrying, retry_if_exception_type, stop_after_attempt

from qaeval_tui.core.running.judge import JudgeCall, JudgeFailure
from qaeval_tui.core.running.models import Attempt

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


class _Transient(Exception):
    def __init__(self, failed: Failed) -> None:
        super().__init__(failed.code)
        self.failed = failed


def call_with_retries(
    send: Callable[[], Reply],
    classify: Callable[[BaseException], Failed],
    *,
    requested_model: str,
    max_retries: int,
    backoff_s: float = 0.5,
) -> tuple[Reply, JudgeCall]:
    """`send()` until it succeeds or a failure is final; the reply and what the call cost."""
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

    def once() -> Reply:
        started = time.perf_counter()
        try:
            reply = send()
        except KeyboardInterrupt:
            raise
        except Exception as exc:  # the SDK's errors, and anything else it lets through
            failed = classify(exc)
            attempts.append(Attempt(latency_s=round(time.perf_counter() - started, 6), error=failed.code))
            if failed.retryable:
                raise _Transient(failed) from None
            raise JudgeFailure(failed.reason, spent()) from None
        attempts.append(Attempt(latency_s=round(time.perf_counter() - started, 6)))
        replies.append(reply)
        return reply

    def wait(state: RetryCallState) -> float:
        backoff = backoff_s * 2 ** (state.attempt_number - 1)
        exc = state.outcome.exception() if state.outcome is not None else None
        asked = exc.failed.retry_after if isinstance(exc, _Transient) else None
        return float(min(MAX_WAIT_S, max(backoff, asked or 0.0)))

    retrying = Retrying(
        stop=stop_after_attempt(max_retries + 1),
        wait=wait,
        retry=retry_if_exception_type(_Transient),
        reraise=True,
    )
    try:
        reply = retrying(once)
    except _Transient as exc:
        tries = len(attempts)
        raise JudgeFailure(f"{exc.failed.reason} (after {tries} attempt{'s' if tries != 1 else ''})", spent()) from None
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
