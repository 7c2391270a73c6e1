"""`python -m scripts.screenshots FOLDER` (`make screenshots`): an SVG of every screen.

Plays every scene of `tests.tui.scenes.review` (the review app) and of `tests.tui.scenes.oversight`
(the curation and oversight screens) on the demo golden set, labels and inbox, and writes
FOLDER/<scene>.svg and FOLDER/oversight-<scene>.svg: the pictures the snapshot tests check.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import tempfile
from pathlib import Path

from qaeval_tui.core.atomic_file import why_not_written, write_output
from qaeval_tui.core.config import Config, load_config
from qaeval_tui.core.errors import QaevalError, UsageError
from tests.tui.scenes import oversight as oversight_scenes
from tests.tui.scenes.host import build_labeled_store
from tests.tui.scenes.review import SCENES, Scene, build_demo_store, scene_app


async def _shoot(scene: Scene, template: Path, workdir: Path, golden: Path, config: Config, out: Path) -> Path:
    app = scene_app(scene, template, workdir, golden, config)
    async with app.run_test(size=scene.size) as pilot:
        await scene.steps(pilot)
        await pilot.pause()
        app.clear_notifications()
        await pilot.pause()
        target = out / f"{scene.name}.svg"
        write_output(target, app.export_screenshot(title=f"qaeval review: {scene.title}", simplify=True))
    return target


async def _shoot_oversight(
    scene: oversight_scenes.OversightScene, template: Path, workdir: Path, golden: Path, out: Path
) -> Path:
    root = workdir / f"oversight-{scene.name}"
    root.mkdir()
    app = oversight_scenes.scene_app(scene, root, template, golden)
    with contextlib.chdir(root):  # paths on screen are relative to the scene's folder
        async with app.run_test(size=scene.size) as pilot:
            await oversight_scenes.settle(pilot, scene)
            await pilot.pause()
            svg = app.export_screenshot(title=f"qaeval: {scene.title}", simplify=True)
    target = out / f"oversight-{scene.name}.svg"
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
        template = workdir / "demo.db"
        build_demo_store(template, golden, config)
        for scene in SCENES:
            print(asyncio.run(_shoot(scene, template, workdir, golden, config, out)))
        labeled = build_labeled_store(workdir / "labeled.db", golden, config.path(config.paths.labels))
        for oversight_scene in oversight_scenes.SCENES:
            print(asyncio.run(_shoot_oversight(oversight_scene, labeled, workdir, golden, out)))


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
