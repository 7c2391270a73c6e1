"""Judges and adapters that fail in the ways a real one does, for `--judge` / `--adapter` in CLI tests.

Each judge keeps the mechanical judge's config, so a baseline made with the mechanical judge
stays comparable and only the failure differs.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

from qaeval_tui.bundled.hub import ReferenceHub
from qaeval_tui.bundled.mechanical_judge import MechanicalJudge
from qaeval_tui.core.models.golden import GoldenCase
from qaeval_tui.core.models.run import CaseView, SUTOutput
from qaeval_tui.core.rubric import Rubric
from qaeval_tui.core.running.judge import JudgeResult


class OutageJudge(MechanicalJudge):
    """Every call fails, as a judge API does during an outage."""

    def score(self, case: GoldenCase, output: SUTOutput, rubric: Rubric) -> JudgeResult:
        raise RuntimeError("judge API unavailable (HTTP 503)")


class FlakyJudge(MechanicalJudge):
    """Fails on one case only."""

    def score(self, case: GoldenCase, output: SUTOutput, rubric: Rubric) -> JudgeResult:
        if case.id == "warranty-02":
            raise TimeoutError("judge timed out after 60 s")
        return super().score(case, output, rubric)


class ExitingJudge(MechanicalJudge):
    def score(self, case: GoldenCase, output: SUTOutput, rubric: Rubric) -> JudgeResult:
        sys.exit(0)


class EmptyScoresJudge(MechanicalJudge):
    def score(self, case: GoldenCase, output: SUTOutput, rubric: Rubric) -> JudgeResult:
        return JudgeResult({}, {})


class ListEvidenceJudge(MechanicalJudge):
    """Right scores, but evidence of the wrong shape (lists of spans instead of one quoted span)."""

    def score(self, case: GoldenCase, output: SUTOutput, rubric: Rubric) -> JudgeResult:
        result = super().score(case, output, rubric)
        evidence: Any = {axis: [span] for axis, span in result.evidence.items()}
        return JudgeResult(result.scores, evidence)


class CannotJudgeJudge(MechanicalJudge):
    """Says "can't judge" on every axis of every case: no error, and no score either."""

    def score(self, case: GoldenCase, output: SUTOutput, rubric: Rubric) -> JudgeResult:
        return JudgeResult(dict.fromkeys(rubric.axis_names))


class ExitingHub(ReferenceHub):
    """The reference hub, except that it calls sys.exit(0) on one question."""

    name = "exiting-hub"

    def answer(self, view: CaseView) -> SUTOutput:
        if "warranty term" in view.question:
            sys.exit(0)
        return super().answer(view)


class NaNHub(ReferenceHub):
    """The reference hub, except that it computes NaN for a checkpoint value on the multi-hop question."""

    name = "nan-hub"

    def answer(self, view: CaseView) -> SUTOutput:
        output = super().answer(view)
        if "E517" in view.question:
            return output.model_copy(update={"computed": {"part_price": float("nan")}})
        return output


def make_outage_judge() -> OutageJudge:
    return OutageJudge()


def make_flaky_judge() -> FlakyJudge:
    return FlakyJudge()


def make_exiting_judge() -> ExitingJudge:
    return ExitingJudge()


def make_empty_scores_judge() -> EmptyScoresJudge:
    return EmptyScoresJudge()


def make_list_evidence_judge() -> ListEvidenceJudge:
    return ListEvidenceJudge()


def make_cannot_judge_judge() -> CannotJudgeJudge:
    return CannotJudgeJudge()


def make_exiting_hub() -> ExitingHub:
    return ExitingHub()


def make_nan_hub() -> NaNHub:
    return NaNHub()


def make_nothing_but_exit() -> ReferenceHub:
    """A factory that exits instead of returning an adapter."""
    sys.exit(0)


class TopOrQuietJudge(MechanicalJudge):
    """Keeps its top scores and says "can't judge" everywhere else: its mean can only rise."""

    def score(self, case: GoldenCase, output: SUTOutput, rubric: Rubric) -> JudgeResult:
        result = super().score(case, output, rubric)
        tops = {axis.name: axis.scale[-1] for axis in rubric.axes}
        return JudgeResult(
            {axis: (value if value == tops[axis] else None) for axis, value in result.scores.items()},
            {axis: span for axis, span in result.evidence.items() if result.scores.get(axis) == tops[axis]},
        )


def make_top_or_quiet_judge() -> TopOrQuietJudge:
    return TopOrQuietJudge()


# -- code that ends the process where no `try` can catch it (run through the real `qaeval` script) --


class VanishingHub(ReferenceHub):
    """Ends the process with os._exit(0) on one question: no exception, no cleanup, exit status 0."""

    def answer(self, view: CaseView) -> SUTOutput:
        if "warranty term" in view.question:
            os._exit(0)
        return super().answer(view)


class VanishingJudge(MechanicalJudge):
    def score(self, case: GoldenCase, output: SUTOutput, rubric: Rubric) -> JudgeResult:
        os._exit(0)


class SelfKillingHub(ReferenceHub):
    def answer(self, view: CaseView) -> SUTOutput:
        os.kill(os.getpid(), signal.SIGKILL)
        return super().answer(view)


class SegfaultingHub(ReferenceHub):
    def answer(self, view: CaseView) -> SUTOutput:
        ctypes.string_at(0)  # reads address 0: SIGSEGV in native code
        return super().answer(view)


class SlowHub(ReferenceHub):
    """Writes its process id to the file named by QAEVAL_TEST_MARKER, then takes a minute to answer."""

    def answer(self, view: CaseView) -> SUTOutput:
        marker = Path(os.environ["QAEVAL_TEST_MARKER"])
        marker.write_text(f"{os.getpid()} {os.environ.get('QAEVAL_SUPERVISOR_FD', '-')}\n")
        time.sleep(60)
        return super().answer(view)


def make_vanishing_hub() -> VanishingHub:
    return VanishingHub()


def make_vanishing_judge() -> VanishingJudge:
    return VanishingJudge()


def make_self_killing_hub() -> SelfKillingHub:
    return SelfKillingHub()


def make_segfaulting_hub() -> SegfaultingHub:
    return SegfaultingHub()


def make_slow_hub() -> SlowHub:
    return SlowHub()


# -- messages from user code that try to print a second `error:` line ----------------------------

FORGED = "boom\nerror: forged second line\x1b[31m"


def make_forging_factory() -> ReferenceHub:
    raise ValueError(FORGED)


class ForgingConfigJudge(MechanicalJudge):
    @property
    def config(self) -> Any:
        raise ValueError(FORGED)


def make_forging_config_judge() -> ForgingConfigJudge:
    return ForgingConfigJudge()


def make_forging_type() -> object:
    """Returns an object whose class name holds a newline, ESC and a fake error line."""
    return type("Hub\nerror: forged second line\x1b[31m", (), {})()
