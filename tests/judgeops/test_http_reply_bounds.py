"""The HTTP system's reply is bounded like its request: `timeout_s` bounds the whole attempt (a server
dripping one byte at a time cannot keep it alive), `max_reply_bytes` caps what is read (a 200 MB
reply is never read whole), and a reply repeating a JSON key is refused, as every file reader
refuses one. Real loopback servers; each failure is that case's located error, never a crash."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler

import pytest

from qaeval_tui.core.config import HttpSystemConfig
from qaeval_tui.core.models.run import CaseView, Source
from qaeval_tui.core.usecases.http_adapter import HttpSystem
from tests.loopback_http import LoopbackHTTPServer

Writer = Callable[[BaseHTTPRequestHandler], None]
VIEW = CaseView(opaque_id="o1", question="How long?", sources=(Source(id="s1", title="t", text="ten years"),))


@contextlib.contextmanager
def serving(write: Writer) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", "0")))
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                write(self)

        def log_message(self, *_: object) -> None:
            pass

    server = LoopbackHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/answer"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def _headers(handler: BaseHTTPRequestHandler, length: int | None) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    if length is not None:
        handler.send_header("Content-Length", str(length))
    handler.end_headers()


def drip(handler: BaseHTTPRequestHandler) -> None:
    body = json.dumps({"answer": "ten years " * 20}).encode()
    _headers(handler, len(body))
    for byte in body:  # one byte each 50 ms: every read is quick, the whole reply takes seconds
        handler.wfile.write(bytes([byte]))
        handler.wfile.flush()
        time.sleep(0.05)


def huge(declared: bool) -> Writer:
    def write(handler: BaseHTTPRequestHandler) -> None:
        chunk = b" " * 1_000_000
        total = 200 * len(chunk)
        _headers(handler, total if declared else None)
        if not declared:
            handler.close_connection = True
        for _ in range(200):
            handler.wfile.write(chunk)

    return write


def repeated_key(handler: BaseHTTPRequestHandler) -> None:
    body = b'{"answer": "ten years", "answer": "five days"}'
    _headers(handler, len(body))
    handler.wfile.write(body)


def system(url: str, **settings: object) -> HttpSystem:
    return HttpSystem(HttpSystemConfig.model_validate({"url": url, "max_retries": 0, **settings}))


def test_a_dripped_reply_is_cut_off_at_timeout_s_for_the_whole_attempt() -> None:
    with serving(drip) as url:
        adapter = system(url, timeout_s=1.0)
        started = time.monotonic()
        output = adapter.answer(VIEW)
        elapsed = time.monotonic() - started
        adapter.close()
    assert output.error == "the HTTP system failed: no reply within timeout_s = 1 (1 attempt)"
    assert elapsed < 1.6  # the attempt, not each read, is bounded (the drip alone takes 11 s)


@pytest.mark.parametrize("declared", [True, False], ids=["content-length", "chunked-or-until-close"])
def test_a_200_mb_reply_is_refused_without_being_read_whole(declared: bool) -> None:
    with serving(huge(declared)) as url:
        adapter = system(url, timeout_s=20, max_reply_bytes=1_000_000)
        started = time.monotonic()
        output = adapter.answer(VIEW)
        adapter.close()
    assert output.error is not None and "more than max_reply_bytes = 1000000" in output.error
    assert time.monotonic() - started < 10


def test_a_reply_that_repeats_a_key_is_refused_naming_it() -> None:
    with serving(repeated_key) as url:
        adapter = system(url)
        output = adapter.answer(VIEW)
        adapter.close()
    assert output.error == "the HTTP system failed: the reply is refused: answer: duplicate key 'answer'"
    assert output.answer == ""


def test_a_reply_within_the_bounds_is_read_as_before() -> None:
    def quick(handler: BaseHTTPRequestHandler) -> None:
        body = json.dumps({"answer": "ten years", "citations": [{"source_id": "s1"}]}).encode()
        _headers(handler, len(body))
        handler.wfile.write(body)

    with serving(quick) as url:
        adapter = system(url, max_reply_bytes=1_000)
        output = adapter.answer(VIEW)
        adapter.close()
    assert output.error is None and output.answer == "ten years"
