"""Commands that run user code (`run`, `baseline`, `gate`, `drift`) run in a child process, watched.

An adapter or judge can end the whole process where no `try` reaches it: `os._exit(0)`, a
crash in native code, a kill. In-process, `qaeval gate` would then exit 0 with no output and a
CI would read PASS. So the console entry point starts the real command in a child (the same
interpreter, the same import path, stdin/stdout/stderr inherited, SIGINT and SIGTERM
forwarded), and the child, once the command has reached its end, writes its exit code to a
pipe whose number it finds in `QAEVAL_SUPERVISOR_FD`. A child that ends without writing it has
not finished: the parent says so in one line and exits 2, never 0. A child's own exit codes
pass through unchanged.

Standard library only: the parent decides and starts the child without loading typer, rich or
pydantic, so supervision costs one interpreter start-up (tens of milliseconds), not two imports
of the CLI. On systems without `pass_fds` (Windows) the command runs in-process, unwatched.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from types import FrameType

SUPERVISED = frozenset({"run", "baseline", "gate", "drift"})
REPORT_FD = "QAEVAL_SUPERVISOR_FD"
NO_VERDICT_EXIT = 2
# Forwarded, so that stopping the supervisor (a CI runner's cancel, `kill -INT`) stops the command.
# A terminal's Ctrl-C reaches both processes; the second copy the child gets only interrupts it again.
_FORWARDED = (signal.SIGINT, signal.SIGTERM)
_REPORT_PREFIX = b"qaeval-exit "
# The child (`-P`: no current folder first, as `-c` would put it) gets the parent's first import
# path entry back (the script's folder; nothing under -P): a local `typer.py` or `numpy.py` must
# not shadow a library in the child when it does not in the parent.
_CHILD = (
    "import sys; head = sys.argv.pop(1); sys.path[:0] = [head] if head else []\n"
    "from qaeval_tui.cli.main import run\n"
    "run()"
)


def supervised_command(argv: list[str]) -> str | None:
    """The command named in `argv` when it is one that runs user code, else None.

    Global options come first (`--config PATH`, `--version`, `--help`); the first other word is
    the command. Anything unusual is left to the CLI itself, in-process.
    """
    words = iter(argv)
    for word in words:
        if word == "--config":
            next(words, None)
        elif word == "--":
            word = next(words, "")
            return word if word in SUPERVISED else None
        elif not word.startswith("-"):
            return word if word in SUPERVISED else None
    return None


def supervise(command: str, argv: list[str]) -> int:
    """Run `qaeval argv` in a child and return the exit code the parent should end with."""
    read_end, write_end = os.pipe()
    head = "" if sys.flags.safe_path else os.path.abspath(sys.path[0])  # "" in sys.path is the current folder
    child: subprocess.Popen[bytes] | None = None
    stopped_by: list[int] = []

    def forward(signum: int, frame: FrameType | None) -> None:
        stopped_by.append(signum)
        if child is not None and child.poll() is None:
            child.send_signal(signum)

    previous = {signum: signal.signal(signum, forward) for signum in _FORWARDED}
    try:
        try:
            child = subprocess.Popen(
                [sys.executable, "-P", "-c", _CHILD, head, *argv],
                env={**os.environ, REPORT_FD: str(write_end)},
                pass_fds=(write_end,),
            )
        except OSError as exc:
            sys.stderr.write(f"error: qaeval {command}: cannot start the command: {exc.strerror or exc}\n")
            return NO_VERDICT_EXIT
        finally:
            os.close(write_end)
        status = child.wait()  # a forwarded signal interrupts the wait, which then resumes
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        report = _read_report(read_end)
        os.close(read_end)
    if report is not None:
        return report
    sys.stderr.write(f"error: qaeval {command} ended without a verdict: {_how(status, stopped_by)}\n")
    sys.stderr.flush()
    return NO_VERDICT_EXIT


def _read_report(read_end: int) -> int | None:
    """The exit code the child reported, or None. Never waits: a process the child forked may
    still hold the pipe open, but the report, if any, was written before the child ended."""
    os.set_blocking(read_end, False)
    try:
        data = os.read(read_end, 64)
    except BlockingIOError:
        return None
    if not data.startswith(_REPORT_PREFIX):
        return None
    try:
        return int(data[len(_REPORT_PREFIX) :].strip())
    except ValueError:
        return None


def _how(status: int, stopped_by: list[int]) -> str:
    advice = "an adapter or judge must return or raise, never end the process; this is not a pass"
    if status < 0:
        name = _signal_name(-status)
        if -status in stopped_by:
            return f"it was stopped by {name} before the command finished; this is not a pass"
        return f"the process was killed by {name} before the command finished (a crash or a kill); {advice}"
    return f"the code it ran exited the process (exit {status}) before the command finished; {advice}"


def _signal_name(number: int) -> str:
    try:
        return f"{signal.Signals(number).name} (signal {number})"
    except ValueError:
        return f"signal {number}"


# -- the child's side -------------------------------------------------------------------------


def interrupt_once() -> None:
    """In the child: the first SIGINT interrupts the command; copies of it that arrive later are
    ignored. A terminal's Ctrl-C reaches the child from the terminal and again from the parent's
    forwarding; the copy used to land while the interrupted command was unwinding and print an
    "Exception ignored ... KeyboardInterrupt" traceback."""

    def first(signum: int, frame: FrameType | None) -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, first)


def take_report_fd() -> int | None:
    """In a supervised child, the pipe to report on (taken out of the environment, so code the
    command runs, and processes it starts, never see it); None anywhere else."""
    value = os.environ.pop(REPORT_FD, None)
    if value is None:
        return None
    try:
        fd = int(value)
        os.set_inheritable(fd, False)
    except (ValueError, OSError):
        return None
    return fd


def report_exit(fd: int, code: object) -> None:
    """Tell the parent the command reached its end with exit code `code` (as `SystemExit.code`)."""
    number = code if isinstance(code, int) else 0 if code is None else 1
    for stream in (sys.stdout, sys.stderr):  # what the command printed goes out before its verdict
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    try:
        os.write(fd, _REPORT_PREFIX + str(number).encode() + b"\n")
        os.close(fd)
    except OSError:
        pass  # then the parent reports no verdict: never a pass
