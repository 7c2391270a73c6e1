"""`qaeval inbox receive`: OTLP/HTTP on loopback, so a system's exporter sends its traces straight in.

`POST /v1/traces` takes an `ExportTraceServiceRequest` as OTLP/HTTP JSON (`application/json`) or as
protobuf (`application/x-protobuf`, what the OpenTelemetry SDKs' HTTP exporters send; decoded when
the `opentelemetry-proto` package is installed), optionally gzip-compressed. Spans wait by trace until
the trace's root span (one without a parent) arrives, since a batch exporter sends child spans
before their root; the complete trace is then read like a file of `--format otlp` or `openinference`
and its miss stored at once. A batch with a problem is answered 400 with every problem and stores
nothing; a trace already stored (or refused) ignores spans that arrive later.
"""

from __future__ import annotations

import gzip
import importlib
import json
import signal
import sys
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, HTTPServer
from types import FrameType
from typing import Any

from qaeval_tui.core.curation.inbox import ImportReport, store_misses
from qaeval_tui.core.curation.traces.importer import Chosen, Selection, choose_misses
from qaeval_tui.core.curation.traces.model import Span, TraceRecord
from qaeval_tui.core.curation.traces.otlp import Extractor, OtlpTrace, read_requests, request_spans
from qaeval_tui.core.errors import InputError, Problem, UsageError
from qaeval_tui.core.store.backend import StoreBackend

PATH = "/v1/traces"
JSON = "application/json"
PROTOBUF = "application/x-protobuf"
MAX_BODY = 64 * 1024 * 1024  # the SDK exporters' own default limit on one request
CLIENT_TIMEOUT_S = 10.0  # the SDK exporters' own default timeout for one export


@dataclass
class Received:
    """The answer to one request, and what it did."""

    status: int
    body: bytes
    content_type: str
    report: ImportReport | None = None
    chosen: Chosen | None = None
    problems: list[Problem] = field(default_factory=list)
    message: str = ""


class TraceReceiver:
    """Turns OTLP requests into inbox misses, trace by trace, each trace once."""

    def __init__(self, store: StoreBackend, selection: Selection, extractor: Extractor) -> None:
        self.store = store
        self.selection = selection
        self.extractor = extractor
        self.pending: dict[str, list[Span]] = {}
        self.done: set[str] = set()
        self.requests = 0

    def accept(self, body: bytes, content_type: str, encoding: str | None) -> Received:
        """Handle one request body (`content_type`, `encoding` as the headers said)."""
        self.requests += 1
        display = f"request #{self.requests}"
        media = content_type.split(";")[0].strip().lower()
        if media not in (JSON, PROTOBUF):
            return _refusal(415, f"send {JSON} or {PROTOBUF}, not {media or 'no content type'!r}", media)
        try:
            body = _decompressed(body, encoding)
            requests = [_protobuf_request(body)] if media == PROTOBUF else read_requests(body, display)
            spans, problems = request_spans(requests, display)
            if problems:
                raise InputError(list(problems), what="trace request")
        except InputError as exc:
            return _refusal(400, f"{len(exc.problems)} problem(s); nothing stored", media, exc.problems)
        except UsageError as exc:
            return _refusal(_status_of(exc), str(exc), media)
        touched: dict[str, None] = {}
        for span in spans:
            if span.trace_id not in self.done:
                self.pending.setdefault(span.trace_id, []).append(span)
                touched[span.trace_id] = None
        complete = [t for t in touched if any(span.parent_id is None for span in self.pending[t])]
        records: list[TraceRecord] = [OtlpTrace(self.pending.pop(t), self.extractor) for t in complete]
        self.done.update(complete)  # refused or stored, a trace is answered once
        chosen = choose_misses(records, self.selection, display)
        try:
            if chosen.problems:
                raise InputError(chosen.problems, what="trace request")
            report = store_misses(self.store, display, chosen.misses, [])
        except InputError as exc:
            return _refusal(400, f"{len(exc.problems)} problem(s); nothing stored", media, exc.problems)
        rejected = sum(
            len(record.spans)
            for record in records
            if isinstance(record, OtlpTrace) and record.trace_id in chosen.skipped
        )
        message = f"{len(chosen.skipped)} incomplete trace(s) skipped" if chosen.skipped else ""
        return Received(200, _success(media, rejected, message), media, report, chosen, message=message)

    def waiting(self) -> int:
        """Traces whose root span has not arrived yet."""
        return len(self.pending)


def _status_of(exc: UsageError) -> int:
    return 415 if "opentelemetry-proto" in str(exc) else 400


def _decompressed(body: bytes, encoding: str | None) -> bytes:
    name = (encoding or "identity").strip().lower()
    try:
        if name == "gzip":
            return gzip.decompress(body)
        if name == "deflate":
            return zlib.decompress(body)
    except (OSError, EOFError, zlib.error) as exc:
        raise UsageError(f"the body is not valid {name}: {exc}") from None
    if name != "identity":
        raise UsageError(f"Content-Encoding {name!r} is not supported (gzip, deflate or none)")
    return body


def _proto_modules() -> tuple[Any, Any]:
    try:
        service = importlib.import_module("opentelemetry.proto.collector.trace.v1.trace_service_pb2")
        json_format = importlib.import_module("google.protobuf.json_format")
    except ImportError:
        raise UsageError(
            f"{PROTOBUF} needs the opentelemetry-proto package (pip install opentelemetry-proto), or send {JSON}"
        ) from None
    return service, json_format


