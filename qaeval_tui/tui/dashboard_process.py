"""The dashboard's recomputation in a child process of its own, so it never competes with a submit for
the interpreter lock.

The recomputation is seconds of mostly pure-Python work on a big store. On a thread of the app it
holds the lock the UI, the screen's worker and the writer thread each need at every hand-off of a
submit, so a reviewer labelling while the dashboard recomputes would wait behind it. In a process
of its own it runs beside them instead, on its own connection to the same store (opened on the
first recomputation and kept), exactly as a thread would: a recomputation started after a submit
was acknowledged sees it (both backends read in autocommit mode).

The app talks to it over its standard input and output, one pickled message at a time:
`DashboardProcess.compute` sends a request, answers each progress step the child reports (the
child waits for that answer before going on, so a step callback that waits holds the recomputation
where it is, as it would on a thread) and returns the dashboard or raises the child's error. It is
started with `sys.executable -m` this module (not `multiprocessing`, which would re-import the
program's main module in the child), on first use: a reviewer who never opens the dashboard starts
nothing. Its standard error is discarded: the terminal belongs to the TUI.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import subprocess
import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from qaeval_tui.core.config import Config
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.store.opening import StoreLocation

if TYPE_CHECKING:
    from qaeval_tui.core.usecases.dashboard import Dashboard, Step

STOP_SECONDS = 5.0
"""How long `close` waits for the child to finish the recomputation in flight before ending it."""


NICENESS = 10
"""How much lower the child's scheduling priority is than the app's (POSIX `nice`): with every core
busy, the UI, its workers and the writer are scheduled before the recomputation."""


def _send(stream: IO[bytes], message: object) -> None:
    pickle.dump(message, stream, protocol=pickle.HIGHEST_PROTOCOL)
    stream.flush()


class DashboardProcess:
    """One child process computing the dashboard of one store, on request; used from one thread at a time."""

    def __init__(self, location: StoreLocation, config: Config) -> None:
        self.location = location
        self.config = config
        self._child: subprocess.Popen[bytes] | None = None

    def compute(self, step: Step | None = None) -> Dashboard:
        """The dashboard as `compute_dashboard` returns it, `step` called before each of its steps."""
        child = self._start()
        assert child.stdin is not None and child.stdout is not None
        self._write(child.stdin, step is not None)
        while True:
            kind, *body = self._read(child.stdout)
            if kind != "step":
                break
            if step is not None:
                try:
                    step(*body)
                except BaseException:
                    self._end()  # the child waits for an answer that will not come
                    raise
            self._write(child.stdin, None)  # go on
        if kind == "error":
            error: Exception = body[0]
            raise error
        dashboard: Dashboard = body[0]
        return dashboard

    def _write(self, stream: IO[bytes], message: object) -> None:
        try:
            _send(stream, message)
        except OSError as exc:
            raise self._stopped() from exc

    def _read(self, stream: IO[bytes]) -> Any:
        try:
            return pickle.load(stream)
        except (EOFError, OSError, pickle.UnpicklingError) as exc:
            raise self._stopped() from exc

    def _stopped(self) -> UsageError:
        return UsageError(f"the dashboard's process stopped (exit code {self._end()})")

    def _start(self) -> subprocess.Popen[bytes]:
        if self._child is not None and self._child.poll() is None:
            return self._child
        package_root = str(Path(__file__).resolve().parents[2])  # this very code, whatever the path says
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, (package_root, env.get("PYTHONPATH"))))
        child = subprocess.Popen(
            [sys.executable, "-m", __name__],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        assert child.stdin is not None
        _send(child.stdin, (self.location, self.config))
        self._child = child
        return child

    def _end(self) -> int | None:
        """End the child at once (its state is unknown); the next recomputation starts a new one."""
        child, self._child = self._child, None
        if child is None:
            return None
        with contextlib.suppress(OSError):
            child.kill()
        return child.wait()

    def close(self) -> None:
        """Let the child close its connection and exit (ended after `STOP_SECONDS`); safe to call twice."""
        child, self._child = self._child, None
        if child is None:
            return
        assert child.stdin is not None and child.stdout is not None
        with contextlib.suppress(OSError):
            child.stdin.close()  # end of input: the child closes its store and exits
        try:
            child.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        child.stdout.close()


def _portable(exc: Exception) -> Exception:
    """`exc` if it survives pickling, else a UsageError with its text (one that does not rebuild)."""
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:
        return UsageError(str(exc))
    return exc


def _serve(requests: IO[bytes], answers: IO[bytes]) -> None:
    from qaeval_tui.core.store.backend import StoreBackend
    from qaeval_tui.core.store.opening import open_store
    from qaeval_tui.core.store.rows import StoreUnavailableError
    from qaeval_tui.core.usecases.dashboard import compute_dashboard

    location, config = pickle.load(requests)
    store: StoreBackend | None = None

    def step(index: int, text: str) -> None:
        _send(answers, ("step", index, text))
        pickle.load(requests)  # the app's answer: it has taken the step in

    try:
        while True:
            try:
                stepped = pickle.load(requests)
            except EOFError:
                return  # the app closed its end
            answer: tuple[Any, ...]
            try:
                if store is None:
                    store = open_store(location)
                answer = ("done", compute_dashboard(store, config, step=step if stepped else None))
            except StoreUnavailableError as exc:  # the server went away: a new connection next time
                with contextlib.suppress(Exception):
                    if store is not None:
                        store.close()
                store = None
                answer = ("error", _portable(exc))
            except Exception as exc:
                answer = ("error", _portable(exc))
            _send(answers, answer)
    finally:
        if store is not None:
            store.close()


def main() -> None:
    """The child: requests on standard input, answers on what was standard output (now standard error,
    so a stray print cannot corrupt an answer)."""
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    if hasattr(os, "nice"):  # a background read: the reviewer's process comes first for the processor
        os.nice(NICENESS)
    _serve(sys.stdin.buffer, answers)


if __name__ == "__main__":
    main()
