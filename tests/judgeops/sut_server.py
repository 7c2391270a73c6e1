"""A real HTTP server on loopback playing the system under test, with scripted replies.

`script(request, attempt)` decides each reply: `request` is the parsed JSON body, `attempt` counts
the requests seen for that case id (1 for the first). The server records every request, so a
test asserts on what crossed the wire and how many calls were made. Started and stopped by the
`with` block: nothing keeps running after a test.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    status: int = 200
    body: Any = None  # JSON-encoded unless bytes
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


Script = Callable[[dict[str, Any], int], Reply]


def answer_from_first_source(request: dict[str, Any], attempt: int) -> Reply:
    """A sound system: answers with the first source's text and cites it."""
    first = request["sources"][0]
    return Reply(
        body={
            "answer": first["text"],
            "citations": [{"source_id": first["id"], "quote": first["text"]}],
            "retrieved_ids": [source["id"] for source in request["sources"]],
            "model_was_called": True,
            "prompt": " ".join(source["text"] for source in request["sources"]),
        }
    )


@dataclass
class LoopbackSystem:
    url: str
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    attempts: Counter[str] = field(default_factory=Counter)
    in_flight: int = 0
    most_in_flight: int = 0

    @property
    def calls(self) -> int:
        return len(self.requests)


@contextmanager
def serve(script: Script) -> Iterator[LoopbackSystem]:
    lock = threading.Lock()
    state: dict[str, LoopbackSystem] = {}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            system = state["system"]
            length = int(self.headers.get("content-length", "0"))
            request = json.loads(self.rfile.read(length))
            with lock:
                system.requests.append(request)
                system.headers.append({key.lower(): value for key, value in self.headers.items()})
                system.attempts[request.get("id", "")] += 1
                attempt = system.attempts[request.get("id", "")]
                system.in_flight += 1
                system.most_in_flight = max(system.most_in_flight, system.in_flight)
            try:
                reply = script(request, attempt)
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                body = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (its timeout): fine
                pass
            finally:
                with lock:
                    system.in_flight -= 1

        def log_message(self, format: str, *args: Any) -> None:  # quiet test output
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state["system"] = LoopbackSystem(url=f"http://127.0.0.1:{server.server_address[1]}/answer")
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield state["system"]
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
