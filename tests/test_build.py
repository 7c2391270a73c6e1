"""`python -m build` makes a wheel and an sdist of a clean checkout, and each installs into a fresh
virtual environment whose `qaeval --help` runs: what the README's install instructions rely on.

The build is isolated (pip fetches setuptools from the configured index, as any user's build does)
and runs on a copy of the tracked files, so no `build/` or `*.egg-info` is left in the checkout.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO


def run(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, f"{' '.join(map(str, args))}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    return done


def tracked_copy(target: Path) -> Path:
    files = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    for name in files.decode("utf-8").split("\0"):
        if name and (REPO / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, target / name)
    return target


def test_the_wheel_and_the_sdist_install_into_a_fresh_venv_and_qaeval_runs(tmp_path: Path) -> None:
    source = tracked_copy(tmp_path / "checkout")
    run(sys.executable, "-m", "build", "--outdir", tmp_path / "dist", ".", cwd=source)
    wheel = next((tmp_path / "dist").glob("qaeval_tui-*-py3-none-any.whl"))
    sdist = next((tmp_path / "dist").glob("qaeval_tui-*.tar.gz"))
    for artifact in (wheel, sdist):
        venv = tmp_path / f"venv-{artifact.suffix.strip('.')}"
        run(sys.executable, "-m", "venv", venv, cwd=tmp_path)
        run(venv / "bin" / "python", "-m", "pip", "install", "--quiet", artifact, cwd=tmp_path)
        helped = run(venv / "bin" / "qaeval", "--help", cwd=tmp_path)
        assert "Usage: qaeval" in helped.stdout and "review" in helped.stdout
        styles = run(
            venv / "bin" / "python",
            "-c",
            "import importlib.resources as r; print(r.files('qaeval_tui.tui') / 'app.tcss')",
            cwd=tmp_path,
        )
        assert Path(styles.stdout.strip()).is_file()  # package data travels with the package


def test_no_install_instruction_names_an_index_the_package_is_not_on() -> None:
    """`pip install qaeval_tui` and `pip install "qaeval_tui[llm]"` cannot work: nothing is published."""
    import re

    for path in (REPO / "README.md", REPO / "examples" / "github-actions.yml"):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"(pip|pipx|uv tool) install \"?qaeval_tui(\[|\"|\s|$)", text), path
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for command in ('pip install ".[llm]"', "pipx install .", "uv tool install .", "python -m build"):
        assert command in readme
