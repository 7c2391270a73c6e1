"""Write the synthetic demo labels in `labels/`: reproducible from a seed, and plainly synthetic.

    .venv/bin/python scripts/make_demo_labels.py [--out labels] [--seed 7]

It runs the bundled demo set through the configured reference hub and mechanical judge in a
throw-away store, builds the review queue exactly as `qaeval queue` does (reviewers ana, ben and
chloe, overlap 2), and invents each reviewer's labels from a seeded model of people:

- a latent "true" score per item and axis: the judge's score, except where the judge is wrong
  at an axis-specific rate (lenient on citation correctness, so that axis calibrates RETUNE);
- per-reviewer noise (one scale step), a harsh reviewer on answer correctness, "can't judge"
  where the system abstained and there is no citation to judge, and now and then elsewhere;
- skips that are labeled later, blind second thoughts (a new revision), flags with notes, and
  post-reveal revisions that drift toward the judge (left out of agreement and calibration).

Output: `<reviewer>.jsonl` (DESIGN §8.2) and `judge-verdicts.jsonl` (§8.3). Timestamps follow a
fixed demo clock (verdict times included), so rerunning the script reproduces every byte.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from qaeval_tui.core.config import Config, load_config
from qaeval_tui.core.golden.loader import load_golden
from qaeval_tui.core.models.label import Label
from qaeval_tui.core.review.labels_io import VERDICTS_FILENAME, export_labels
from qaeval_tui.core.review.session import assign, build_review_items
from qaeval_tui.core.rubric import Axis
from qaeval_tui.core.running.adapters import load_adapter
from qaeval_tui.core.running.judge import load_judge
from qaeval_tui.core.running.runner import run_suite, store_run
from qaeval_tui.core.store.sqlite import Store

REVIEWERS = ("ana", "ben", "chloe")
OVERLAP = 2
CLOCK = datetime(2026, 1, 12, 9, 0, tzinfo=UTC)
# How often the judge's score is wrong, per axis (the latent truth moves one step).
JUDGE_ERROR = {"faithfulness": 0.12, "citation_correctness": 0.35, "answer_correctness": 0.15}
NOISE = {"ana": 0.05, "ben": 0.08, "chloe": 0.1}
NOTES = (
    "The answer quotes the right manual but for the wrong model.",
    "Citation [1] supports only half of the claim.",
    "Unsure whether the older bulletin still applies.",
    "Gold answer looks incomplete; please check the living split.",
    "Answer is right but cites a decoy source.",
)


def stamp(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def step(axis: Axis, value: int, rng: random.Random, direction: int | None = None) -> int:
    """One scale step up or down from `value`, staying on the scale."""
    index = axis.scale.index(value)
    moves = [d for d in (-1, 1) if 0 <= index + d < len(axis.scale)]
    move = direction if direction in moves else rng.choice(moves)
    return axis.scale[index + move]


def latent_truth(axis: Axis, judge_score: int | None, rng: random.Random) -> int | None:
    if judge_score is None:
        return None
    if rng.random() >= JUDGE_ERROR.get(axis.name, 0.15):
        return judge_score
    # The judge is lenient on citations: the truth is lower than it says.
    return step(axis, judge_score, rng, -1 if axis.name == "citation_correctness" else None)


def reviewer_score(axis: Axis, truth: int | None, reviewer: str, rng: random.Random) -> int | None:
    if truth is None:
        return None if rng.random() < 0.85 else axis.scale[-1]
    if rng.random() < 0.03:
        return None
    value = truth
    if rng.random() < NOISE[reviewer]:
        value = step(axis, value, rng)
    if reviewer == "chloe" and axis.name == "answer_correctness" and rng.random() < 0.15:
        value = step(axis, value, rng, -1)
    return value


def demo_run(config: Config, store: Store) -> str:
    golden = load_golden([config.path(config.paths.golden)])
    result = run_suite(
        golden.cases,
        load_adapter(config.run.adapter),
        load_judge(config.run.judge),
        rubric=config.rubric,
        adapter_spec=config.run.adapter,
        judge_spec=config.run.judge,
    )
    store_run(store, result)
    return result.run_id


class Reviewer:
    """One invented reviewer's session: a clock, revision numbers, and the label lines written."""

    def __init__(self, name: str, case_of: dict[str, str], rubric_version: str, rng: random.Random) -> None:
        self.name, self.case_of, self.rubric_version, self.rng = name, case_of, rubric_version, rng
        self.clock = CLOCK
        self.revision: dict[str, int] = {}
        self.lines: list[dict[str, Any]] = []

    def write(self, item_id: str, scores: dict[str, int | None], **fields: Any) -> None:
        seconds = round(min(600.0, self.rng.lognormvariate(3.7, 0.5)), 1)
        self.clock += timedelta(seconds=seconds + self.rng.randint(2, 20))
        self.revision[item_id] = self.revision.get(item_id, 0) + 1
        self.lines.append(
            {
                "item_id": item_id, "case_id": self.case_of[item_id], "reviewer": self.name, "scores": scores,
                "note": fields.get("note", ""), "flagged": fields.get("flagged", False),
                "skipped": fields.get("skipped", False), "rubric_version": self.rubric_version,
                "revealed": fields.get("revealed", False), "revision": self.revision[item_id],
                "created_at": stamp(self.clock), "seconds_spent": seconds,
            }
        )  # fmt: skip


