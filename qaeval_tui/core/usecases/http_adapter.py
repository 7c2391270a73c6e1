"""The system under test served over HTTP (`[run] adapter = "http"`, `[run.http]`; README "Plug in your
system over HTTP").

Each case is one `POST` of a JSON object holding only the case view, `{"id", "question",
"sources": [{"id", "title", "text"}]}`; the reply is one JSON object `{"answer", "citations",
"retrieved_ids", "abstained", "model_was_called", "prompt", "computed"}` (only `answer` is
required). A timeout, a network error, a 5xx or a 429 is tried again (tenacity: exponential
backoff with jitter, a 429's or 503's `Retry-After` honoured); any other 4xx is not. Whatever goes
wrong ends as that case's adapter error naming what and where (`citations[0].source_id: ...`),
never as a crash of the run.
"""

from __future__ import annotations

import email.utils
import math
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from tenacity import RetryCallState, Retrying, retry_if_exception_type, stop_after_attempt, wait_random_exponential
from tenacity.stop import stop_base

from qaeval_tui.core import jsonl
from qaeval_tui.core.config import HttpSystemConfig
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.jsonl import RefusedJSON
from qaeval_tui.core.models.run import CaseView, Citation, SUTOutput
from qaeval_tui.core.text import one_line

if TYPE_CHECKING:
    import httpx

HTTP_ADAPTER = "http"
_REASON_CHARS = 200


class _Strict(BaseModel):
    # A misspelt key is an error, not a default silently used; "true" is no boolean, 3 no text.
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class _ReplyCitation(_Strict):
    source_id: str
    quote: str | None = None
    claim: str | None = None


class _Reply(_Strict):
    """The reply's JSON object."""

    answer: str
    citations: list[_ReplyCitation] = Field(default_factory=list)
    retrieved_ids: list[str] = Field(default_factory=list)
    abstained: bool = False
    model_was_called: bool = False
    prompt: str = ""
    computed: dict[str, str | int | float] = Field(default_factory=dict)


class _Transient(Exception):
    """A failure worth another attempt; `retry_after` is what the server asked for, in seconds."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class _Final(Exception):
    """A failure no retry will mend (a 4xx other than 429, a malformed reply)."""


def request_body(view: CaseView) -> dict[str, Any]:
    """What the system receives for one case: the opaque id, the question and the sources, nothing more."""
    return {
        "id": view.opaque_id,
        "question": view.question,
        "sources": [{"id": source.id, "title": source.title, "text": source.text} for source in view.sources],
    }


def parse_reply(payload: object) -> SUTOutput:
    """The reply as a SUTOutput; `_Final` names the first field that is wrong, by its JSON path."""
    if not isinstance(payload, dict):
        raise _Final(f"the reply is a JSON {_json_type(payload)}, not an object")
    try:
        reply = _Reply.model_validate(payload)
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        raise _Final(f"{_json_path(error['loc']) or 'the reply'}: {one_line(error['msg'])}") from None
    return SUTOutput(
        answer=reply.answer,
        citations=tuple(Citation(**citation.model_dump()) for citation in reply.citations),
        retrieved_ids=tuple(reply.retrieved_ids),
        abstained=reply.abstained,
        model_was_called=reply.model_was_called,
        prompt=reply.prompt,
        computed=reply.computed,
    )


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """A `Retry-After` header as seconds: delta-seconds or an HTTP date; None when absent or unreadable."""
    if value is None:
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    seconds = when.timestamp() - (time.time() if now is None else now)
    return max(0.0, seconds) if math.isfinite(seconds) else None


@dataclass
class HttpStats:
    """What the adapter did, for the run's record: requests sent and retries among them."""

    requests: int = 0
    retries: int = 0


