"""The cascade: a small judge screens, a big one settles what the screen found borderline or could not
judge; both stages are in the verdict. Both judges are OpenAI-compatible clients of one loopback
server, which answers by the model a request names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from qaeval_tui.cli.main import app
from tests.conftest import write_jsonl
from tests.core.run_fixtures import case
from tests.llm_server import LLMServer, Reply, Request

runner = CliRunner()
SMALL, BIG = "judge-small", "judge-big"


def judgment(request: Request, faithfulness: int | None) -> str:
    if faithfulness is None:
        return json.dumps({"scores": {}, "abstain": True, "reason": "the sources do not cover this"})
    first = request.case["sources"][0]["text"][:30]
    scores = {name: {"score": scale[-1], "evidence": first} for name, scale in request.axes().items()}
    scores["faithfulness"]["score"] = faithfulness
    return json.dumps({"scores": scores, "abstain": False, "reason": None})


# question suffix -> (the small judge's faithfulness, the big judge's); None: it abstains
PLAN: dict[str, tuple[int | None, int | None]] = {"clear": (2, 2), "borderline": (1, 0), "unsure": (None, 2)}


def by_model(request: Request) -> str:
    kind = request.case["question"].rsplit(" ", 1)[-1]
    small, big = PLAN[kind]
    return judgment(request, small if request.body["model"] == SMALL else big)


def setup(tmp_path: Path, url: str, kinds: list[str], monkeypatch: pytest.MonkeyPatch, **cascade: str) -> list[str]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-9")
    cases = [case(f"c-{kind}", question=f"How long is the HB-10 warranty? {kind}") for kind in kinds]
    write_jsonl(tmp_path / "golden" / "frozen.jsonl", [c.model_dump(mode="json") for c in cases])
    lines = ["[judge]", 'kind = "openai"', f'model = "{SMALL}"', f'base_url = "{url}"', "max_retries = 0"]
    lines += ["[cascade]", *(f"{key} = {value}" for key, value in cascade.items())]
    lines += ["[cascade.judge]", 'kind = "openai"', f'model = "{BIG}"', f'base_url = "{url}"', "max_retries = 0"]
    (tmp_path / "qaeval.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    db = str(tmp_path / "r.db")
    return ["--config", str(tmp_path / "qaeval.toml"), "run", "--data", str(tmp_path / "golden"), "--db", db]


def verdicts(result: Any) -> dict[str, dict[str, Any]]:
    assert result.exit_code == 0, result.output
    return {c["case_id"]: c["verdict"] for c in json.loads(result.stdout)["cases"]}


def test_the_screen_settles_clear_cases_and_the_big_judge_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with LLMServer() as server:
        server.default = Reply(content=by_model)
        args = setup(tmp_path, server.openai_base_url, ["clear", "borderline", "unsure"], monkeypatch)
        found = verdicts(runner.invoke(app, [*args, "--json"]))
        models = [request.body["model"] for request in server.requests]
    assert sorted(models) == sorted([SMALL, SMALL, SMALL, BIG, BIG])  # the clear case never reached the big judge
    clear, borderline, unsure = found["c-clear"], found["c-borderline"], found["c-unsure"]
    assert clear["outcome"] == "faithful" and [s["stage"] for s in clear["stages"]] == ["screen"]
    assert clear["stages"][0]["escalated"] == []
    assert borderline["outcome"] == "unfaithful" and borderline["scores"]["faithfulness"] == 0  # the big judge's
    screen, strong = borderline["stages"]
    assert (screen["judge"]["model"], screen["scores"]["faithfulness"], screen["escalated"]) == (
        SMALL, 1, ["borderline"],
    )  # fmt: skip
    assert (strong["judge"]["model"], strong["outcome"]) == (BIG, "unfaithful")
    assert unsure["outcome"] == "faithful" and unsure["stages"][0]["outcome"] == "abstained"
    assert unsure["stages"][0]["escalated"] == ["abstained"]
    assert borderline["usage"] == {"input_tokens": 200, "output_tokens": 40}  # both stages' tokens
    assert borderline["judge"]["name"] == "cascade" and borderline["judge"]["model"] == f"{SMALL} > {BIG}"


def test_when_the_big_judge_fails_the_screens_valid_result_stands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with LLMServer() as server:
        server.script(Reply(content=by_model), Reply.status(400))
        args = setup(tmp_path, server.openai_base_url, ["borderline"], monkeypatch)
        found = verdicts(runner.invoke(app, [*args, "--json"]))
    verdict = found["c-borderline"]
    assert verdict["outcome"] == "unfaithful" and verdict["scores"]["faithfulness"] == 1  # the screen's
    assert verdict["stages"][1]["outcome"] == "error" and verdict["stages"][1]["kept"] == "screen"
    assert verdict["stages"][1]["error"]


def test_a_fallback_after_the_big_judge_failed_is_not_cached_and_the_rerun_asks_it_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The screen's result kept because the big judge failed (here a 500) is that failure's stand-in, not
    a settled verdict: caching it would keep the big judge from ever settling the case."""
    with LLMServer() as server:
        server.script(Reply(content=by_model), Reply.status(500))
        args = setup(tmp_path, server.openai_base_url, ["borderline"], monkeypatch)
        first = verdicts(runner.invoke(app, [*args, "--json"]))
        server.default = Reply(content=by_model)
        second = verdicts(runner.invoke(app, [*args, "--json"]))
        models = [request.body["model"] for request in server.requests]
    assert first["c-borderline"]["stages"][1]["kept"] == "screen"
    assert models == [SMALL, BIG, SMALL, BIG]  # the rerun asked again, and the big judge settled it
    assert second["c-borderline"]["scores"]["faithfulness"] == 0


def test_only_the_configured_triggers_escalate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with LLMServer() as server:
        server.default = Reply(content=by_model)
        args = setup(tmp_path, server.openai_base_url, ["borderline", "unsure"], monkeypatch, escalate='["abstained"]')
        found = verdicts(runner.invoke(app, [*args, "--json"]))
        assert server.calls == 3  # two screens, one escalation
    assert found["c-borderline"]["scores"]["faithfulness"] == 1 and len(found["c-borderline"]["stages"]) == 1
    assert len(found["c-unsure"]["stages"]) == 2


def test_a_cascade_rerun_is_answered_from_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with LLMServer() as server:
        server.default = Reply(content=by_model)
        args = setup(tmp_path, server.openai_base_url, ["clear", "borderline"], monkeypatch)
        first = verdicts(runner.invoke(app, [*args, "--json"]))
        calls = server.calls
        second = verdicts(runner.invoke(app, [*args, "--json"]))
        assert server.calls == calls == 3
    assert second["c-borderline"]["stages"] == first["c-borderline"]["stages"]


def test_a_stronger_judge_that_is_no_model_judge_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "qaeval.toml").write_text('[cascade.judge]\nkind = "mechanical"\n', encoding="utf-8")
    result = runner.invoke(app, ["--config", str(tmp_path / "qaeval.toml"), "validate", str(tmp_path)])
    assert result.exit_code == 2 and "cascade" in result.stderr
