"""The system under test over HTTP: `[run] adapter = "http"` against a real loopback server.

What crosses the wire is the case view and nothing more; retries follow the status (5xx, 429 with
its Retry-After, a timeout: again; another 4xx: never); a malformed reply is that case's error,
located by its JSON path, and the run still ends with exit 0 and every other case scored.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from qaeval_tui.cli.main import app
from qaeval_tui.core.store.sqlite import Store
from tests.conftest import write_jsonl
from tests.core.run_fixtures import case
from tests.judgeops.sut_server import Reply, answer_from_first_source, serve

runner = CliRunner()


def golden(tmp_path: Path, n: int = 3) -> Path:
    folder = tmp_path / "golden"
    write_jsonl(
        folder / "frozen.jsonl",
        [
            case(f"warranty-{i:02d}", question=f"How long is the HB-10 warranty? ({i})").model_dump(mode="json")
            for i in range(n)
        ],
    )
    return folder


def toml_value(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items()) + "}"
    return json.dumps(value)


def configure(tmp_path: Path, url: str, **http: Any) -> Path:
    settings = {"url": url, "backoff_s": 0.01, **http}
    lines = ["[run]", 'adapter = "http"', "[run.http]"]
    lines += [f"{key} = {toml_value(value)}" for key, value in settings.items()]
    path = tmp_path / "qaeval.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run(tmp_path: Path, config: Path, *args: str) -> Result:
    return runner.invoke(
        app,
        ["--config", str(config), "run", "--data", str(tmp_path / "golden"), "--db", str(tmp_path / "runs.db"), *args],
    )


def outputs(tmp_path: Path) -> list[dict[str, Any]]:
    with Store.open(tmp_path / "runs.db") as store:
        (run_row,) = store.list_runs()
        return [row.output for row in store.run_outputs(run_row.run_id)]


def test_each_case_is_posted_as_its_view_only_and_the_reply_is_scored(tmp_path: Path) -> None:
    golden(tmp_path, 3)
    with serve(answer_from_first_source) as system:
        result = run(tmp_path, configure(tmp_path, system.url), "--json")
    assert result.exit_code == 0, result.output
    assert system.calls == 3
    for request in system.requests:
        assert set(request) == {"id", "question", "sources"}  # no gold answer, gold ids, behaviour, tags, case id
        assert request["id"].startswith("q-") and "warranty" not in request["id"]
        assert set(request["sources"][0]) == {"id", "title", "text"}
    artifact = json.loads(result.stdout)
    assert artifact["run"]["adapter"].startswith("http 127.0.0.1:")
    assert all(
        c["output"]["error"] is None and c["output"]["citations"][0]["source_id"] == "s1" for c in artifact["cases"]
    )


def test_a_5xx_is_tried_again_and_then_succeeds(tmp_path: Path) -> None:
    golden(tmp_path, 1)

    def flaky(request: dict[str, Any], attempt: int) -> Reply:
        return Reply(503, {"error": "busy"}) if attempt < 3 else answer_from_first_source(request, attempt)

    with serve(flaky) as system:
        result = run(tmp_path, configure(tmp_path, system.url, max_retries=3))
    assert result.exit_code == 0, result.output
    assert system.calls == 3 and outputs(tmp_path)[0]["error"] is None


def test_a_429_waits_for_its_retry_after(tmp_path: Path) -> None:
    golden(tmp_path, 1)

    def limited(request: dict[str, Any], attempt: int) -> Reply:
        if attempt == 1:
            return Reply(429, {"error": "slow down"}, headers={"Retry-After": "1"})
        return answer_from_first_source(request, attempt)

    with serve(limited) as system:
        started = time.monotonic()
        result = run(tmp_path, configure(tmp_path, system.url))
        elapsed = time.monotonic() - started
    assert result.exit_code == 0, result.output
    assert system.calls == 2 and elapsed >= 1.0  # backoff_s is 0.01: only the header explains the second
    assert outputs(tmp_path)[0]["error"] is None


def test_a_retry_after_longer_than_max_wait_ends_the_case_at_once(tmp_path: Path) -> None:
    golden(tmp_path, 1)
    with serve(lambda request, attempt: Reply(429, {}, headers={"Retry-After": "120"})) as system:
        result = run(tmp_path, configure(tmp_path, system.url, max_wait_s=5))
    assert result.exit_code == 0, result.output
    assert system.calls == 1
    assert outputs(tmp_path)[0]["error"] == (
        "the HTTP system failed: HTTP 429 Too Many Requests (Retry-After: 120) (1 attempt)"
    )


@pytest.mark.parametrize("status", [400, 401, 404, 422])
def test_a_4xx_other_than_429_is_never_retried(tmp_path: Path, status: int) -> None:
    golden(tmp_path, 1)
    with serve(lambda request, attempt: Reply(status, {"error": "no"})) as system:
        result = run(tmp_path, configure(tmp_path, system.url, max_retries=5))
    assert result.exit_code == 0, result.output
    assert system.calls == 1
    assert outputs(tmp_path)[0]["error"].startswith(f"the HTTP system failed: HTTP {status} ")


def test_a_hang_past_the_timeout_is_retried_then_the_case_fails(tmp_path: Path) -> None:
    golden(tmp_path, 1)
    with serve(lambda request, attempt: Reply(delay_s=1.5, body={"answer": "late"})) as system:
        started = time.monotonic()
        result = run(tmp_path, configure(tmp_path, system.url, timeout_s=0.2, max_retries=1))
        elapsed = time.monotonic() - started
    assert result.exit_code == 0, result.output
    assert system.calls == 2 and elapsed < 5
    assert outputs(tmp_path)[0]["error"] == "the HTTP system failed: no reply within timeout_s = 0.2 (2 attempts)"


@pytest.mark.parametrize(
    ("body", "error"),
    [
        (b"<html>oops</html>", "the HTTP system failed: the reply is not JSON: "),
        ([1, 2], "the HTTP system failed: the reply is a JSON array, not an object"),
        ({"answer": 3}, "the HTTP system failed: answer: Input should be a valid string"),
        ({"citations": []}, "the HTTP system failed: answer: Field required"),
        (
            {"answer": "ten years", "citations": [{"quote": "ten"}]},
            "the HTTP system failed: citations[0].source_id: Field required",
        ),
        ({"answer": "x", "retrieved": ["s1"]}, "the HTTP system failed: retrieved: Extra inputs are not permitted"),
        ({"answer": "x", "abstained": "no"}, "the HTTP system failed: abstained: Input should be a valid boolean"),
    ],
)
def test_a_malformed_reply_is_a_located_case_error_not_a_crash(tmp_path: Path, body: Any, error: str) -> None:
    golden(tmp_path, 2)

    def one_bad(request: dict[str, Any], attempt: int) -> Reply:
        return Reply(body=body) if request["question"].endswith("(0)") else answer_from_first_source(request, attempt)

    with serve(one_bad) as system:
        result = run(tmp_path, configure(tmp_path, system.url, max_retries=3))
    assert result.exit_code == 0, result.output
    assert system.calls == 2  # a malformed reply is not retried
    first, second = outputs(tmp_path)
    assert first["error"].startswith(error) and second["error"] is None
    assert "warranty-00: check:adapter_ok" in result.stdout


def test_concurrency_bounds_the_requests_in_flight(tmp_path: Path) -> None:
    golden(tmp_path, 12)

    def slow(request: dict[str, Any], attempt: int) -> Reply:
        time.sleep(0.15)
        return answer_from_first_source(request, attempt)

    with serve(slow) as system:
        started = time.monotonic()
        result = run(tmp_path, configure(tmp_path, system.url, concurrency=4))
        elapsed = time.monotonic() - started
    assert result.exit_code == 0, result.output
    assert system.most_in_flight == 4  # 12 cases x 0.15 s at 4 at once: about 0.45 s, not 1.8 s
    assert elapsed < 1.8


def test_the_bearer_token_comes_from_the_named_environment_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    golden(tmp_path, 1)
    monkeypatch.setenv("SUT_TOKEN", "s3cret")
    with serve(answer_from_first_source) as system:
        result = run(tmp_path, configure(tmp_path, system.url, token_env="SUT_TOKEN", headers={"X-Team": "qa"}))
    assert result.exit_code == 0, result.output
    assert system.headers[0]["authorization"] == "Bearer s3cret" and system.headers[0]["x-team"] == "qa"


def test_a_missing_token_is_exit_2_before_any_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    golden(tmp_path, 1)
    monkeypatch.delenv("SUT_TOKEN", raising=False)
    with serve(answer_from_first_source) as system:
        result = run(tmp_path, configure(tmp_path, system.url, token_env="SUT_TOKEN"))
    assert result.exit_code == 2
    assert "[run.http] token_env: the environment variable SUT_TOKEN is not set" in result.stderr
    assert system.calls == 0 and not (tmp_path / "runs.db").exists()


def test_http_without_a_url_or_with_a_bad_one_is_a_config_error(tmp_path: Path) -> None:
    golden(tmp_path, 1)
    bare = tmp_path / "bare.toml"
    bare.write_text('[run]\nadapter = "http"\n', encoding="utf-8")
    result = run(tmp_path, bare)
    assert result.exit_code == 2 and "needs a [run.http] table" in result.stderr
    result = run(tmp_path, configure(tmp_path, "ftp://example.org/answer"))
    assert result.exit_code == 2 and "run.http.url" in result.stderr and "http://" in result.stderr


def test_adapter_http_on_the_command_line_uses_the_configured_endpoint(tmp_path: Path) -> None:
    golden(tmp_path, 2)
    with serve(answer_from_first_source) as system:
        config = tmp_path / "qaeval.toml"
        config.write_text(f'[run.http]\nurl = "{system.url}"\n', encoding="utf-8")
        result = run(tmp_path, config, "--adapter", "http")
    assert result.exit_code == 0, result.output
    assert system.calls == 2 and all(output["error"] is None for output in outputs(tmp_path))


def test_credentials_in_the_url_never_reach_the_artifact_or_the_store(tmp_path: Path) -> None:
    """A URL may carry basic-auth credentials (`http://user:secret@host/`); the run records where the
    system was served, never them."""
    golden(tmp_path, 1)
    with serve(answer_from_first_source) as system:
        url = system.url.replace("http://", "http://svc:hunter2-secret@", 1)
        result = run(tmp_path, configure(tmp_path, url), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["run"]["adapter"].startswith("http 127.0.0.1:")
    assert "hunter2-secret" not in result.output
    assert b"hunter2-secret" not in (tmp_path / "runs.db").read_bytes()
