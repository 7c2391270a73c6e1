"""One person's app process, driven through textual-serve's `AppService`.

textual-serve runs one shell command, with the server's whole environment, for every connection.
Here each process is started from an argument list (no shell) with an environment built for its
person: the server's own store and identity variables (`QAEVAL_DB`, `QAEVAL_REVIEWER`, libpq's
`PG*`) are removed and the person's are set, so a team login's password travels in the child's
environment, never on a command line another user could read. Stopping asks the app to quit (it
closes its store after any save in flight) and waits; a process that does not end is killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import signal
import sys
from asyncio.subprocess import Process
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path

from textual_serve.app_service import AppService
from textual_serve.download_manager import DownloadManager

SERVER_ONLY = frozenset({"QAEVAL_DB", "QAEVAL_REVIEWER", "QAEVAL_CURATOR", "DATABASE_URL"})
"""Variables of the server's own environment an app process never inherits."""
QUIT_WAIT_S = 10.0


class AppProcess(AppService):
    """An `AppService` for one person: their command, their environment, a bounded stop."""

    def __init__(
        self,
        argv: Sequence[str],
        environment: Mapping[str, str],
        cwd: Path,
        *,
        write_bytes: Callable[[bytes], Awaitable[None]],
        write_str: Callable[[str], Awaitable[None]],
        close: Callable[[], Awaitable[None]],
    ) -> None:
        super().__init__(
            shlex.join(argv),
            write_bytes=write_bytes,
            write_str=write_str,
            close=close,
            download_manager=DownloadManager(),
        )
        self.argv = tuple(argv)
        self.person_environment = dict(environment)
        self.cwd = cwd
        self.process: Process | None = None
        self.stderr_text = ""

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        inherited = super()._build_environment(width=width, height=height)
        kept = {key: value for key, value in inherited.items() if key not in SERVER_ONLY and not key.startswith("PG")}
        return kept | self.person_environment

    async def _open_app_process(self, width: int = 80, height: int = 24) -> Process:
        self.process = await asyncio.create_subprocess_exec(
            *self.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=self._build_environment(width=width, height=height),
            cwd=self.cwd,
            start_new_session=True,  # its own process group: a kill reaches anything it started
        )
        self._process = self.process
        assert self.process.stdin is not None
        self._stdin = self.process.stdin
        return self.process

    async def run(self) -> None:
        """Relay the app until it ends, then close the browser's connection (the page says so)."""
        await super().run()
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError):
                await self.process.wait()
        with contextlib.suppress(Exception):
            await self.remote_close()

    @property
    def pid(self) -> int | None:
        return None if self.process is None else self.process.pid

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.returncode is None

    async def stop(self) -> None:
        """Ask the app to quit and wait for it; after `QUIT_WAIT_S`, end its process group."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(super().stop(), QUIT_WAIT_S)
        process = self.process
        if process is None or process.returncode is not None:
            return
        sys.stderr.write(f"qaeval serve: app process {process.pid} did not quit in {QUIT_WAIT_S:.0f} s; ending it\n")
        for sent in (signal.SIGTERM, signal.SIGKILL):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, sent)
            try:
                await asyncio.wait_for(process.wait(), QUIT_WAIT_S)
                return
            except TimeoutError:
                continue
