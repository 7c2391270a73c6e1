"""The judge (DESIGN §3.3): the `JudgeClient` interface and the bundled offline mechanical judge.

A judge scores one (case, output) per rubric axis and quotes the span behind each score. The
verdict records the pinned `JudgeConfig` and its hash, because the judge is itself a dependency
that drifts. A judge that raises or returns nonsense produces an error verdict, never a crash.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Protocol, runtime_checkable

from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.golden.models import GoldenCase, Source
from qaeval_tui.core.rubric import Axis, Rubric
from qaeval_tui.core.running.adapters import describe_failure, load_factory
from qaeval_tui.core.running.checks import load_bearing_sentences, sentence_is_cited
from qaeval_tui.core.running.matching import analyze, split_sentences, support, support_terms, term_set
from qaeval_tui.core.running.models import Citation, JudgeConfig, SUTOutput
from qaeval_tui.core.running.trajectory import key_facts

FAITHFULNESS = "faithfulness"
ANSWER_CORRECTNESS = "answer_correctness"
CITATION_CORRECTNESS = "citation_correctness"

# Support thresholds of the mechanical judge (part of its pinned model id: change them, bump it).
FULL_SUPPORT = 0.8
PARTIAL_SUPPORT = 0.5


@dataclass(frozen=True)
class JudgeResult:
    """Scores per axis (None: can't judge) and the quoted span behind each score."""

    scores: dict[str, int | None]
    evidence: dict[str, str] = field(default_factory=dict)


@runtime_checkable
class JudgeClient(Protocol):
    """Anything with a pinned `config` and `score(case, output, rubric) -> JudgeResult`."""

    @property
    def config(self) -> JudgeConfig: ...

    def score(self, case: GoldenCase, output: SUTOutput, rubric: Rubric) -> JudgeResult: ...


def effective_config(judge: JudgeClient, rubric: Rubric) -> JudgeConfig:
    """The judge's config bound to the rubric version it scores under (part of the hash)."""
    config = judge.config
    problem = config_problem(config)
    if problem is not None:
        raise UsageError(f"the judge's config: {problem}")
    if config.rubric_version == rubric.version:
        return config
    return config.model_copy(update={"rubric_version": rubric.version})


def judge_descriptor(config: JudgeConfig) -> dict[str, Any]:
    """The `judge` object of a verdict (§8.3): name, model, config hash and the pinned settings."""
    return dict(_descriptor(config))


@lru_cache(maxsize=64)
def _descriptor(config: JudgeConfig) -> dict[str, Any]:
    return {**config.model_dump(mode="json"), "config_hash": config.config_hash()}


def validate_result(result: object, rubric: Rubric) -> JudgeResult:
    """The judge's result checked against the rubric; ValueError names what is wrong.

    Every rubric axis must be scored (None is "can't judge", said on purpose): a result that
    leaves an axis out, or has nothing at all, is a judge failure, not a verdict.
    """
    if not isinstance(result, JudgeResult):
        raise ValueError(f"the judge returned {type(result).__name__}, not a JudgeResult")
    scores, evidence = result.scores, result.evidence
    if not isinstance(scores, dict):
        raise ValueError(f"the judge's scores are {type(scores).__name__}, not a dict of axis -> score")
    if not isinstance(evidence, dict):
        raise ValueError(f"the judge's evidence is {type(evidence).__name__}, not a dict of axis -> quoted span")
    names = set(rubric.axis_names)
    unknown = sorted(repr(axis) for axis in scores if axis not in names)
    if unknown:
        raise ValueError(f"the judge scored unknown axis {unknown[0]}")
    for axis in rubric.axes:
        value = scores.get(axis.name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value not in axis.scale):
            raise ValueError(f"the judge gave {value!r} for {axis.name}, outside its scale {list(axis.scale)}")
    missing = [axis for axis in rubric.axis_names if axis not in scores]
    if missing:
        raise ValueError(f"the judge gave no score for {missing[0]} (None, for can't judge, must be given explicitly)")
    for name, span in evidence.items():
        if name not in names:
            raise ValueError(f"the judge gave evidence for unknown axis {name!r}")
        if not isinstance(span, str):
            raise ValueError(f"the judge's evidence for {name} is {type(span).__name__}, not a quoted span")
        if not _is_text(span):
            raise ValueError(f"the judge's evidence for {name} is not valid Unicode (a lone surrogate)")
    return JudgeResult({axis: scores[axis] for axis in rubric.axis_names}, dict(evidence))


def _checked(raw: object, rubric: Rubric) -> tuple[str, JudgeResult | None]:
    """(why not, None) for a malformed result, ("", result) for a sound one; never raises."""
    try:
        return "", validate_result(raw, rubric)
    except KeyboardInterrupt:
        raise
    except ValueError as exc:
        return str(exc), None
    except BaseException as exc:  # a result whose attributes themselves fail (a hostile __eq__, __iter__...)
        return f"the judge returned an unreadable result: {describe_failure(exc)}", None


def judge_verdict(
    judge: JudgeClient,
    config: JudgeConfig,
    case: GoldenCase,
    output: SUTOutput,
    rubric: Rubric,
    *,
    item_id: str,
    created_at: str,
) -> dict[str, Any]:
    """One verdict in the §8.3 export shape. Any judge failure, an exit included, becomes status "error"."""
    verdict: dict[str, Any] = {"item_id": item_id, "case_id": case.id, "judge": judge_descriptor(config)}
    unscored = dict.fromkeys(rubric.axis_names)
    if output.error is not None:
        return {**verdict, "status": "ok", "scores": unscored, "evidence": {}, "created_at": created_at}
    result: JudgeResult | None = None
    try:
        raw = judge.score(case, output, rubric)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # a judge failure (sys.exit too) is data, an error verdict, never a crash
        problem = describe_failure(exc)
    else:
        problem, result = _checked(raw, rubric)
    if result is None:
        return {
            **verdict,
            "status": "error",
            "scores": unscored,
            "evidence": {},
            "created_at": created_at,
            "error": problem,
        }
    return {**verdict, "status": "ok", "scores": result.scores, "evidence": result.evidence, "created_at": created_at}


def load_judge(spec: str) -> JudgeClient:
    """The judge built by `module:factory`: it needs a JudgeConfig `config` and a `score` method."""
    judge = load_factory(spec, "--judge")
    try:  # `config` may be a property of user code: reading it can fail like any call into it
        client = judge if isinstance(judge, JudgeClient) and callable(judge.score) else None
        config = None if client is None else client.config
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        raise UsageError(f"--judge {spec!r}: reading the judge's config failed: {describe_failure(exc)}") from exc
    if client is None:
        raise UsageError(f"--judge {spec!r}: the factory returned {type(judge).__name__}, which has no score() method")
    if not isinstance(config, JudgeConfig):
        raise UsageError(f"--judge {spec!r}: the judge's config is {type(config).__name__}, not a JudgeConfig")
    problem = config_problem(config)
    if problem is not None:
        raise UsageError(f"--judge {spec!r}: the judge's config: {problem}")
    return client


def config_problem(config: JudgeConfig) -> str | None:
    """Why a judge config cannot be recorded in a verdict, or None when it can.

    NaN or an infinity is no JSON number; half a UTF-16 pair is no UTF-8 text.
    """
    if not math.isfinite(config.temperature):
        return f"temperature {config.temperature!r} is not a finite number"
    for name, value in config.model_dump().items():
        if isinstance(value, str) and not _is_text(value):
            return f"{name} is not valid Unicode (a lone surrogate)"
    return None


def _is_text(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


# -- the bundled mechanical judge -------------------------------------------------------------


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
