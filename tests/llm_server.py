"""A real HTTP server on loopback that speaks the OpenAI chat-completions and Anthropic messages protocols,
answering with scripted replies: the judge clients are tested over the providers' real protocols, with no
network and no mocked SDK object.

    with LLMServer() as server:
        server.script(Reply.status(429, retry_after=1), Reply.judgment({"faithfulness": 2, ...}))
        section = JudgeSection(kind="openai", model="m", base_url=server.openai_base_url, ...)
        ...
        assert server.calls == 2

API (used by the judge tests and by the verdict-cache tests and bench):

- `LLMServer(latency_s=0.0)`: starts a threaded `http.server` on 127.0.0.1 and a free port; a context
  manager (`stop()` on exit also releases any reply still hanging).
- `openai_base_url` (`http://127.0.0.1:PORT/v1`, for `POST /v1/chat/completions`) and
  `anthropic_base_url` (`http://127.0.0.1:PORT`, for `POST /v1/messages`); `base_url_for(server, kind)`
  is the one a judge of any `[judge] kind` asks, from its provider's protocol (`PROTOCOL_ROOTS`), and
  `provider_keys()` a test API key in every provider's key variable: the judge tests run on every
  provider of `PROVIDERS` with no edit of theirs.
- `script(*replies)`: replies served in order, one a request, whatever the protocol; once they run out
  every request gets `default` (by default `Reply.judgment()`: a valid judgment of the case, every axis
  at the top of its scale, evidence quoted from the first source).
- `latency_s`: seconds every request waits before its reply (settable at any time; the bench uses 0.1).
- `calls` (requests received), `requests` (each one's `Request`: path, headers, parsed JSON body),
  `in_flight` and `max_in_flight` (requests being answered at once, now and at most), `reset()`.

`SpawnedLLMServer(latency_s)` runs the same server in a child process (`python -m tests.llm_server
--latency S`), so the server's work does not compete with the client's for this process's GIL (what a
throughput bench wants); it serves `default` replies only and reports `calls` and `max_in_flight`
(over `GET /_stats`); `stop()` ends the child it started.

A `Reply` is protocol-neutral, rendered as each protocol spells it:

- `Reply.text(content, finish="stop" | "length" | "refusal", usage=(in, out) | None, model=None)`;
- `Reply.judgment(scores=None, evidence=None, **text_options)`: a JSON judgment built from the request's
  case (`scores` axis -> int, default the top of each scale from the prompt; `evidence` axis -> quote,
  default the first 30 characters of the first source);
- `Reply.abstain(reason)`;
- `Reply.status(code, retry_after=None)`: an HTTP error with the provider's error body;
- `Reply.hang(seconds)`: no answer for that long (past the client's timeout), then a valid judgment;
- `Reply.drip(seconds_per_byte)`: a valid judgment whose body is sent one byte at a time, each after
  that pause (every single read is quick; the whole reply is slow);
- `Reply.oversized(size)`: a 200 reply whose body is `size` bytes of JSON whitespace, streamed (never
  held in memory).
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any, Literal

from tests.loopback_http import LoopbackHTTPServer

Finish = Literal["stop", "length", "refusal"]


@dataclass(frozen=True)
class Request:
    """One request the server received."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def protocol(self) -> Literal["openai", "anthropic"]:
        return "anthropic" if self.path.endswith("/messages") else "openai"

    @property
    def system(self) -> str:
        if self.protocol == "anthropic":
            return str(self.body.get("system", ""))
        return str(next(m["content"] for m in self.body["messages"] if m["role"] == "system"))

    @property
    def case(self) -> dict[str, Any]:
        """The judge's user message, parsed: the case as JSON (question, sources, answer...)."""
        user = next(m["content"] for m in self.body["messages"] if m["role"] == "user")
        parsed: dict[str, Any] = json.loads(user)
        return parsed

    def axes(self) -> dict[str, list[int]]:
        """Axis -> scale, read from the system message's axis lines (`- name (scale 0, 1, 2):`)."""
        found = re.findall(r"^- (\w+) \(scale ([-\d, ]+)\):", self.system, flags=re.MULTILINE)
        return {name: [int(v) for v in scale.split(",")] for name, scale in found}


