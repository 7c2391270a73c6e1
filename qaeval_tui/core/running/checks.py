"""Deterministic trust checks (Tier 1 of the gate, DESIGN §6). No model, no randomness.

Each check returns pass, fail or skip (not applicable to this case) with a one-line detail
that names what it saw. A case is deterministically green when no check fails.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from qaeval_tui.core.models.golden import GoldenCase
from qaeval_tui.core.models.run import Citation, SUTOutput
from qaeval_tui.core.running.matching import fold_space, normalize_space, split_sentences, support, terms
from qaeval_tui.core.text import one_line

CheckStatus = Literal["pass", "fail", "skip"]

ADAPTER_OK = "adapter_ok"
GROUNDING_ISOLATION = "grounding_isolation"
CITATION_RESOLVABILITY = "citation_resolvability"
CITATION_COVERAGE = "citation_coverage"
ABSTENTION = "abstention"
FAIL_CLOSED = "fail_closed"
CHECK_NAMES = (ADAPTER_OK, GROUNDING_ISOLATION, CITATION_RESOLVABILITY, CITATION_COVERAGE, ABSTENTION, FAIL_CLOSED)

CHECK_DESCRIPTIONS = {
    ADAPTER_OK: "the adapter returned an output instead of raising",
    GROUNDING_ISOLATION: "the prompt carries the question and every retrieved passage, and not the gold answer "
    "unless a retrieved passage carries it",
    CITATION_RESOLVABILITY: "every citation points to a passage the system retrieved, and its quote is in that passage",
    CITATION_COVERAGE: "every load-bearing answer sentence carries a citation",
    ABSTENTION: "a must-abstain case was refused",
    FAIL_CLOSED: "with nothing retrieved, the system abstained without calling the model",
}

# A sentence covered by a quote shares at least this share of its terms with it.
QUOTE_COVERS = 0.5
_MARKER = re.compile(r"\[([^\[\]\s]+)\]")


@dataclass(frozen=True)
class CheckResult:
    name: str
    status: CheckStatus
    detail: str

    @property
    def failed(self) -> bool:
        return self.status == "fail"

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "status": self.status, "detail": self.detail}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CheckResult:
        return cls(str(data["name"]), data["status"], str(data.get("detail", "")))


def _short(text: str, width: int = 80) -> str:
    """Data quoted on one line, control characters shown as \\xNN escapes."""
    return f"'{one_line(text, width)}'"


def check_adapter(output: SUTOutput) -> CheckResult:
    if output.error is not None:
        return CheckResult(ADAPTER_OK, "fail", f"the adapter failed: {one_line(output.error, 200)}")
    return CheckResult(ADAPTER_OK, "pass", "the adapter returned an output")


def check_grounding_isolation(case: GoldenCase, output: SUTOutput) -> CheckResult:
    """A leak detector for the one string the evaluator knows would fake competence.

    It proves the gold answer was not handed to the model; it is not a whole-prompt whitelist
    and says nothing about adversarial text inside the retrieved passages themselves.
    """
    if not output.model_was_called:
        return CheckResult(GROUNDING_ISOLATION, "skip", "no model call, so no prompt to inspect")
    if not output.prompt.strip():
        return CheckResult(GROUNDING_ISOLATION, "fail", "the model was called but no prompt was recorded")
    prompt = fold_space(output.prompt)  # each prompt once: uncached
    problems: list[str] = []
    if normalize_space(case.question) not in prompt:
        problems.append("the prompt does not carry the question")
    sources = {source.id: source for source in case.sources}
    unknown = [source_id for source_id in output.retrieved_ids if source_id not in sources]
    if unknown:
        problems.append(f"retrieved id(s) that are not sources of this case: {', '.join(map(repr, unknown))}")
    retrieved = [sources[source_id] for source_id in dict.fromkeys(output.retrieved_ids) if source_id in sources]
    missing = [source.id for source in retrieved if normalize_space(source.text) not in prompt]
    if missing:
        problems.append(f"retrieved passage text missing from the prompt: {', '.join(map(repr, missing))}")
    if case.gold_answer:
        gold = normalize_space(case.gold_answer)
        carried = gold in normalize_space(case.question) or any(gold in normalize_space(s.text) for s in retrieved)
        if gold in prompt and not carried:
            problems.append(
                f"the prompt carries the gold answer {_short(case.gold_answer)}, which no retrieved passage contains"
            )
    if problems:
        return CheckResult(GROUNDING_ISOLATION, "fail", "; ".join(problems))
    return CheckResult(
        GROUNDING_ISOLATION, "pass", f"the prompt carries the question and {len(retrieved)} retrieved passage(s)"
    )


def citation_problems(case: GoldenCase, output: SUTOutput) -> list[str | None]:
    """Per citation: None when it resolves, else what is wrong with it."""
    sources = {source.id: source for source in case.sources}
    retrieved = set(output.retrieved_ids)
    found: list[str | None] = []
    for citation in output.citations:
        source = sources.get(citation.source_id)
        if source is None:
            found.append(f"cites {citation.source_id!r}, which is not a source of this case")
        elif citation.source_id not in retrieved:
            found.append(f"cites {citation.source_id!r}, which was never retrieved")
        elif citation.quote and normalize_space(citation.quote) not in normalize_space(source.text):
            found.append(f"quote {_short(citation.quote, 60)} is not in {citation.source_id!r}")
        else:
            found.append(None)
    return found


def check_citation_resolvability(case: GoldenCase, output: SUTOutput) -> CheckResult:
    if not output.citations:
        return CheckResult(CITATION_RESOLVABILITY, "skip", "no citations")
    problems = [problem for problem in citation_problems(case, output) if problem is not None]
    if problems:
        return CheckResult(CITATION_RESOLVABILITY, "fail", "; ".join(problems))
    return CheckResult(CITATION_RESOLVABILITY, "pass", f"all {len(output.citations)} citation(s) resolve")


def load_bearing_sentences(answer: str) -> list[str]:
    """Sentences that state something: two or more content terms, or any number."""
    chosen: list[str] = []
    for sentence in split_sentences(answer):
        found = terms(sentence)
        if len(found) >= 2 or any(any(ch.isdigit() for ch in term) for term in found):
            chosen.append(sentence)
    return chosen


def sentence_is_cited(sentence: str, citations: Sequence[Citation]) -> bool:
    """An inline [source_id] marker of a citation, a citation whose claim is this sentence, or a quote covering it."""
    cited_ids = {citation.source_id for citation in citations}
    if any(marker in cited_ids for marker in _MARKER.findall(sentence)):
        return True
    plain = normalize_space(_MARKER.sub(" ", sentence))
    for citation in citations:
        if citation.claim:
            claim = normalize_space(citation.claim)
            if claim and (claim in plain or plain in claim):
                return True
        if citation.quote and support(plain, citation.quote) >= QUOTE_COVERS:
            return True
    return False


def coverage_counts(output: SUTOutput) -> tuple[int, int]:
    """(covered, load-bearing) sentences of the answer; (0, 0) for a refusal, a failure or an empty answer."""
    if output.abstained or output.error is not None or not output.answer.strip():
        return 0, 0
    sentences = load_bearing_sentences(output.answer)
    covered = sum(1 for sentence in sentences if sentence_is_cited(sentence, output.citations))
    return covered, len(sentences)


def check_citation_coverage(output: SUTOutput) -> CheckResult:
    if output.abstained or not output.answer.strip():
        return CheckResult(CITATION_COVERAGE, "skip", "no answer to cover")
    sentences = load_bearing_sentences(output.answer)
    if not sentences:
        return CheckResult(CITATION_COVERAGE, "skip", "no load-bearing sentence in the answer")
    uncovered = [sentence for sentence in sentences if not sentence_is_cited(sentence, output.citations)]
    if uncovered:
        listed = ", ".join(_short(sentence, 60) for sentence in uncovered[:3])
        more = f" and {len(uncovered) - 3} more" if len(uncovered) > 3 else ""
        return CheckResult(
            CITATION_COVERAGE,
            "fail",
            f"{len(uncovered)} of {len(sentences)} load-bearing sentence(s) uncited: {listed}{more}",
        )
    return CheckResult(CITATION_COVERAGE, "pass", f"all {len(sentences)} load-bearing sentence(s) cited")


def check_abstention(case: GoldenCase, output: SUTOutput) -> CheckResult:
    if case.expected_behavior != "abstain":
        return CheckResult(ABSTENTION, "skip", "answerable case (refusals here count as over-refusal)")
    if output.abstained:
        return CheckResult(ABSTENTION, "pass", "refused a question it must refuse")
    return CheckResult(ABSTENTION, "fail", f"answered a must-abstain case: {_short(output.answer)}")


def check_fail_closed(output: SUTOutput) -> CheckResult:
    if output.retrieved_ids:
        return CheckResult(FAIL_CLOSED, "skip", f"{len(output.retrieved_ids)} passage(s) retrieved")
    problems = []
    if output.model_was_called:
        problems.append("called the model with an empty context")
    if not output.abstained:
        problems.append("answered with nothing retrieved")
    if problems:
        return CheckResult(FAIL_CLOSED, "fail", "; ".join(problems))
    return CheckResult(FAIL_CLOSED, "pass", "nothing retrieved: abstained without a model call")


def run_checks(case: GoldenCase, output: SUTOutput) -> tuple[CheckResult, ...]:
    """Every check, in CHECK_NAMES order. After an adapter failure the others are skipped."""
    adapter = check_adapter(output)
    if adapter.failed:
        skipped = tuple(CheckResult(name, "skip", "the adapter failed") for name in CHECK_NAMES[1:])
        return (adapter, *skipped)
    return (
        adapter,
        check_grounding_isolation(case, output),
        check_citation_resolvability(case, output),
        check_citation_coverage(output),
        check_abstention(case, output),
        check_fail_closed(output),
    )
