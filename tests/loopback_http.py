"""The threading HTTP server every loopback test server is built on.

A client that hangs up mid-connection (a keep-alive socket closed with a reset after a refused
reply, a timeout that gave up) is ordinary traffic for a server. The standard library prints a
traceback for it to stderr, which `CliRunner` captures into the command's own output, so a test
that checks "no traceback" would fail on the server's noise, not the product's. This base class
stays quiet about those two errors and reports every other one as before.
"""

from __future__ import annotations

import sys
from http.server import ThreadingHTTPServer
from typing import Any


class LoopbackHTTPServer(ThreadingHTTPServer):
    """A threading server with daemon handler threads, a deep listen backlog and quiet hang-ups."""

    daemon_threads = True
    request_queue_size = 1024
    """The listen backlog: an async client opening `concurrency` connections at once must not be refused
    (the default of 5 made a burst of connects fail before the server accepted them)."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Ignore a client that hung up; report anything else the standard way."""
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            return
        super().handle_error(request, client_address)