class HttpSystem:
    """A `SystemAdapter` that POSTs each case view to `[run.http] url`; thread-safe, bounded by `concurrency`."""

    def __init__(self, settings: HttpSystemConfig, *, token: str | None = None, sleep: Any = time.sleep) -> None:
        self.settings = settings
        parts = urlsplit(settings.url)
        host = parts.netloc.rpartition("@")[2]  # no user:password, no query: either may carry a key
        self.name = f"http {host}{parts.path}"
        import httpx  # only when a system is served over HTTP (httpx also pulls in rich, if installed)

        self._httpx = httpx
        headers = {"Accept": "application/json", **settings.headers}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        self._client = httpx.Client(
            timeout=httpx.Timeout(settings.timeout_s),
            headers=headers,
            limits=httpx.Limits(max_connections=settings.concurrency, max_keepalive_connections=settings.concurrency),
            follow_redirects=False,
        )
        self._slots = threading.BoundedSemaphore(settings.concurrency)
        self._sleep = sleep
        self._lock = threading.Lock()
        self.stats = HttpStats()

    def answer(self, view: CaseView) -> SUTOutput:
        body = request_body(view)
        attempts = 0

        def attempt() -> SUTOutput:
            nonlocal attempts
            attempts += 1
            with self._lock:
                self.stats.requests += 1
                self.stats.retries += attempts > 1
            self._slots.acquire()  # released by the exchange when it ends, which may be after its deadline
            return self._once(body)

        retrying = Retrying(
            stop=stop_after_attempt(self.settings.max_retries + 1) | stop_when(self._asked_too_long),
            wait=self._wait,
            retry=retry_if_exception_type(_Transient),
            sleep=self._sleep,
            reraise=True,
        )
        try:
            return retrying(attempt)
        except _Transient as exc:
            tries = f"{attempts} attempt{'s' if attempts != 1 else ''}"
            return SUTOutput(error=f"the HTTP system failed: {exc} ({tries})")
        except _Final as exc:
            return SUTOutput(error=f"the HTTP system failed: {exc}")

    def close(self) -> None:
        self._client.close()

    def _once(self, body: dict[str, Any]) -> SUTOutput:
        """One attempt, bounded as a whole by `timeout_s`: connecting, sending and the reply to its last
        byte. httpx bounds each read, not the sum (a server dripping a byte a second keeps a read alive
        for ever), so the exchange runs beside the caller, who stops waiting at the deadline; the
        exchange itself gives up at its next byte past it, holding its concurrency slot till then."""
        timeout = self.settings.timeout_s
        deadline = time.monotonic() + timeout
        outcome: list[SUTOutput | BaseException] = []
        finished = threading.Event()

        def exchange() -> None:
            try:
                outcome.append(self._exchange(body, deadline))
            except BaseException as exc:  # handed to the caller, who raises it
                outcome.append(exc)
            finally:
                self._slots.release()
                finished.set()

        try:
            threading.Thread(target=exchange, name="qaeval-http-attempt", daemon=True).start()
        except BaseException:
            self._slots.release()
            raise
        if not finished.wait(timeout):
            raise _Transient(f"no reply within timeout_s = {timeout:g}")
        result = outcome[0]
        if isinstance(result, BaseException):
            raise result
        return result

    def _exchange(self, body: dict[str, Any], deadline: float) -> SUTOutput:
        httpx = self._httpx
        limit = self.settings.max_reply_bytes
        try:
            with self._client.stream("POST", self.settings.url, json=body) as response:
                status = response.status_code
                if status == 429 or status >= 500:
                    raise _Transient(_status_text(response), retry_after_seconds(response.headers.get("retry-after")))
                if not 200 <= status < 300:
                    raise _Final(_status_text(response))
                declared = response.headers.get("content-length", "")
                if declared.strip().isdigit() and int(declared) > limit:
                    raise _Final(f"the reply is {int(declared)} bytes, more than max_reply_bytes = {limit}")
                received = bytearray()
                for chunk in response.iter_bytes():
                    received += chunk
                    if len(received) > limit:
                        raise _Final(f"the reply is more than max_reply_bytes = {limit} bytes; the rest was not read")
                    if time.monotonic() > deadline:
                        raise _Transient(f"no reply within timeout_s = {self.settings.timeout_s:g}")
        except httpx.TimeoutException:
            raise _Transient(f"no reply within timeout_s = {self.settings.timeout_s:g}") from None
        except httpx.TransportError as exc:
            raise _Transient(f"network error: {one_line(type(exc).__name__)}") from None
        try:
            payload = jsonl.loads(bytes(received))
        except RefusedJSON as exc:
            raise _Final(f"the reply is refused: {one_line(exc.field)}: {one_line(exc.msg)[:_REASON_CHARS]}") from None
        except (ValueError, UnicodeDecodeError) as exc:
            raise _Final(f"the reply is not JSON: {one_line(str(exc))[:_REASON_CHARS]}") from None
        return parse_reply(payload)

    def _wait(self, state: RetryCallState) -> float:
        asked = _asked(state)
        if asked is not None:
            return asked
        backoff = wait_random_exponential(multiplier=self.settings.backoff_s, max=self.settings.max_wait_s)
        return float(backoff(state))

    def _asked_too_long(self, state: RetryCallState) -> bool:
        asked = _asked(state)
        return asked is not None and asked > self.settings.max_wait_s


class stop_when(stop_base):
    """A tenacity stop condition from a predicate on the retry state."""

    def __init__(self, predicate: Callable[[RetryCallState], bool]) -> None:
        self.predicate = predicate

    def __call__(self, retry_state: RetryCallState) -> bool:
        return self.predicate(retry_state)


def _asked(state: RetryCallState) -> float | None:
    outcome = state.outcome
    error = None if outcome is None else outcome.exception()
    return error.retry_after if isinstance(error, _Transient) else None


def _status_text(response: httpx.Response) -> str:
    text = f"HTTP {response.status_code}"
    if response.reason_phrase:
        text += f" {one_line(response.reason_phrase)}"
    asked = response.headers.get("retry-after")
    return f"{text} (Retry-After: {one_line(asked)[:40]})" if asked is not None else text


def _json_path(loc: tuple[int | str, ...]) -> str:
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    return {bool: "boolean", str: "string", list: "array", int: "number", float: "number"}.get(type(value), "value")


def make_http_system(settings: HttpSystemConfig | None) -> HttpSystem:
    """The configured HTTP system; a missing `[run.http]` or token is a UsageError before any case runs."""
    if settings is None:
        raise UsageError('[run] adapter = "http" needs a [run.http] table with at least url = "http://..."')
    token = None
    if settings.token_env is not None:
        token = os.environ.get(settings.token_env, "")
        if not token.strip():
            raise UsageError(f"[run.http] token_env: the environment variable {settings.token_env} is not set")
    return HttpSystem(settings, token=token)
