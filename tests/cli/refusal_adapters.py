"""An adapter for tests/cli/test_gate_statistical.py, loaded by `--adapter tests.cli.refusal_adapters:...`."""

from __future__ import annotations

import os

from qaeval_tui.bundled.hub import ReferenceHub
from qaeval_tui.core.models.run import CaseView, SUTOutput


class ExitThreeHub(ReferenceHub):
    """Ends the process with the refusal's own exit status, 3, before any verdict."""

    name = "exit-three-hub"

    def answer(self, view: CaseView) -> SUTOutput:
        os._exit(3)


def make_exit_three_hub() -> ExitThreeHub:
    return ExitThreeHub()
