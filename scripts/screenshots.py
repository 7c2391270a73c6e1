"""`python -m scripts.screenshots FOLDER` (`make screenshots`): an SVG of every screen.

Plays every shot of the one scene registry (`tests.tui.scenes.registry.SHOTS`: the review app and
the curation and oversight screens) on the demo golden set, labels and inbox, and writes
FOLDER/<file>.svg: the pictures the snapshot tests check.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import tempfile
from pathlib import Path

from qaeval_tui.core.atomic_file import why_not_written, write_output
from qaeval_tui.core.config import load_config
from qaeval_tui.core.errors import QaevalError, UsageError
from tests.tui.scenes.host import build_labeled_store
from tests.tui.scenes.registry import SHOTS, Shot, Templates, app_for, settle
from tests.tui.scenes.review import build_demo_store


async def _shoot(shot: Shot, templates: Templates, workdir: Path, out: Path) -> Path:
    app, folder = app_for(shot, templates, workdir)
    with contextlib.chdir(folder) if folder is not None else contextlib.nullcontext():
        async with app.run_test(size=shot.size) as pilot:
            await settle(shot, pilot)
            svg = app.export_screenshot(title=shot.title, simplify=True)
    target = out / f"{shot.file}.svg"
    write_output(target, svg)
    return target


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m scripts.screenshots FOLDER", file=sys.stderr)
        return 2
    try:
        _shoot_all(Path(argv[0]).resolve())
    except QaevalError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def _shoot_all(out: Path) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"{out}: cannot write: {why_not_written(out, exc)}") from exc
    config = load_config()
    golden = config.path(config.paths.golden)
    with tempfile.TemporaryDirectory(prefix="qaeval-shots-") as tmp:
        workdir = Path(tmp)
        demo = workdir / "demo.db"
        build_demo_store(demo, golden, config)
        labels = config.path(config.paths.labels)
        labeled = build_labeled_store(workdir / "labeled.db", golden, labels)
        templates = Templates(demo, labeled, golden, labels, config)
        for shot in SHOTS:
            print(asyncio.run(_shoot(shot, templates, workdir, out)))


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
