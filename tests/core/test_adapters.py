"""The SUT boundary: what crosses to the adapter, and loading `module:factory` plug-ins."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from qaeval_tui.bundled.hub import ReferenceHub
from qaeval_tui.bundled.mechanical_judge import make_mechanical_judge
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.models.run import CaseView, SUTOutput
from qaeval_tui.core.running.adapters import adapter_label, case_view, load_adapter, load_factory
from qaeval_tui.core.running.runner import run_suite
from tests.core.run_fixtures import RUBRIC, ScriptedAdapter, abstain_case, case, loaded, multi_hop_case

SECRET_ID = "secret-readable-id-7"
SECRET_TAG = "zebra-tag-adversarial"
SECRET_GOLD = "GOLD-ANSWER-XYZZY, nowhere in the sources"


def test_the_adapter_never_receives_gold_behaviour_tags_or_the_readable_id() -> None:
    cases = [
        loaded(case(SECRET_ID, adversarial=SECRET_TAG, gold_answer=SECRET_GOLD, gold_source_ids=["s3"])),
        loaded(abstain_case("abstain-0006", adversarial=SECRET_TAG), split="living"),
        loaded(multi_hop_case("multi-hop-label-9", gold_answer=SECRET_GOLD)),
    ]
    spy = ScriptedAdapter(lambda view: SUTOutput(answer="", abstained=True))
    run_suite(cases, spy, make_mechanical_judge(), rubric=RUBRIC, adapter_spec="spy", judge_spec="j", workers=2)
    assert len(spy.seen) == 3
    for crossed, item in zip(spy.seen, cases, strict=True):
        assert type(crossed) is CaseView
        assert set(crossed.model_dump()) == {"opaque_id", "question", "sources"}
        wire = json.dumps(crossed.model_dump(mode="json"))
        for secret in (
            SECRET_ID,
            SECRET_TAG,
            SECRET_GOLD,
            "abstain-0006",
            "multi-hop-label-9",
            "unanswerable_lookalike",
        ):
            assert secret not in wire, secret
        for label in ("gold", "expected_behavior", "adversarial", "difficulty", "checkpoints", "provenance", "split"):
            assert f'"{label}' not in wire
        assert crossed.opaque_id != item.case.id and item.case.id not in crossed.opaque_id
        assert crossed.question == item.case.question and list(crossed.sources) == list(item.case.sources)


def test_the_opaque_id_is_stable_and_differs_between_cases() -> None:
    first, second = loaded(case("a")), loaded(case("b"))
    assert case_view(first).opaque_id == case_view(loaded(case("a"))).opaque_id
    assert case_view(first).opaque_id != case_view(second).opaque_id


@pytest.fixture
def plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    (tmp_path / "my_plugins.py").write_text(
        "from qaeval_tui.bundled.hub import ReferenceHub\n"
        "VALUE = 3\n"
        "def make():\n    return ReferenceHub()\n"
        "def needs(x):\n    return ReferenceHub()\n"
        "def explodes():\n    raise RuntimeError('no credentials configured')\n"
        "def not_an_adapter():\n    return object()\n"
        "def exits():\n    raise SystemExit(0)\n"
    )
    (tmp_path / "broken_plugin.py").write_text("import does_not_exist_anywhere\n")
    (tmp_path / "exiting_plugin.py").write_text("import sys\nsys.exit(3)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield
    for name in ("my_plugins", "broken_plugin", "exiting_plugin"):
        sys.modules.pop(name, None)


def test_load_factory_builds_from_a_zero_argument_factory(plugins: None) -> None:
    adapter = load_adapter("my_plugins:make")
    assert isinstance(adapter, ReferenceHub)
    assert adapter_label(adapter, "my_plugins:make") == "reference-hub"
    assert adapter_label(object(), "pkg:factory") == "pkg:factory"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("my_plugins", "expected module:factory"),
        ("no_such_module_qaeval:make", "no module named 'no_such_module_qaeval'"),
        ("broken_plugin:make", "importing 'broken_plugin' failed"),
        ("my_plugins:missing", "has no attribute 'missing'"),
        ("my_plugins:VALUE", "'VALUE' is not callable"),
        ("my_plugins:needs", "the factory needs arguments (x)"),
        ("my_plugins:explodes", "the factory raised RuntimeError: no credentials configured"),
        ("my_plugins:not_an_adapter", "has no answer(view) method"),
        # Code that exits has failed: never an exit 0 (or 3) with nothing said.
        ("my_plugins:exits", "the factory raised SystemExit(0): the code tried to exit the process"),
        ("exiting_plugin:make", "importing 'exiting_plugin' failed: SystemExit(3)"),
    ],
)
def test_a_bad_adapter_spec_is_a_usage_error_that_says_what_to_fix(plugins: None, spec: str, message: str) -> None:
    with pytest.raises(UsageError) as caught:
        load_adapter(spec)
    assert message in str(caught.value) and caught.value.exit_code == 2
    assert spec in str(caught.value)


def test_load_factory_names_the_option_it_serves(plugins: None) -> None:
    with pytest.raises(UsageError, match=r"^--judge 'my_plugins'"):
        load_factory("my_plugins", "--judge")
