"""The bundled offline mechanical judge: scores by token overlap against the cited span (DESIGN §3.3).

An example of the `JudgeClient` protocol, cheap and deterministic, and weak on paraphrase:
calibration against human labels is what decides whether to trust it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from qaeval_tui.core.models.golden import GoldenCase, Source
from qaeval_tui.core.models.run import Citation, JudgeConfig, SUTOutput
from qaeval_tui.core.rubric import Axis, Rubric
from qaeval_tui.core.running.checks import load_bearing_sentences, sentence_is_cited
from qaeval_tui.core.running.judge import ANSWER_CORRECTNESS, CITATION_CORRECTNESS, FAITHFULNESS, JudgeResult
from qaeval_tui.core.running.matching import analyze, split_sentences, support, support_terms, term_set
from qaeval_tui.core.running.trajectory import key_facts

# Support thresholds of the mechanical judge (part of its pinned model id: change them, bump it).
FULL_SUPPORT = 0.8
PARTIAL_SUPPORT = 0.5


def _levels(axis: Axis) -> tuple[int, int, int]:
    """(bottom, middle, top) of an axis scale, so the judge also works on scales other than 0..2."""
    scale = axis.scale
    return scale[0], scale[len(scale) // 2], scale[-1]


def best_span(claim: str, texts: Sequence[str]) -> tuple[str, float]:
    """The sentence of `texts` that best supports `claim`, and its support."""
    claim_terms = term_set(claim)
    best, best_support = "", -1.0
    for text in texts:
        analysis = analyze(text)
        for sentence, sentence_terms in zip(analysis.sentences, analysis.sentence_terms, strict=True):
            value = support_terms(claim_terms, sentence_terms)
            if value > best_support:
                best, best_support = sentence, value
    return best, max(best_support, 0.0)


class MechanicalJudge:
    """Offline judge by token overlap against the cited span. Cheap, deterministic, and weak on paraphrase.

    It is a stand-in: calibration against human labels is what decides whether to trust it.
    """

    def __init__(self, config: JudgeConfig | None = None) -> None:
        self._config = config or JudgeConfig(
            name="mechanical", model="token-overlap-1", temperature=0.0, seed=0, prompt_version="mechanical-1"
        )

    @property
    def config(self) -> JudgeConfig:
        return self._config

    def score(self, case: GoldenCase, output: SUTOutput, rubric: Rubric) -> JudgeResult:
        scorers: dict[str, Callable[[Axis, GoldenCase, SUTOutput], tuple[int | None, str]]] = {
            FAITHFULNESS: self.faithfulness,
            ANSWER_CORRECTNESS: self.answer_correctness,
            CITATION_CORRECTNESS: self.citation_correctness,
        }
        scores: dict[str, int | None] = {}
        evidence: dict[str, str] = {}
        for axis in rubric.axes:
            scorer = scorers.get(axis.name)
            if scorer is None:
                scores[axis.name] = None
                continue
            value, span = scorer(axis, case, output)
            scores[axis.name] = value
            if value is not None and span:
                evidence[axis.name] = span
        return JudgeResult(scores, evidence)

    @staticmethod
    def _cited_texts(case: GoldenCase, citations: Sequence[Citation]) -> list[str]:
        sources = {source.id: source for source in case.sources}
        texts = []
        for citation in citations:
            if citation.quote:
                texts.append(citation.quote)
            elif citation.source_id in sources:
                texts.append(sources[citation.source_id].text)
        return texts

    def faithfulness(self, axis: Axis, case: GoldenCase, output: SUTOutput) -> tuple[int | None, str]:
        bottom, middle, top = _levels(axis)
        if output.abstained:
            return top, output.answer
        claims = load_bearing_sentences(output.answer) or split_sentences(output.answer)
        if not claims:
            return None, ""
        if not output.citations:
            return bottom, claims[0]
        weakest, weakest_support, weakest_span = "", 2.0, ""
        for claim in claims:
            own = [c for c in output.citations if sentence_is_cited(claim, (c,))]
            span, value = best_span(claim, self._cited_texts(case, own or output.citations))
            if value < weakest_support:
                weakest, weakest_support, weakest_span = claim, value, span
        level = top if weakest_support >= FULL_SUPPORT else middle if weakest_support >= PARTIAL_SUPPORT else bottom
        return level, weakest_span or weakest

    def answer_correctness(self, axis: Axis, case: GoldenCase, output: SUTOutput) -> tuple[int | None, str]:
        bottom, middle, top = _levels(axis)
        first = (split_sentences(output.answer) or [output.answer])[0]
        if case.expected_behavior == "abstain":
            return (top if output.abstained else bottom), first
        if output.abstained:
            return bottom, first
        gold = case.gold_answer or ""
        answer_terms = term_set(output.answer)
        facts = key_facts(gold)
        recall = support(gold, output.answer)
        span, _ = best_span(gold, [output.answer])
        if facts:
            present = sum(1 for fact in facts if fact in answer_terms)
            if present == len(facts) and recall >= PARTIAL_SUPPORT:
                return top, span
            return (middle if present or recall >= PARTIAL_SUPPORT else bottom), span
        level = top if recall >= FULL_SUPPORT else middle if recall >= PARTIAL_SUPPORT else bottom
        return level, span

    def citation_correctness(self, axis: Axis, case: GoldenCase, output: SUTOutput) -> tuple[int | None, str]:
        """Set by the weakest citation, each checked against the hardest decoy (best-supporting uncited source)."""
        bottom, middle, top = _levels(axis)
        if not output.citations:
            if output.abstained:
                return None, ""
            claims = load_bearing_sentences(output.answer)
            return bottom, claims[0] if claims else output.answer
        sources = {source.id: source for source in case.sources}
        cited_ids = {citation.source_id for citation in output.citations}
        decoys: list[Source] = [source for source in case.sources if source.id not in cited_ids]
        weakest_level, weakest_span = top + 1, ""
        for citation in output.citations:
            claim = citation.claim or citation.quote or output.answer
            source = sources.get(citation.source_id)
            if source is None:
                level, span = bottom, claim
            else:
                span, own = best_span(claim, [source.text])
                decoy_span, decoy = best_span(claim, [d.text for d in decoys]) if decoys else ("", 0.0)
                if own < PARTIAL_SUPPORT:
                    level = bottom
                elif decoy > own:
                    level, span = middle, decoy_span
                else:
                    level = top
            if level < weakest_level:
                weakest_level, weakest_span = level, span
        return weakest_level, weakest_span


def make_mechanical_judge() -> MechanicalJudge:
    """Zero-argument factory for `--judge qaeval_tui.core.running.judge:make_mechanical_judge`."""
    return MechanicalJudge()
