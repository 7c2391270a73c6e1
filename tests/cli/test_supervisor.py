"""Code that ends the process is never a pass: `run`, `baseline`, `gate` and `drift` run supervised.

An adapter or judge calling os._exit(0), crashing in native code or killing its own process
cannot be caught in-process; the console entry point runs the command in a child and exits 2,
with one line saying so, when the child ends without reporting that the command finished. These
tests drive the real installed `qaeval` script, as a CI job does (CliRunner calls the command
in-process, unsupervised).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import DEMO_GOLDEN, REPO, write_jsonl
from tests.core.run_fixtures import abstain_case, case, multi_hop_case

pytestmark = pytest.mark.skipif(os.name != "posix", reason="supervision needs pass_fds (POSIX)")

QAEVAL = Path(sys.executable).parent / "qaeval"
PLUGINS = "tests.cli.hostile_plugins"
NO_VERDICT = "ended without a verdict"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A four-case suite and its baseline, made once through the real script."""
    root = tmp_path_factory.mktemp("supervised")
    cases = [
        case("warranty-01"),
        case("warranty-02", question="What warranty term applies to the HB-10?"),
        abstain_case("financing-01"),
        multi_hop_case("fan-price-01"),
    ]
    write_jsonl(root / "golden" / "frozen.jsonl", [c.model_dump(mode="json") for c in cases])
    made = qaeval(root, "baseline", "--out", str(root / "baseline.json"))
    assert made.returncode == 0, made.stderr
    return root


def qaeval(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The installed script, from the repository root (so `tests.cli...` plug-ins import), on `root`'s data."""
    command = [str(QAEVAL), *args, "--data", str(root / "golden"), "--db", str(root / "runs.db")]
    return subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=120, check=False)


def gate(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return qaeval(root, "gate", "--baseline", str(root / "baseline.json"), *args)


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("error:")]


def test_the_script_exists() -> None:
    assert QAEVAL.is_file(), f"{QAEVAL} missing: run `make install`"


def test_an_adapter_calling_os_exit_0_makes_the_gate_exit_2_saying_so(workspace: Path) -> None:
    result = gate(workspace, "--adapter", f"{PLUGINS}:make_vanishing_hub")
    assert result.returncode == 2
    assert error_lines(result.stderr) == [
        "error: qaeval gate ended without a verdict: the code it ran exited the process (exit 0) before the command "
        "finished; an adapter or judge must return or raise, never end the process; this is not a pass"
    ]
    assert "GATE: PASS" not in result.stdout


@pytest.mark.parametrize("command", ["run", "baseline", "drift"])
def test_a_judge_calling_os_exit_0_ends_every_supervised_command_with_2(workspace: Path, command: str) -> None:
    extra = {
        "run": [],
        "baseline": ["--out", str(workspace / "never.json")],
        "drift": ["--timeseries", str(workspace / "series.jsonl")],
    }[command]
    result = qaeval(workspace, command, *extra, "--judge", f"{PLUGINS}:make_vanishing_judge")
    assert result.returncode == 2
    assert error_lines(result.stderr) == [
        f"error: qaeval {command} ended without a verdict: the code it ran exited the process (exit 0) before the "
        "command finished; an adapter or judge must return or raise, never end the process; this is not a pass"
    ]
    assert not (workspace / "never.json").exists() and not (workspace / "series.jsonl").exists()


@pytest.mark.parametrize(
    ("factory", "signal_name"), [("make_self_killing_hub", "SIGKILL"), ("make_segfaulting_hub", "SIGSEGV")]
)
def test_an_adapter_killed_or_crashing_in_native_code_makes_the_gate_exit_2(
    workspace: Path, factory: str, signal_name: str
) -> None:
    result = gate(workspace, "--adapter", f"{PLUGINS}:{factory}")
    assert result.returncode == 2
    [line] = error_lines(result.stderr)
    assert line.startswith(f"error: qaeval gate ended without a verdict: the process was killed by {signal_name}")


def test_the_commands_own_exit_codes_pass_through_unchanged(workspace: Path) -> None:
    passed = gate(workspace)
    assert passed.returncode == 0 and "GATE: PASS" in passed.stdout and NO_VERDICT not in passed.stderr
    blocked = gate(workspace, "--adapter", "tests.cli.run_adapters:make_regressing_hub")
    assert blocked.returncode == 1 and "GATE: BLOCK" in blocked.stdout and NO_VERDICT not in blocked.stderr
    usage = gate(workspace, "--adapter", "no_colon")
    assert usage.returncode == 2 and NO_VERDICT not in usage.stderr
    assert error_lines(usage.stderr) == [
        "error: --adapter 'no_colon': expected module:factory, e.g. qaeval_tui.bundled.hub:make_reference_hub"
    ]
    unknown = gate(workspace, "--no-such-option")
    assert unknown.returncode == 2 and "No such option" in unknown.stderr and "Usage: qaeval gate" in unknown.stderr
    ran = qaeval(workspace, "run", "--json")
    assert ran.returncode == 0 and ran.stdout.startswith("{") and ran.stderr == ""


