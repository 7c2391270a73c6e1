"""A deliberately broken hub, used only to show the gate blocking (never the default adapter).

Run it on `golden_buggy/`: each of its bugs is the kind a real system ships by accident.

1. A stale answer cache keyed by question, warmed from an old golden export: a hit is pasted
   into the prompt, so the model sees the expected answer (grounding_isolation fires).
2. Citations built by rank position against the *unranked* source list: the quote comes from
   the best passage, the cited id from whatever passage happens to be first
   (citation_resolvability fires when that one was never retrieved).
3. A "helpful" fallback: when nothing clears the relevance floor it answers from the
   best-scoring passage anyway instead of abstaining (abstention fires on must-abstain cases).
4. The cache key is built with an ASCII-only encoding, so a question with a symbol such as
   "°" crashes the adapter (adapter_ok fires: an adapter crash is a failed case).
"""

from __future__ import annotations

from qaeval_tui.bundled.hub import ReferenceHub, build_prompt, quote_answer
from qaeval_tui.bundled.retriever import LexicalRetriever
from qaeval_tui.core.models.run import CaseView, Citation, SUTOutput
from qaeval_tui.core.running.matching import normalize_space

# Warmed long ago from an export of the golden answers: the leak this hub exists to show.
_STALE_CACHE = {
    "how quickly does the gateway g2 switch the home to battery power when the grid fails?": (
        "In under 200 ms, fast enough that most appliances keep running."
    ),
}


class BuggyHub(ReferenceHub):
    """The reference hub with four realistic bugs (see the module docstring)."""

    name = "buggy-hub"

    def __init__(self) -> None:
        super().__init__()
        self.fallback = LexicalRetriever(floor=0.0, min_question_coverage=0.0, top_k=1)

    @staticmethod
    def cache_key(question: str) -> str:
        # Bug 4: ASCII-only key; a non-ASCII question raises UnicodeEncodeError.
        return normalize_space(question).encode("ascii").decode("ascii")

    def answer(self, view: CaseView) -> SUTOutput:
        key = self.cache_key(view.question)
        sources = self.usable_sources(view)
        hits = self.retriever.rank(view.question, sources) or self.fallback.rank(view.question, sources)  # bug 3
        if not hits:
            return super().answer(view)
        output = quote_answer(view.question, hits, sources)
        by_id = {source.id: source for source in sources}
        prompt = build_prompt(view.question, [by_id[hit.source_id] for hit in hits])
        cached = _STALE_CACHE.get(key)
        if cached is not None:
            prompt += f"\n\nPreviously answered: {cached}"  # bug 1
        first = view.sources[0].id  # bug 2: rank 0 looked up in the unranked list
        citations = tuple(Citation(source_id=first, quote=c.quote, claim=c.claim) for c in output.citations)
        return output.model_copy(update={"prompt": prompt, "citations": citations})


def make_buggy_hub() -> BuggyHub:
    """Zero-argument factory for `--adapter qaeval_tui.bundled.buggy_hub:make_buggy_hub`."""
    return BuggyHub()
