"""A real HTTP server on loopback playing the system under test, with scripted replies.

`script(request, attempt)` decides each reply: `request` is the parsed JSON body, `attempt` counts
the requests seen for that case id (1 for the first). The server records every request, so a
test asserts on what crossed the wire and how many calls were made. Started and stopped by the
`with` block: nothing keeps running after a test.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from tests.loopback_http import LoopbackHTTPServer


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
    connections: set[socket.socket] = set()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out as written: no 40 ms delayed-ACK stall

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

        def setup(self) -> None:
            super().setup()
            with lock:
                connections.add(self.connection)

        def finish(self) -> None:
            with lock:
                connections.discard(self.connection)
            with contextlib.suppress(OSError):
                super().finish()

        def do_GET(self) -> None:  # GET .../calls: how many POSTs so far (for a server in another process)
            body = json.dumps({"calls": state["system"].calls}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:  # quiet test output
            return

    server = LoopbackHTTPServer(("127.0.0.1", 0), Handler)
    state["system"] = LoopbackSystem(url=f"http://127.0.0.1:{server.server_address[1]}/answer")
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield state["system"]
    finally:
        server.shutdown()
        server.server_close()
        with lock:
            open_now = list(connections)
        for connection in open_now:  # a client's idle keep-alive connection would hold a handler thread
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        thread.join()


def judge_scores(request: dict[str, Any], attempt: int) -> Reply:
    """A judge's reply (tests/judgeops/loopback_judge.py): top scores, and the tokens it cost."""
    return Reply(
        body={
            "scores": {"faithfulness": 2, "citation_correctness": 2, "answer_correctness": 2},
            "input_tokens": 900,
            "output_tokens": 60,
            "model": "scripted-1-2026",
        }
    )


def main(argv: list[str]) -> None:
    """`python -m tests.judgeops.sut_server [--judge-scores] [--delay S] URL_FILE`: serve until killed,
    writing the URL to URL_FILE once listening (benchmarks/bench_judges.py)."""
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--judge-scores", action="store_true")
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("url_file", type=Path)
    args = parser.parse_args(argv)
    script = judge_scores if args.judge_scores else answer_from_first_source

    def delayed(request: dict[str, Any], attempt: int) -> Reply:
        reply = script(request, attempt)
        return Reply(reply.status, reply.body, reply.headers, args.delay)

    with serve(delayed) as system:
        args.url_file.write_text(system.url, encoding="utf-8")
        threading.Event().wait()


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