def test_sigterm_to_the_supervisor_stops_the_command_and_is_no_pass(workspace: Path, tmp_path: Path) -> None:
    marker = tmp_path / "adapter.pid"
    command = [str(QAEVAL), "gate", "--baseline", str(workspace / "baseline.json"), "--data", str(workspace / "golden")]
    command += ["--db", str(tmp_path / "runs.db"), "--adapter", f"{PLUGINS}:make_slow_hub"]
    env = {**os.environ, "QAEVAL_TEST_MARKER": str(marker)}
    with subprocess.Popen(
        command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as parent:
        pid, seen_fd = _wait_for_marker(marker, parent)
        assert seen_fd == "-"  # the report pipe's variable is taken out of the environment user code sees
        parent.send_signal(signal.SIGTERM)  # the supervisor alone, as a CI runner's cancel does
        out, err = parent.communicate(timeout=30)
    assert parent.returncode == 2
    assert error_lines(err) == [
        "error: qaeval gate ended without a verdict: it was stopped by SIGTERM (signal 15) before the command "
        "finished; this is not a pass"
    ]
    assert "GATE" not in out
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # the command's process is gone, not left running


@pytest.mark.parametrize("to_the_group", [False, True], ids=["kill-the-supervisor", "ctrl-c-at-a-terminal"])
def test_sigint_reaches_the_command_once(workspace: Path, tmp_path: Path, to_the_group: bool) -> None:
    # A terminal's Ctrl-C goes to the whole process group: the command gets it from the terminal
    # and again from the supervisor, which must forward it for a `kill -INT` of itself alone.
    marker = tmp_path / "adapter.pid"
    command = [str(QAEVAL), "run", "--data", str(workspace / "golden"), "--db", str(tmp_path / "runs.db")]
    command += ["--adapter", f"{PLUGINS}:make_slow_hub"]
    env = {**os.environ, "QAEVAL_TEST_MARKER": str(marker)}
    with subprocess.Popen(
        command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    ) as parent:
        pid, _ = _wait_for_marker(marker, parent)
        if to_the_group:
            os.killpg(parent.pid, signal.SIGINT)
        else:
            parent.send_signal(signal.SIGINT)
        _, err = parent.communicate(timeout=30)
    # The interrupted command ends promptly, as it does unsupervised: exit 130 (128 + SIGINT), no traceback.
    assert parent.returncode == 130 and NO_VERDICT not in err and "Traceback" not in err
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def _wait_for_marker(marker: Path, parent: subprocess.Popen[str]) -> tuple[int, str]:
    deadline = time.monotonic() + 60
    while not marker.exists() or not marker.read_text().endswith("\n"):
        assert parent.poll() is None, parent.communicate()
        assert time.monotonic() < deadline, "the adapter never started"
        time.sleep(0.05)
    pid, seen_fd = marker.read_text().split()
    return int(pid), seen_fd


def test_deciding_to_supervise_loads_no_cli_library_in_the_parent() -> None:
    # The parent starts a second interpreter; it must not also pay for typer, rich and pydantic.
    code = (
        "import sys\n"
        "sys.argv = ['qaeval', '--config', 'none.toml', 'gate', '--no-such-option']\n"
        "from qaeval_tui.cli.main import run\n"
        "try:\n"
        "    run()\n"
        "except SystemExit as exc:\n"
        "    assert exc.code == 2, exc.code\n"
        "print(' '.join(sorted(sys.modules)))"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    loaded = {name.split(".")[0] for name in result.stdout.split()}
    assert not loaded & {"typer", "click", "rich", "pydantic", "numpy", "textual"}
    assert "No such option" in result.stderr  # the child parsed the command line and said what was wrong


def test_a_module_in_the_current_folder_shadows_no_library_in_the_command(tmp_path: Path) -> None:
    # The command starts in a child interpreter; a `python -c` or `-m` child would put the current
    # folder first on its import path, where the `qaeval` script never does.
    (tmp_path / "rich.py").write_text("raise ImportError('the local rich.py was imported')\n")
    result = subprocess.run(
        [str(QAEVAL), "run", "--data", str(DEMO_GOLDEN), "--db", str(tmp_path / "runs.db")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "Cases: 39" in result.stdout