def make_labels(store: Store, config: Config, run_id: str, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    axes = config.rubric.axes
    verdicts = {v.item_id: v.verdict.to_json() for v in store.verdicts(run_id=run_id)}
    case_of = store.case_ids_by_item()
    truth = {
        item_id: {axis.name: latent_truth(axis, verdict["scores"].get(axis.name), rng) for axis in axes}
        for item_id, verdict in sorted(verdicts.items())
    }
    labels: list[dict[str, Any]] = []
    for name in REVIEWERS:
        reviewer = Reviewer(name, case_of, config.rubric.version, rng)
        queue = [item_id for _, item_id, _ in store.assignments(name)]
        skipped = set(rng.sample(queue, 2))
        for item_id in queue:
            if item_id in skipped:
                reviewer.write(item_id, {}, skipped=True)
        for item_id in [i for i in queue if i not in skipped] + sorted(skipped, key=queue.index):
            scores = {axis.name: reviewer_score(axis, truth[item_id][axis.name], name, rng) for axis in axes}
            flagged = rng.random() < 0.08
            reviewer.write(item_id, scores, flagged=flagged, note=rng.choice(NOTES) if flagged else "")
            if rng.random() < 0.06:  # a blind second thought, via undo
                scored = [axis for axis in axes if scores[axis.name] is not None]
                if scored:
                    axis = rng.choice(scored)
                    scores = {**scores, axis.name: step(axis, scores[axis.name] or axis.scale[0], rng)}
                    reviewer.write(item_id, scores, note="second look")
            judge_scores = verdicts[item_id]["scores"]
            if name == "ben" and rng.random() < 0.25:  # reveals, and drifts toward the judge
                drifted = {k: judge_scores.get(k) if judge_scores.get(k) is not None else v for k, v in scores.items()}
                if drifted != scores:
                    reviewer.write(item_id, drifted, revealed=True, note="after seeing the judge")
        labels.extend(reviewer.lines)
    return labels


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=None, help="Folder to write (default: paths.labels).")
    parser.add_argument("--seed", type=int, default=7, help="Seed of the queue and of the invented labels.")
    parser.add_argument("--config", type=Path, default=None, help="Config file (default: the usual lookup).")
    args = parser.parse_args(argv)
    config = load_config(args.config)
    out = args.out or config.path(config.paths.labels)
    with tempfile.TemporaryDirectory(prefix="qaeval-demo-") as tmp, Store.open(Path(tmp) / "demo.db") as store:
        run_id = demo_run(config, store)
        build_review_items(store, run_id)
        assign(store, REVIEWERS, OVERLAP, args.seed)
        labels = make_labels(store, config, run_id, args.seed)
        store.insert_labels((Label.model_validate(label) for label in labels), origin="synthetic-demo")
        written = export_labels(store, out, REVIEWERS)
        verdicts = [
            {**v, "created_at": stamp(CLOCK - timedelta(days=1))}
            for v in (r.verdict.to_json() for r in store.verdicts(run_id=run_id))
        ]
        with (out / VERDICTS_FILENAME).open("w", encoding="utf-8", newline="\n") as handle:
            for verdict in verdicts:
                handle.write(json.dumps(verdict, ensure_ascii=False) + "\n")
    items = len({label["item_id"] for label in labels})
    print(f"{out}: {sum(written.values())} label revisions by {len(written)} reviewers on {items} items; "
          f"{len(verdicts)} judge verdicts in {VERDICTS_FILENAME}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
