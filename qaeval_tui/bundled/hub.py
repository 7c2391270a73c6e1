"""The bundled reference hub: a deliberately plain, deterministic stand-in for a RAG system.

It retrieves lexically with a relevance floor, quarantines passages that address instructions
to the model, and "answers" by quoting the best sentence of its best passage with a citation.
When nothing clears the floor it abstains without calling the model. It records the prompt a
real model would be sent, so the grounding checks have something real to inspect.

It is honest about what quoting cannot do: it never computes a value or stitches two passages
together, and the scoreboard shows that (multi-step success, answer correctness).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from qaeval_tui.bundled.retriever import Hit, LexicalRetriever
from qaeval_tui.core.models.golden import Source
from qaeval_tui.core.models.run import CaseView, Citation, SUTOutput
from qaeval_tui.core.running.matching import analyze, term_set

ABSTAIN_MESSAGE = "I can't answer that from the available sources."
PROMPT_HEADER = (
    "Answer the question using only the passages below. Quote the sentence you rely on and cite the id of its "
    "passage in brackets. If the passages do not answer the question, say that you cannot answer."
)

# Text that addresses instructions to the model rather than informing the reader. A stand-in
# heuristic, not a security boundary: it catches the classic shapes, nothing clever.
_INJECTION = re.compile(
    r"\b(?:ignore|disregard|forget|override)\b(?:\W+\w+){0,4}?\W+"
    r"(?:instructions?|prompts?|sources?|context|rules|guidelines|list|above|previous|prior)\b"
    r"|\b(?:note|message|instructions?)\s+(?:to|for)\s+(?:ai|llms?|assistants?|chatbots?|language\s+models?)\b"
    r"|(?:^|[\s<!\-])(?:assistant|system)\s*:"
    r"|\byou\s+are\s+now\b",
    re.IGNORECASE,
)


# Any of these must be among a passage's terms before the pattern is tried ("Ignoring" counts too).
_INJECTION_HINTS = term_set("ignore disregard forget override note message instruction assistant system now")


def looks_like_injection(text: str) -> bool:
    """True when a passage speaks to the model ("ignore previous instructions", "note to AI assistants")."""
    if analyze(text).all_terms.isdisjoint(_INJECTION_HINTS):  # cached: retrieval needs the analysis anyway
        return False
    return _INJECTION.search(text) is not None


def build_prompt(question: str, passages: Sequence[Source]) -> str:
    """The prompt a real model would get: instructions, the question, then every retrieved passage in full."""
    blocks = [f"[{source.id}] {source.title or ''}".rstrip() + "\n" + source.text for source in passages]
    return f"{PROMPT_HEADER}\n\nQuestion: {question}\n\nPassages:\n\n" + "\n\n".join(blocks)


def abstention() -> SUTOutput:
    """Fail closed: no context, no model call, no answer."""
    return SUTOutput(answer=ABSTAIN_MESSAGE, abstained=True, model_was_called=False)


def quote_answer(question: str, hits: Sequence[Hit], sources: Sequence[Source]) -> SUTOutput:
    """The hub's "model": quote the best snippet, cite it, and record the prompt it was given."""
    by_id = {source.id: source for source in sources}
    passages = [by_id[hit.source_id] for hit in hits]
    best = hits[0]
    return SUTOutput(
        answer=best.snippet,
        citations=(Citation(source_id=best.source_id, quote=best.snippet, claim=best.snippet),),
        retrieved_ids=tuple(hit.source_id for hit in hits),
        abstained=False,
        model_was_called=True,
        prompt=build_prompt(question, passages),
    )


class ReferenceHub:
    """The bundled system under test (the default `--adapter`)."""

    name = "reference-hub"

    def __init__(self, retriever: LexicalRetriever | None = None) -> None:
        self.retriever = retriever or LexicalRetriever()

    def usable_sources(self, view: CaseView) -> list[Source]:
        return [source for source in view.sources if not looks_like_injection(source.text)]

    def answer(self, view: CaseView) -> SUTOutput:
        sources = self.usable_sources(view)
        hits = self.retriever.rank(view.question, sources)
        if not hits:
            return abstention()
        return quote_answer(view.question, hits, sources)


def make_reference_hub() -> ReferenceHub:
    """Zero-argument factory for `--adapter qaeval_tui.bundled.hub:make_reference_hub`."""
    return ReferenceHub()
