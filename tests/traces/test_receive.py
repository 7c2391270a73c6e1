"""`qaeval inbox receive`: the OpenTelemetry SDK's own OTLP/HTTP exporter sends spans to the real
command on loopback, span by span as they end; the misses land in the inbox once each root arrives."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from typer.testing import CliRunner

from qaeval_tui.cli.main import app
from tests.curation_fixtures import demo_copy
from tests.traces.exports import QUESTION, Recorder, genai_trace, health_check, openinference_trace, otlp_json

REPO = Path(__file__).resolve().parents[2]


class Receiver:
    def __init__(self, process: subprocess.Popen[str], url: str) -> None:
        self.process = process
        self.url = url

    def stop(self) -> tuple[int, str, str]:
        self.process.send_signal(signal.SIGINT)
        try:
            out, err = self.process.communicate(timeout=20)
        except subprocess.TimeoutExpired:  # hung: its threads' stacks (PYTHONFAULTHANDLER) say where
            self.process.send_signal(signal.SIGABRT)
            out, err = self.process.communicate(timeout=20)
            raise AssertionError(f"the receiver did not stop on Ctrl-C within 20 s:\n{out}\n{err}") from None
        return self.process.returncode, out, err


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return demo_copy(tmp_path)


def start(root: Path, *args: str) -> Receiver:
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONFAULTHANDLER": "1"}
    command = [sys.executable, "-m", "qaeval_tui", "--config", str(root / "qaeval.toml"), "inbox", "receive",
               "--port", "0", "--db", str(root / "s.db"), *args]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert process.stderr is not None
    line = process.stderr.readline()
    assert "listening on http://127.0.0.1:" in line, line
    return Receiver(process, line.split("listening on ", 1)[1].split()[0])


@pytest.fixture
def receivers() -> Iterator[list[Receiver]]:
    started: list[Receiver] = []
    yield started
    for receiver in started:
        if receiver.process.poll() is None:
            receiver.process.kill()
            receiver.process.wait()


def inbox(root: Path) -> dict[str, dict[str, object]]:
    result = CliRunner().invoke(
        app, ["--config", str(root / "qaeval.toml"), "inbox", "list", "--json", "--db", str(root / "s.db")]
    )
    assert result.exit_code == 0, result.output
    return {row["trace_id"]: row for row in json.loads(result.stdout)}


def test_the_sdk_exporter_sends_a_trace_span_by_span_and_its_miss_arrives(
    root: Path, receivers: list[Receiver]
) -> None:
    receiver = start(root, "--where", "user.feedback=negative")
    receivers.append(receiver)
    sender = OTLPSpanExporter(endpoint=receiver.url, timeout=10, compression=Compression.Gzip)
    rec = Recorder(seed=41, sender=sender)
    miss = genai_trace(rec)
    liked = genai_trace(rec, feedback="positive")
    health_check(rec)
    rec.provider.shutdown()

    code, out, err = receiver.stop()

    assert code == 0, err
    entries = inbox(root)
    assert miss in entries and liked not in entries
    assert entries[miss]["question"] == QUESTION
    provenance = entries[miss]["provenance"]
    assert isinstance(provenance, dict) and provenance["origin"] == "otlp" and provenance["service"] == "support-bot"
    assert "imported 1 new production miss(es) from request #" in out
    assert "stopped after 7 request(s)" in err  # one per span: the SDK's simple processor sends each as it ends


def test_json_requests_a_refused_batch_and_a_trace_without_its_root(root: Path, receivers: list[Receiver]) -> None:
    receiver = start(root, "--format", "openinference")
    receivers.append(receiver)
    rec = Recorder(seed=43)
    good = openinference_trace(rec)
    bad = openinference_trace(rec, docs=[("s1", "Manual", None)])
    spans = rec.spans()
    by_trace = {format(s.context.trace_id, "032x"): [x for x in spans if x.context.trace_id == s.context.trace_id]
                for s in spans}  # fmt: skip
    headers = {"Content-Type": "application/json"}
    ok = httpx.post(receiver.url, content=otlp_json(tuple(by_trace[good])), headers=headers)
    assert ok.status_code == 200 and ok.json() == {}
    refused = httpx.post(receiver.url, content=otlp_json(tuple(by_trace[bad])), headers=headers)
    assert refused.status_code == 400
    assert "retrieval.documents.0.document.content: document 's1' has no text" in refused.json()["message"]
    orphan = Recorder(seed=44)
    openinference_trace(orphan)
    waiting = httpx.post(
        receiver.url, content=otlp_json(tuple(s for s in orphan.spans() if s.parent is not None)), headers=headers
    )
    assert waiting.status_code == 200  # held until its root arrives, which it never does
    wrong = httpx.post(receiver.url, content=b"<xml/>", headers={"Content-Type": "text/xml"})
    assert wrong.status_code == 415
    elsewhere = httpx.post(receiver.url.replace("/v1/traces", "/v1/logs"), content=b"{}", headers=headers)
    assert elsewhere.status_code == 404

    code, _, err = receiver.stop()

    assert code == 0
    assert set(inbox(root)) & {good, bad} == {good}
    assert "refused (400)" in err and "1 trace(s) still without their root span: not imported" in err


def test_idle_exit_stops_and_a_taken_port_is_a_usage_error(root: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    base = [sys.executable, "-m", "qaeval_tui", "--config", str(root / "qaeval.toml"), "inbox", "receive"]
    started = time.monotonic()
    done = subprocess.run([*base, "--port", "0", "--idle-exit", "0.3", "--db", str(root / "s.db")],
                          capture_output=True, text=True, env=env, timeout=30)  # fmt: skip
    assert done.returncode == 0 and "stopped after 0 request(s)" in done.stderr
    assert time.monotonic() - started < 25

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        refused = subprocess.run([*base, "--port", str(port), "--db", str(root / "s.db")],
                                 capture_output=True, text=True, env=env, timeout=30)  # fmt: skip
    assert refused.returncode == 2
    assert f"error: --port {port}: cannot listen on 127.0.0.1" in refused.stderr


def _stalled(url: str) -> socket.socket:
    """A client that sends its headers and 10 of the 100 bytes it announced, then nothing."""
    host, port = url.split("//", 1)[1].split("/", 1)[0].split(":")
    client = socket.create_connection((host, int(port)))
    client.sendall(b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                   b"Content-Length: 100\r\n\r\n{\"resource")  # fmt: skip
    return client


def test_a_stalled_client_is_dropped_and_the_next_exporter_is_answered(root: Path) -> None:
    from qaeval_tui.core.curation.traces.conventions import genai_case
    from qaeval_tui.core.curation.traces.importer import Selection
    from qaeval_tui.core.curation.traces.receiver import TraceReceiver, serve
    from qaeval_tui.core.store.opening import open_store

    troubles: list[str] = []
    ready: list[int] = []
    with open_store(root / "s.db") as store:
        receiver = TraceReceiver(store, Selection("otlp", [], False, None), genai_case)

        def serving() -> None:
            serve(receiver, 0, on_ready=ready.append, on_received=lambda _r: None, on_trouble=troubles.append,
                  idle_exit=3.0, client_timeout=0.5)  # fmt: skip

        thread = threading.Thread(target=serving)
        thread.start()
        while not ready:
            time.sleep(0.01)
        url = f"http://127.0.0.1:{ready[0]}/v1/traces"
        stalled = _stalled(url)
        try:
            started = time.monotonic()
            answer = httpx.post(url, content=b"{}", headers={"Content-Type": "application/json"}, timeout=10)
            waited = time.monotonic() - started
        finally:
            stalled.close()
        thread.join(timeout=20)

    assert answer.status_code == 200 and waited < 5  # not held until the stalled client gave up (never)
    assert not thread.is_alive()
    assert len(troubles) == 1
    assert "was dropped: its 100-byte body did not arrive whole within 0.5 s; nothing stored" in troubles[0]
    assert receiver.requests == 1  # the stalled request was never read as a request


def test_sigterm_stops_like_ctrl_c_and_a_second_ctrl_c_interrupts_a_request_in_hand(
    root: Path, receivers: list[Receiver]
) -> None:
    receiver = start(root)
    receivers.append(receiver)
    receiver.process.send_signal(signal.SIGTERM)
    _, err = receiver.process.communicate(timeout=20)
    assert receiver.process.returncode == 0 and "stopped after 0 request(s)" in err

    second = start(root)
    receivers.append(second)
    stalled = _stalled(second.url)  # the receiver is inside its read, up to 10 s
    try:
        time.sleep(0.3)
        second.process.send_signal(signal.SIGINT)  # asks it to stop once the request in hand is done
        time.sleep(0.3)
        assert second.process.poll() is None
        started = time.monotonic()
        code, _, err = second.stop()  # a second Ctrl-C does not wait for the stalled client
    finally:
        stalled.close()
    assert code == 0 and time.monotonic() - started < 5
    assert "stopped after 0 request(s)" in err