@dataclass(frozen=True)
class Reply:
    """A scripted reply; build one with the class methods."""

    status_code: int = 200
    content: str | Callable[[Request], str] | None = None
    finish: Finish = "stop"
    usage: tuple[int, int] | None = (100, 20)
    model: str | None = None
    retry_after: float | None = None
    hang_s: float = 0.0
    drip_s: float = 0.0
    blank_bytes: int = 0

    @classmethod
    def text(
        cls, content: str, finish: Finish = "stop", usage: tuple[int, int] | None = (100, 20), model: str | None = None
    ) -> Reply:
        return cls(content=content, finish=finish, usage=usage, model=model)

    @classmethod
    def judgment(
        cls,
        scores: dict[str, int] | None = None,
        evidence: dict[str, str] | None = None,
        *,
        finish: Finish = "stop",
        usage: tuple[int, int] | None = (100, 20),
        model: str | None = None,
    ) -> Reply:
        def build(request: Request) -> str:
            first = request.case["sources"][0]["text"][:30]
            axes = request.axes()
            given = {name: {"score": scale[-1], "evidence": first} for name, scale in axes.items()}
            for name, value in (scores or {}).items():
                given.setdefault(name, {"evidence": first})["score"] = value
            for name, quote in (evidence or {}).items():
                given.setdefault(name, {"score": axes.get(name, [0])[-1]})["evidence"] = quote
            return json.dumps({"scores": given, "abstain": False, "reason": None})

        return cls(content=build, finish=finish, usage=usage, model=model)

    @classmethod
    def abstain(cls, reason: str) -> Reply:
        return cls(content=json.dumps({"scores": {}, "abstain": True, "reason": reason}))

    @classmethod
    def status(cls, code: int, retry_after: float | None = None) -> Reply:
        return cls(status_code=code, retry_after=retry_after)

    @classmethod
    def hang(cls, seconds: float) -> Reply:
        return cls(content=Reply.judgment().content, hang_s=seconds)

    @classmethod
    def drip(cls, seconds_per_byte: float) -> Reply:
        return cls(content=Reply.judgment().content, drip_s=seconds_per_byte)

    @classmethod
    def oversized(cls, size: int) -> Reply:
        return cls(content="", blank_bytes=size)


@dataclass
class _State:
    script: list[Reply] = field(default_factory=list)
    requests: list[Request] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0
    connections: set[socket.socket] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)


class LLMServer:
    """See the module docstring."""

    def __init__(self, latency_s: float = 0.0) -> None:
        self.latency_s = latency_s
        self.default: Reply = Reply.judgment()
        self._state = _State()
        self._released = threading.Event()
        self._httpd = LoopbackHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="llm-server", daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def openai_base_url(self) -> str:
        return f"{self.url}/v1"

    @property
    def anthropic_base_url(self) -> str:
        return self.url

    @property
    def calls(self) -> int:
        with self._state.lock:
            return len(self._state.requests)

    @property
    def requests(self) -> list[Request]:
        with self._state.lock:
            return list(self._state.requests)

    @property
    def in_flight(self) -> int:
        with self._state.lock:
            return self._state.in_flight

    @property
    def max_in_flight(self) -> int:
        with self._state.lock:
            return self._state.max_in_flight

    def script(self, *replies: Reply) -> None:
        with self._state.lock:
            self._state.script.extend(replies)

    def reset(self) -> None:
        with self._state.lock:
            self._state.script.clear()
            self._state.requests.clear()
            self._state.max_in_flight = self._state.in_flight

    def stop(self) -> None:
        """Stop serving and close every connection (a client's idle keep-alive one would hold a thread)."""
        self._released.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        with self._state.lock:
            connections = list(self._state.connections)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        self._thread.join(5)

    def __enter__(self) -> LLMServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _next(self, request: Request) -> Reply:
        with self._state.lock:
            self._state.requests.append(request)
            self._state.in_flight += 1
            self._state.max_in_flight = max(self._state.max_in_flight, self._state.in_flight)
            return self._state.script.pop(0) if self._state.script else self.default

    def _done(self) -> None:
        with self._state.lock:
            self._state.in_flight -= 1

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body would otherwise wait on a delayed ACK (~40 ms)
            wbufsize = 1 << 16  # one write per reply, flushed after each request

            def log_message(self, format: str, *args: Any) -> None:  # quiet test output
                pass

            def setup(self) -> None:
                super().setup()
                with server._state.lock:
                    server._state.connections.add(self.connection)

            def finish(self) -> None:
                with server._state.lock:
                    server._state.connections.discard(self.connection)
                with contextlib.suppress(OSError):
                    super().finish()

            def do_GET(self) -> None:
                with server._state.lock:
                    stats = {"calls": len(server._state.requests), "max_in_flight": server._state.max_in_flight}
                data = json.dumps(stats).encode("utf-8")
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                request = Request(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                reply = server._next(request)
                try:
                    self._answer(reply, request)
                finally:
                    server._done()

            def _answer(self, reply: Reply, request: Request) -> None:
                wait = server.latency_s + reply.hang_s
                if wait and server._released.wait(wait):
                    return  # the server is stopping: drop the connection
                status, headers, document = _render(reply, request)
                data = json.dumps(document).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(reply.blank_bytes or len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
                    if reply.blank_bytes:
                        self._stream_blank(reply.blank_bytes)
                    elif reply.drip_s:
                        self._drip(data, reply.drip_s)
                    else:
                        self.wfile.write(data)

            def _drip(self, data: bytes, pause: float) -> None:
                self.wfile.flush()
                for index in range(len(data)):
                    if server._released.wait(pause):
                        return
                    self.wfile.write(data[index : index + 1])
                    self.wfile.flush()

            def _stream_blank(self, size: int) -> None:
                chunk = b" " * (1 << 16)
                left = size
                while left > 0 and not server._released.is_set():
                    self.wfile.write(chunk[: min(left, len(chunk))])
                    left -= len(chunk)

        return Handler


def _render(reply: Reply, request: Request) -> tuple[int, dict[str, str], dict[str, Any]]:
    anthropic = request.protocol == "anthropic"
    if reply.status_code != 200:
        headers = {} if reply.retry_after is None else {"Retry-After": f"{reply.retry_after:g}"}
        if anthropic:
            error = {"type": "error", "error": {"type": "api_error", "message": "scripted failure"}}
        else:
            error = {"error": {"message": "scripted failure", "type": "server_error", "code": None}}
        return reply.status_code, headers, error
    content = reply.content(request) if callable(reply.content) else reply.content or ""
    model = reply.model or f"{request.body.get('model')}-served"
    if anthropic:
        stop_reason = {"stop": "end_turn", "length": "max_tokens", "refusal": "refusal"}[reply.finish]
        message: dict[str, Any] = {
            "id": f"msg_{time.monotonic_ns()}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": content}],
            "stop_reason": stop_reason,
            "stop_sequence": None,
        }
        if reply.usage is not None:
            message["usage"] = {"input_tokens": reply.usage[0], "output_tokens": reply.usage[1]}
        return 200, {}, message
    refused = reply.finish == "refusal"
    completion: dict[str, Any] = {
        "id": f"chatcmpl-{time.monotonic_ns()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": None if refused else content,
                    "refusal": "I can't help with that." if refused else None,
                },
                "finish_reason": "length" if reply.finish == "length" else "stop",
            }
        ],
    }
    if reply.usage is not None:
        completion["usage"] = {
            "prompt_tokens": reply.usage[0],
            "completion_tokens": reply.usage[1],
            "total_tokens": sum(reply.usage),
        }
    return 200, {}, completion


