"""The bundled lexical retriever: ranks a case's passages against the question (used by the bundled hubs)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from qaeval_tui.core.models.golden import Source
from qaeval_tui.core.running.matching import analyze, is_identifier, term_set, terms


@dataclass(frozen=True)
class Hit:
    """One retrieved passage: its best snippet (a sentence) and how much of the question it covers."""

    source_id: str
    score: float
    snippet: str
    question_coverage: float


@dataclass(frozen=True)
class LexicalRetriever:
    """Ranks a case's passages by their best sentence against the question; nothing below the floor counts.

    A sentence (read with its passage title) scores the idf-weighted share of the question's
    *known* terms (terms some passage of the case contains) that it affirms. It clears the
    floor when that share is at least `floor` and it also covers `min_question_coverage` of
    the whole question, unknown terms included: a question made mostly of words the corpus
    never uses is about something else. Identifiers are exact: a question naming an
    identifier no passage has retrieves nothing, and a snippet (sentence plus title) naming
    none of the question's distinguishing identifiers is skipped.
    """

    floor: float = 0.4
    min_question_coverage: float = 0.1
    top_k: int = 3

    def rank(self, question: str, sources: Sequence[Source]) -> list[Hit]:
        wanted = list(dict.fromkeys(terms(question)))
        if not wanted or not sources:
            return []
        analyses = [analyze(source.text) for source in sources]
        titles = [term_set(source.title or "") for source in sources]
        known_sets = [analysis.all_terms | title for analysis, title in zip(analyses, titles, strict=True)]
        count = len(sources)
        frequency = {term: sum(term in known for known in known_sets) for term in wanted}
        weight = {term: math.log(1.0 + count / (frequency[term] or 0.5)) for term in wanted}
        identifiers = [term for term in wanted if is_identifier(term)]
        if any(frequency[term] == 0 for term in identifiers):
            return []
        known_total = math.fsum(weight[term] for term in wanted if frequency[term])
        if not known_total:
            return []
        total = math.fsum(weight.values())
        wanted_set = frozenset(wanted)
        id_set = frozenset(identifiers)
        plain_set = wanted_set - id_set
        # Identifiers are exact keys: a snippet naming more of them outranks a wordier near miss.
        hits: list[tuple[int, float, int, Hit]] = []
        for position, (source, analysis, title, known) in enumerate(
            zip(sources, analyses, titles, known_sets, strict=True)
        ):
            if id_set and known.isdisjoint(id_set):
                continue
            from_title = wanted_set & title
            best: tuple[int, float] | None = None
            best_hit: Hit | None = None
            for sentence, sentence_terms in zip(analysis.sentences, analysis.sentence_terms, strict=True):
                matched = (wanted_set & sentence_terms) | from_title
                if matched.isdisjoint(plain_set):
                    continue
                named = len(matched & id_set)
                if id_set and not named:
                    continue
                covered = math.fsum(map(weight.__getitem__, matched))  # exact sum: the same in any set order
                score = covered / known_total
                coverage = covered / total
                if score < self.floor or coverage < self.min_question_coverage:
                    continue
                if best is None or (named, score) > best:
                    best = (named, score)
                    best_hit = Hit(source.id, round(score, 6), sentence, round(coverage, 6))
            if best is not None and best_hit is not None:
                hits.append((-best[0], -best[1], position, best_hit))
        hits.sort(key=lambda item: item[:3])
        return [hit for *_, hit in hits[: self.top_k]]