def _protobuf_request(body: bytes) -> dict[str, Any]:
    service, json_format = _proto_modules()
    message = service.ExportTraceServiceRequest()
    try:
        message.ParseFromString(body)
    except Exception as exc:  # protobuf's DecodeError, whatever module it comes from
        raise UsageError(f"the body is not an ExportTraceServiceRequest: {exc}") from None
    document: dict[str, Any] = json_format.MessageToDict(message)
    return document


def _success(media: str, rejected: int, message: str) -> bytes:
    """An ExportTraceServiceResponse: empty, or with partialSuccess when spans were left out."""
    if media == JSON:
        partial = {"partialSuccess": {"rejectedSpans": str(rejected), "errorMessage": message}} if rejected else {}
        return json.dumps(partial).encode()
    service, _ = _proto_modules()
    response = service.ExportTraceServiceResponse()
    if rejected:
        response.partial_success.rejected_spans = rejected
        response.partial_success.error_message = message
    data: bytes = response.SerializeToString()
    return data


def _refusal(status: int, message: str, media: str, problems: list[Problem] | None = None) -> Received:
    lines = [message, *map(str, problems or [])]
    body = json.dumps({"code": 3, "message": "\n".join(lines)}).encode() if media != PROTOBUF else b""
    return Received(
        status, body, JSON if media != PROTOBUF else PROTOBUF, problems=list(problems or []), message=message
    )


def serve(
    receiver: TraceReceiver,
    port: int,
    *,
    on_ready: Callable[[int], None],
    on_received: Callable[[Received], None],
    on_trouble: Callable[[str], None] = lambda _message: None,
    idle_exit: float | None = None,
    client_timeout: float = CLIENT_TIMEOUT_S,
) -> None:
    """Serve on 127.0.0.1:`port` (0: any free port, passed to `on_ready`) until Ctrl-C, or until no
    request came for `idle_exit` seconds. Raises UsageError when the port cannot be had.

    One request at a time, each in whole: Ctrl-C (SIGINT, or SIGTERM) asks the loop to stop once the
    request in hand is answered, so an interrupt never lands inside a store write or a half-printed
    line; a second Ctrl-C interrupts at once. A client that stops sending mid-request is dropped after
    `client_timeout` seconds (`on_trouble` says so), so one stalled exporter cannot hold the others."""

    class Handler(BaseHTTPRequestHandler):
        timeout = client_timeout  # each connection's socket: a stalled client times out

        def do_POST(self) -> None:
            if self.path.split("?")[0] != PATH:
                self._answer(Received(404, b"", JSON, message=f"POST traces to {PATH}"))
                return
            try:
                length = int(self.headers.get("Content-Length") or 0)
            except ValueError:
                length = -1
            if length < 0:
                self._answer(_refusal(411, "send a Content-Length (a whole number of bytes)", JSON))
                return
            if length > MAX_BODY:
                self._answer(_refusal(413, f"a request may hold at most {MAX_BODY} bytes", JSON))
                return
            try:
                body = self.rfile.read(length)
            except TimeoutError:
                body = b""
            if len(body) < length:  # the client stopped sending (or hung up) before its Content-Length
                self.close_connection = True
                on_trouble(
                    f"a request from {self.client_address[0]} was dropped: its {length}-byte body did not "
                    f"arrive whole within {client_timeout:g} s; nothing stored"
                )
                return
            result = receiver.accept(body, self.headers.get("Content-Type", ""), self.headers.get("Content-Encoding"))
            self._answer(result)
            on_received(result)

        def _answer(self, result: Received) -> None:
            self.send_response(result.status)
            self.send_header("Content-Type", result.content_type)
            self.send_header("Content-Length", str(len(result.body)))
            self.end_headers()
            self.wfile.write(result.body)

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: what each request did is reported through `on_received`."""

    class Server(HTTPServer):
        def handle_error(self, request: Any, client_address: Any) -> None:
            """One line, not a traceback: a client that hangs up mid-answer is the client's matter."""
            error = sys.exc_info()[1]
            on_trouble(f"a request from {client_address[0]} failed: {type(error).__name__}: {error}")

    try:
        server = Server(("127.0.0.1", port), Handler)
    except OSError as exc:
        raise UsageError(f"--port {port}: cannot listen on 127.0.0.1: {exc.strerror}") from None
    server.timeout = 0.05
    last = time.monotonic()
    seen = receiver.requests
    with server, _stop_asked() as stopping:
        on_ready(server.server_address[1])
        while not stopping.is_set():
            server.handle_request()
            now = time.monotonic()
            if receiver.requests != seen:
                seen, last = receiver.requests, now
            if idle_exit is not None and now - last >= idle_exit:
                return


@contextmanager
def _stop_asked() -> Iterator[threading.Event]:
    """An event set by the first SIGINT or SIGTERM while serving; a second SIGINT raises
    KeyboardInterrupt as usual. Off the main thread (where handlers cannot be set) only the event."""
    stopping = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield stopping
        return

    def asked(signum: int, _frame: FrameType | None) -> None:
        if stopping.is_set() and signum == signal.SIGINT:
            raise KeyboardInterrupt
        stopping.set()

    previous = {number: signal.signal(number, asked) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stopping
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