PROTOCOL_ROOTS = {"openai-chat": "/v1", "anthropic-messages": ""}
"""Each wire protocol this server speaks (a key of `PROTOCOLS` in qaeval_tui/core/judges/providers.py) ->
what a judge's base URL adds to the server's address (the client appends the protocol's own path)."""


def base_url_for(server: LLMServer | SpawnedLLMServer, kind: str) -> str:
    """The `[judge] base_url` that points a judge of `[judge] kind` at `server`, from its provider's protocol."""
    from qaeval_tui.core.config.judge_providers import provider_of

    return f"{server.url}{PROTOCOL_ROOTS[provider_of(kind).protocol]}"


def provider_keys() -> dict[str, str]:
    """A distinct test API key in the key variable of every provider of `PROVIDERS`."""
    from qaeval_tui.core.config.judge_providers import PROVIDERS

    return {provider.api_key_env: f"sk-test-{provider.kind}" for provider in PROVIDERS.values()}


class SpawnedLLMServer:
    """The server in a child process (see the module docstring); a context manager."""

    def __init__(self, latency_s: float = 0.0) -> None:
        import subprocess
        import sys
        from pathlib import Path

        root = Path(__file__).resolve().parent.parent
        self._process = subprocess.Popen(
            [sys.executable, "-m", "tests.llm_server", "--latency", str(latency_s)],
            cwd=root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self._process.stdout is not None
        self.url = self._process.stdout.readline().strip()
        if not self.url.startswith("http://"):
            self.stop()
            raise RuntimeError("the LLM server process did not start")

    @property
    def openai_base_url(self) -> str:
        return f"{self.url}/v1"

    @property
    def anthropic_base_url(self) -> str:
        return self.url

    def _stats(self) -> dict[str, int]:
        import urllib.request

        with urllib.request.urlopen(f"{self.url}/_stats", timeout=10) as response:
            stats: dict[str, int] = json.loads(response.read())
        return stats

    @property
    def calls(self) -> int:
        return self._stats()["calls"]

    @property
    def max_in_flight(self) -> int:
        return self._stats()["max_in_flight"]

    def stop(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()  # the child stops when its stdin closes
        try:
            self._process.wait(10)
        except Exception:
            self._process.kill()
            self._process.wait(10)

    def __enter__(self) -> SpawnedLLMServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _main() -> None:
    import argparse
    import sys

    parser = argparse.ArgumentParser(description="A loopback OpenAI/Anthropic-protocol server for tests.")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds each request waits")
    options = parser.parse_args()
    with LLMServer(latency_s=options.latency) as server:
        print(server.url, flush=True)
        sys.stdin.read()  # serve until the parent closes stdin


if __name__ == "__main__":
    _main()
