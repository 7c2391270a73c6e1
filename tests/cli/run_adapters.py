"""Adapters the CLI tests load by `--adapter tests.cli.run_adapters:<factory>`."""

from __future__ import annotations

from qaeval_tui.bundled.hub import ReferenceHub
from qaeval_tui.core.models.run import CaseView, Citation, SUTOutput


class RegressingHub(ReferenceHub):
    """The reference hub, made worse in three places: a miscitation, a refusal, a spoken answer with markup."""

    name = "regressing-hub"

    def answer(self, view: CaseView) -> SUTOutput:
        output = super().answer(view)
        if "warranty term" in view.question:
            return output.model_copy(update={"citations": (Citation(source_id="s2", quote=output.answer),)})
        if "How long" in view.question:
            return SUTOutput(answer="I cannot say.", abstained=True)
        if "financing" in view.question:
            rude = "[bold red]Yes[/], always \x1b[2J financing."
            return SUTOutput(
                answer=rude,
                citations=(),
                retrieved_ids=("s1",),
                model_was_called=True,
                prompt=f"Question: {view.question}\n{view.sources[0].text}",
            )
        return output


class RefusingHub:
    name = "refusing-hub"

    def answer(self, view: CaseView) -> SUTOutput:
        return SUTOutput(answer="No.", abstained=True)


def make_regressing_hub() -> RegressingHub:
    return RegressingHub()


def make_refusing_hub() -> RefusingHub:
    return RefusingHub()


class VaryingHub(ReferenceHub):
    """The reference hub, except that every other time it is asked it drops its answer's citations: a system
    whose answers vary between runs, as an LLM at temperature > 0 does (deterministic by its call count)."""

    name = "varying-hub"

    def __init__(self) -> None:
        super().__init__()
        self.asked = 0

    def answer(self, view: CaseView) -> SUTOutput:
        output = super().answer(view)
        self.asked += 1
        if self.asked % 2 == 0 and not output.abstained:
            return output.model_copy(update={"citations": ()})
        return output


def make_varying_hub() -> VaryingHub:
    return VaryingHub()
