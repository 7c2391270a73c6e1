"""The providers' wire protocols over one pooled async HTTP client: a request body out, a `Reply` or a `Failed` back.

`PROTOCOLS` holds each protocol once (`OpenAIChat`, `AnthropicMessages`); a provider of `PROVIDERS`
(config/judge_providers.py) names the one it speaks, and `transport` builds its `send`.

The request path is one pooled aiohttp session, not the providers' SDKs: a judge needs one POST per
protocol, and the SDK path cost ~1.6 ms of CPU a call (models built and validated for every reply; the
async SDKs' httpx pool polls every idle connection on every request, quadratic in `concurrency`),
bounded each read rather than the whole attempt, read a reply of any size whole, and handed back
whatever strings the server sent. Here each attempt is bounded whole by
`timeout_s` (connect, headers and every byte of the body: a server dripping one byte at a time
cannot keep it alive), a reply is read up to `MAX_REPLY_BYTES`, and the reply is read strictly: every
field the verdict records must be of its protocol's type and valid Unicode, else the attempt fails as
`invalid_response` (never retried, never a crash). Auth and endpoints are what the SDKs send:
`Authorization: Bearer` for OpenAI-compatible APIs, `x-api-key` and `anthropic-version` for Anthropic,
the SDKs' base-URL environment variables, and their default hosts.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import functools
import json
import math
import os
import ssl
import time
import weakref
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol
from urllib.parse import urlsplit

import aiohttp

from qaeval_tui.core.config.judge_providers import Provider
from qaeval_tui.core.judges.calls import AttemptFailed, Failed, Reply, Stop
from qaeval_tui.core.judges.prompt import json_string

MAX_REPLY_BYTES = 4 * 1024 * 1024
"""The largest reply body read (a judgment of `max_tokens` tokens is a few kilobytes)."""

MAX_TOKEN_COUNT = 10**12
"""A usage count above this is no count a reply could have: recorded as unknown (None), never summed or priced."""

ANTHROPIC_VERSION = "2023-06-01"

Send = Callable[[str, str], Awaitable[Reply]]
"""(system message, user message) -> the reply (or `AttemptFailed`)."""

_NOT_PROTOCOL = Failed("invalid_response", "the judge's API returned a response that is not its protocol", False)


class Endpoint:
    """One URL and its headers, POSTed through one pooled `aiohttp.ClientSession` per event loop."""

    def __init__(self, url: str, headers: Mapping[str, str], *, timeout_s: float, connections: int) -> None:
        self.url = url
        self.headers = {"content-type": "application/json", "accept": "application/json", **headers}
        self.timeout_s = timeout_s
        self.connections = connections
        self._session: aiohttp.ClientSession | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closer: weakref.finalize[Any, Any] | None = None
        self._proxy = _env_proxy(url)

    def _pooled(self) -> aiohttp.ClientSession:
        loop = asyncio.get_running_loop()
        if self._session is None or self._loop is not loop:  # a pool belongs to the loop it was made on
            if self._closer is not None:
                self._closer()  # the previous loop's pool, closed on that loop if it still runs
            connector = aiohttp.TCPConnector(
                limit=self.connections,
                limit_per_host=self.connections,
                ssl=_tls_context() if self.url.startswith("https:") else True,
            )
            self._session = aiohttp.ClientSession(
                connector=connector,
                headers=self.headers,
                timeout=aiohttp.ClientTimeout(),  # none of its own: `post` bounds each attempt whole
                trust_env=False,  # the proxy is read from the environment once (`_env_proxy`), not per request
                auto_decompress=True,
            )
            self._loop = loop
            self._closer = weakref.finalize(self, _close_later, self._session, loop)
        return self._session

    async def aclose(self) -> None:
        """Close the pool of the running loop (a run's loop ends with the run)."""
        session, self._session = self._session, None
        if self._closer is not None:
            self._closer.detach()
            self._closer = None
        if session is not None and self._loop is asyncio.get_running_loop():
            await session.close()
        self._loop = None

    async def post(self, data: bytes) -> dict[str, Any]:
        """The reply's JSON object to the JSON body `data`; `AttemptFailed` for a timeout, a network or HTTP
        error, a non-protocol reply."""
        session = self._pooled()
        try:
            async with asyncio.timeout(self.timeout_s):  # the whole attempt, every byte of the reply included
                async with session.post(self.url, data=data, proxy=self._proxy) as response:
                    status, headers = response.status, response.headers
                    content = await _capped(response.content) if 200 <= status < 300 else b""
        except TimeoutError:
            raise AttemptFailed(Failed("timeout", "the judge's request timed out", True)) from None
        except (aiohttp.ClientError, OSError):
            raise AttemptFailed(Failed("network", "the judge's endpoint could not be reached", True)) from None
        if not 200 <= status < 300:
            raise AttemptFailed(status_failure(status, headers))
        try:
            document = json.loads(content)
        except (ValueError, RecursionError):
            raise AttemptFailed(_NOT_PROTOCOL) from None
        if not isinstance(document, dict):
            raise AttemptFailed(_NOT_PROTOCOL)
        return document


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """The certificates the SDKs trusted: `SSL_CERT_FILE` when set, else certifi's bundle, else the system's."""
    cafile = os.environ.get("SSL_CERT_FILE")
    if not cafile:
        try:
            import certifi

            cafile = certifi.where()
        except ImportError:
            cafile = None
    return ssl.create_default_context(cafile=cafile)


def _env_proxy(url: str) -> str | None:
    """The proxy `HTTPS_PROXY`/`HTTP_PROXY` name for `url`, unless `NO_PROXY` exempts its host (as the SDKs do)."""
    import urllib.request

    parts = urlsplit(url)
    if parts.hostname is None or urllib.request.proxy_bypass(parts.hostname):
        return None
    return urllib.request.getproxies().get(parts.scheme)


def _close_later(session: aiohttp.ClientSession, loop: asyncio.AbstractEventLoop) -> None:
    """Close a pool whose judge is gone, on its own loop, if that loop still runs (the shared background one)."""
    if loop.is_closed() or session.closed:
        return
    with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
        asyncio.run_coroutine_threadsafe(session.close(), loop)


async def _capped(stream: aiohttp.StreamReader) -> bytes:
    chunks: list[bytes] = []
    size = 0
    async for chunk in stream.iter_any():
        size += len(chunk)
        if size > MAX_REPLY_BYTES:
            raise AttemptFailed(
                Failed(
                    "reply_too_large",
                    f"the judge's reply is larger than {MAX_REPLY_BYTES // (1024 * 1024)} MiB; not read, not retried",
                    False,
                )
            )
        chunks.append(chunk)
    return b"".join(chunks)


def status_failure(status: int, headers: Mapping[str, str]) -> Failed:
    """An HTTP error as a code, a line and whether to retry (429 with the wait the server asks for, 5xx)."""
    code = f"http_{status}"
    if status == 429:
        return Failed(code, "the judge's API is rate limiting (HTTP 429)", True, _retry_after(headers))
    if status >= 500:
        return Failed(code, f"the judge's API failed (HTTP {status})", True)
    if status in (401, 403):
        return Failed(code, f"the judge's API refused the credentials (HTTP {status}); not retried", False)
    return Failed(code, f"the judge's API rejected the request (HTTP {status}); not retried", False)


JsonBody = dict[str, Any]


class WireProtocol(Protocol):
    """How one provider API is spoken: where a request goes, what it carries, and how its reply reads."""

    path: str
    """Appended to the provider's base URL."""

    def headers(self, api_key: str) -> dict[str, str]:
        """The authentication (and version) headers of every request."""
        ...

    def body(self, *, model: str, system: str, user: str, temperature: float, seed: int, max_tokens: int) -> JsonBody:
        """One judge call's request body."""
        ...

    def reply(self, document: dict[str, Any]) -> Reply:
        """The reply's JSON read strictly (`AttemptFailed` when it is not the protocol's)."""
        ...


class OpenAIChat:
    """The OpenAI chat-completions protocol, which OpenAI-compatible hosts speak too."""

    path = "/chat/completions"

    def headers(self, api_key: str) -> dict[str, str]:
        return {"authorization": f"Bearer {api_key}"}

    def body(self, *, model: str, system: str, user: str, temperature: float, seed: int, max_tokens: int) -> JsonBody:
        return {
            "model": model,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
            "temperature": temperature,
            "seed": seed,
            "max_tokens": max_tokens,
            "response_format": {"type": "json_object"},
        }

    def reply(self, document: dict[str, Any]) -> Reply:
        return openai_reply(document)


class AnthropicMessages:
    """The Anthropic messages protocol (no seed: the API takes none)."""

    path = "/v1/messages"

    def headers(self, api_key: str) -> dict[str, str]:
        return {"x-api-key": api_key, "anthropic-version": ANTHROPIC_VERSION}

    def body(self, *, model: str, system: str, user: str, temperature: float, seed: int, max_tokens: int) -> JsonBody:
        return {
            "model": model,
            "system": system,
            "messages": [{"role": "user", "content": user}],
            "max_tokens": max_tokens,
            "temperature": temperature,
        }

    def reply(self, document: dict[str, Any]) -> Reply:
        return anthropic_reply(document)


PROTOCOLS: Mapping[str, WireProtocol] = {"openai-chat": OpenAIChat(), "anthropic-messages": AnthropicMessages()}
"""The wire protocols a provider of `PROVIDERS` (config/judge_providers.py) can name."""


def transport(
    provider: Provider,
    *,
    model: str,
    api_key: str,
    base_url: str | None,
    timeout_s: float,
    temperature: float,
    seed: int,
    max_tokens: int,
    connections: int = 8,
    environ: Mapping[str, str] | None = None,
) -> tuple[Send, Endpoint]:
    """The provider's `send` and the pooled endpoint it posts to: `base_url`, else the provider's environment
    variable, else its default host; its protocol's headers plus those its SDK reads from the environment."""
    env = os.environ if environ is None else environ
    protocol = PROTOCOLS[provider.protocol]
    root = base_url or env.get(provider.base_url_env) or provider.base_url
    headers = protocol.headers(api_key)
    for variable, header in provider.env_headers:
        if env.get(variable):
            headers[header] = env[variable]
    endpoint = Endpoint(f"{root.rstrip('/')}{protocol.path}", headers, timeout_s=timeout_s, connections=connections)
    write = BodyWriter(protocol, model=model, temperature=temperature, seed=seed, max_tokens=max_tokens)

    async def send(system: str, user: str) -> Reply:
        return protocol.reply(await endpoint.post(write(system, user)))

    return send, endpoint


class BodyWriter:
    """One call's request body, `json.dumps(protocol.body(...), ensure_ascii=False)` in UTF-8. All but the user
    message is the same for every call with the same system message: that frame is written once, and each call
    writes only its user message into it."""

    _MARK = "\x00qaeval:user-message\x00"

    def __init__(self, protocol: WireProtocol, *, model: str, temperature: float, seed: int, max_tokens: int) -> None:
        self._protocol = protocol
        self._model, self._temperature, self._seed, self._max_tokens = model, temperature, seed, max_tokens
        self._framed: tuple[str, tuple[str, str] | None] | None = None  # (system message, its frame): set at once

    def __call__(self, system: str, user: str) -> bytes:
        framed = self._framed
        if framed is None or framed[0] != system:
            framed = self._framed = (system, self._frame(system))
        frame = framed[1]
        if frame is None:
            return json.dumps(self._body(system, user), ensure_ascii=False).encode("utf-8")
        return (frame[0] + json_string(user) + frame[1]).encode("utf-8")

    def _body(self, system: str, user: str) -> JsonBody:
        return self._protocol.body(
            model=self._model,
            system=system,
            user=user,
            temperature=self._temperature,
            seed=self._seed,
            max_tokens=self._max_tokens,
        )

    def _frame(self, system: str) -> tuple[str, str] | None:
        """The body's JSON text before and after the user message's string, or None when the mark written in its
        place is not found exactly once (a system message or a model name holding it: each body is written whole)."""
        parts = json.dumps(self._body(system, self._MARK), ensure_ascii=False).split(json_string(self._MARK))
        return (parts[0], parts[1]) if len(parts) == 2 else None


def openai_reply(document: dict[str, Any]) -> Reply:
    """A chat completion read strictly (`AttemptFailed` when it is not one)."""
    returned = _model(document)
    tokens = _tokens(document.get("usage"), "prompt_tokens", "completion_tokens")
    choices = document.get("choices")
    if choices is None or choices == []:
        return Reply("", "refused", returned, *tokens)
    if not isinstance(choices, list) or not isinstance(choices[0], dict):
        raise AttemptFailed(_NOT_PROTOCOL)
    choice = choices[0]
    message = choice.get("message")
    finish = choice.get("finish_reason")
    if not isinstance(message, dict) or not isinstance(finish, str | None):
        raise AttemptFailed(_NOT_PROTOCOL)
    content, refusal = message.get("content"), message.get("refusal")
    if not isinstance(content, str | None) or not isinstance(refusal, str | None):
        raise AttemptFailed(_NOT_PROTOCOL)
    stop: Stop = "refused" if refusal or finish == "content_filter" else "done" if finish == "stop" else "truncated"
    return Reply(_text(content or ""), stop, returned, *tokens)


def anthropic_reply(document: dict[str, Any]) -> Reply:
    """A message read strictly (`AttemptFailed` when it is not one)."""
    returned = _model(document)
    tokens = _tokens(document.get("usage"), "input_tokens", "output_tokens")
    blocks = document.get("content") or []
    reason = document.get("stop_reason")
    if not isinstance(blocks, list) or not all(isinstance(block, dict) for block in blocks):
        raise AttemptFailed(_NOT_PROTOCOL)
    texts = [block.get("text") for block in blocks if block.get("type") == "text"]
    if not all(isinstance(text, str) for text in texts) or not isinstance(reason, str | None):
        raise AttemptFailed(_NOT_PROTOCOL)
    stop: Stop = "done" if reason == "end_turn" else "refused" if reason == "refusal" else "truncated"
    return Reply(_text("".join(str(text) for text in texts)), stop, returned, *tokens)


def _model(document: Mapping[str, Any]) -> str | None:
    value = document.get("model")
    if value is None:
        return None
    if not isinstance(value, str):
        raise AttemptFailed(_NOT_PROTOCOL)
    if not _is_text(value):
        raise AttemptFailed(
            Failed("invalid_response", "the judge's API returned a model name that is not valid Unicode", False)
        )
    return value


def _text(value: str) -> str:
    if not _is_text(value):
        raise AttemptFailed(
            Failed("invalid_response", "the judge's API returned a reply that is not valid Unicode", False)
        )
    return value


def _is_text(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:  # half a UTF-16 pair, sent as a \\ud800 escape
        return False
    return True


def _tokens(usage: object, given: str, produced: str) -> tuple[int | None, int | None]:
    if not isinstance(usage, dict):
        return None, None
    return _count(usage.get(given)), _count(usage.get(produced))


def _count(value: object) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_TOKEN_COUNT:
        return value
    return None


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
    except (TypeError, ValueError, IndexError, OverflowError):
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
