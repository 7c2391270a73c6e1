"""Every deterministic trust check: a case that fires it and one that does not."""

from __future__ import annotations

from qaeval_tui.core.models.run import Citation, SUTOutput
from qaeval_tui.core.running.checks import (
    check_abstention,
    check_adapter,
    check_citation_coverage,
    check_citation_resolvability,
    check_fail_closed,
    check_grounding_isolation,
    run_checks,
)
from tests.core.run_fixtures import SHIPPING, WARRANTY, abstain_case, case, quoting_output, refusal


def test_adapter_ok_fires_on_an_adapter_error_and_skips_the_rest() -> None:
    results = run_checks(case(), SUTOutput(error="TimeoutError: no reply in 30 s"))
    assert (results[0].name, results[0].status) == ("adapter_ok", "fail")
    assert "TimeoutError" in results[0].detail
    assert all(r.status == "skip" for r in results[1:])
    assert check_adapter(quoting_output(case())).status == "pass"


def test_a_well_behaved_answer_is_green_on_every_check() -> None:
    results = run_checks(case(), quoting_output(case()))
    assert not [r for r in results if r.failed], results


def test_grounding_isolation_fires_when_the_prompt_carries_a_gold_answer_no_passage_has() -> None:
    golden = case(gold_answer="A full decade of cover")
    leaky = quoting_output(golden, prompt=quoting_output(golden).prompt + "\nHint: A full decade of cover")
    result = check_grounding_isolation(golden, leaky)
    assert result.status == "fail" and "gold answer" in result.detail


def test_grounding_isolation_allows_the_gold_answer_when_a_retrieved_passage_carries_it() -> None:
    golden = case(gold_answer="10 years from the date of installation")
    assert check_grounding_isolation(golden, quoting_output(golden)).status == "pass"


def test_grounding_isolation_fires_when_retrieved_text_is_missing_from_the_prompt() -> None:
    golden = case()
    thin = quoting_output(golden, prompt=f"Question: {golden.question}\n[s1] (see attachment)")
    result = check_grounding_isolation(golden, thin)
    assert result.status == "fail" and "missing from the prompt: 's1'" in result.detail


def test_grounding_isolation_fires_without_the_question_or_without_any_prompt() -> None:
    golden = case()
    no_question = quoting_output(golden, prompt=WARRANTY)
    assert "does not carry the question" in check_grounding_isolation(golden, no_question).detail
    no_prompt = quoting_output(golden, prompt="")
    assert check_grounding_isolation(golden, no_prompt).detail == "the model was called but no prompt was recorded"


def test_grounding_isolation_fires_on_a_retrieved_id_outside_the_fixture() -> None:
    golden = case()
    result = check_grounding_isolation(golden, quoting_output(golden, retrieved_ids=("s1", "web-7")))
    assert result.status == "fail" and "'web-7'" in result.detail


def test_grounding_isolation_is_skipped_without_a_model_call() -> None:
    assert check_grounding_isolation(case(), refusal()).status == "skip"


def test_citation_resolvability_fires_on_a_citation_never_retrieved() -> None:
    golden = case()
    output = quoting_output(golden, citations=(Citation(source_id="s2", quote=SHIPPING),))
    result = check_citation_resolvability(golden, output)
    assert result.status == "fail" and result.detail == "cites 's2', which was never retrieved"


def test_citation_resolvability_fires_on_an_unknown_source_and_on_a_quote_not_in_the_source() -> None:
    golden = case()
    unknown = quoting_output(golden, citations=(Citation(source_id="s9"),))
    assert "not a source of this case" in check_citation_resolvability(golden, unknown).detail
    misquoted = quoting_output(golden, citations=(Citation(source_id="s1", quote="25 years, no questions asked"),))
    assert "is not in 's1'" in check_citation_resolvability(golden, misquoted).detail


def test_citation_resolvability_passes_resolving_citations_and_skips_none() -> None:
    golden = case()
    assert check_citation_resolvability(golden, quoting_output(golden)).status == "pass"
    assert check_citation_resolvability(golden, refusal()).status == "skip"


def test_citation_coverage_fires_on_an_uncited_load_bearing_sentence() -> None:
    golden = case()
    answer = WARRANTY + " Shipping is free for every order over 500 pounds."
    result = check_citation_coverage(quoting_output(golden, answer=answer))
    assert result.status == "fail" and "1 of 2" in result.detail and "Shipping is free" in result.detail


def test_citation_coverage_accepts_inline_markers_claims_and_quotes() -> None:
    golden = case()
    marked = quoting_output(
        golden, answer="Ten years of cover [s1]. It starts at installation [s1].", citations=(Citation(source_id="s1"),)
    )
    assert check_citation_coverage(marked).status == "pass"
    assert check_citation_coverage(quoting_output(golden)).status == "pass"
    assert check_citation_coverage(refusal()).status == "skip"


def test_abstention_fires_when_a_must_abstain_case_is_answered() -> None:
    golden = abstain_case()
    result = check_abstention(golden, quoting_output(golden))
    assert result.status == "fail" and result.detail.startswith("answered a must-abstain case")
    assert check_abstention(golden, refusal()).status == "pass"
    assert check_abstention(case(), refusal()).status == "skip"


def test_fail_closed_fires_on_a_model_call_or_an_answer_with_nothing_retrieved() -> None:
    spent = SUTOutput(answer="", abstained=True, model_was_called=True, prompt="Question: ?")
    assert check_fail_closed(spent).detail == "called the model with an empty context"
    guessed = SUTOutput(answer="Probably ten years.", abstained=False, model_was_called=False)
    assert check_fail_closed(guessed).detail == "answered with nothing retrieved"
    assert check_fail_closed(refusal()).status == "pass"
    assert check_fail_closed(quoting_output(case())).status == "skip"
