"""Lexical matching shared by the checks, the trajectory scorer and the bundled hub, retriever and judge.

The matcher is deliberately simple and deterministic: casefolded word tokens, a small stop
list, a light suffix stripper, identifiers (model numbers, error codes, versions) kept whole,
and words right after a negation left out, so "installation is not included" does not count
as evidence that installation is included. Per-text analyses are cached because the hub, the
checks and the judge look at the same passages of a case one after the other.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_WORD = r"\w++(?:[.,'’\-/]\w++)*+"
# Each pattern twice: the ASCII build scans plain-ASCII text (most text) about twice as fast, same matches.
_TOKEN = (re.compile(_WORD), re.compile(_WORD, re.ASCII))
# A full stop (or ! ?) followed by space and anything but a lowercase letter ends a sentence.
_END = r"([.!?])\s+(?=[^a-z\s])"
_SENTENCE_END = (re.compile(_END), re.compile(_END, re.ASCII))

STOPWORDS = frozenset(
    """a an the and or but if of to in on at by for with from as is are was were be been being do does did done
    have has had having it its it's this that these those there here what which who whom whose when where why how
    much many can could should would will shall may might must i me my we our us you your they them their he she his
    her him not no yes than then so such about into onto over under after before up down out off only also just any
    all some each per very get gets got there's what's let me im i'm""".split()  # noqa: SIM905 (a word list reads better)
)
NEGATORS = frozenset(
    "not no never without cannot can't isn't aren't doesn't don't didn't won't wasn't weren't nor neither".split()  # noqa: SIM905
)
_NEGATION_REACH = 3
_EMPTY: frozenset[str] = frozenset()


def fold_space(text: str) -> str:
    """Casefolded, with every run of whitespace turned into one space: for containment tests. Not cached: for
    a text seen once (a system's prompt), which a cache would only keep alive."""
    return " ".join(text.split()).casefold()


@lru_cache(maxsize=1_024)  # a case's question and passages meet again within the case, not across a suite
def normalize_space(text: str) -> str:
    """`fold_space`, cached: for the texts of a case the checks look at more than once."""
    return fold_space(text)


def _term(raw: str) -> tuple[str, ...]:
    """The matching terms of one raw token, in any case (empty for a stop word)."""
    return _TERMS[raw]


class _TermCache(dict[str, tuple[str, ...]]):
    """raw token -> its terms. A dict subclass so `map(cache.__getitem__, tokens)` stays in C on a hit."""

    LIMIT = 16_384
    """Distinct tokens kept (~200 bytes each, ~3 MB at most): numbers and names unique to a case (a section
    title's number) would otherwise grow the cache with a suite's size; a clear costs a microsecond a token."""

    def __missing__(self, raw: str) -> tuple[str, ...]:
        if len(self) >= self.LIMIT:
            self.clear()
        found = self[raw] = _compute_term(raw)
        return found


_TERMS = _TermCache()


def _compute_term(raw: str) -> tuple[str, ...]:
    token = raw.casefold().replace("’", "'")
    if token.endswith("'s"):
        token = token[:-2]
    has_digit = any(ch.isdigit() for ch in token)
    if has_digit:
        token = token.replace(",", "")
    elif "-" in token or "/" in token:
        return tuple(term for part in re.split(r"[-/]", token) for term in _compute_term(part))
    if not token or token in STOPWORDS:
        return ()
    return (_stem(token),)


def _stem(word: str) -> str:
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    return word


def _tokens(text: str) -> list[str]:
    """Raw casefolded tokens, typographic apostrophes made plain."""
    folded = text.casefold()
    if "’" in folded:
        folded = folded.replace("’", "'")
    return _TOKEN[folded.isascii()].findall(folded)


def terms(text: str) -> list[str]:
    """Content terms of `text`, in order (stop words dropped, suffixes stripped)."""
    found: list[str] = []
    for raw in _tokens(text):
        found.extend(_term(raw))
    return found


def _plain_and_affirmed(raws: list[str]) -> tuple[frozenset[str], frozenset[str]]:
    """All terms of a token list, and those not within a few words after a negation."""
    plain = _EMPTY.union(*map(_TERMS.__getitem__, raws))
    if NEGATORS.isdisjoint(raws):
        return plain, plain
    kept: set[str] = set()
    shadow = 0
    for raw in raws:
        if raw in NEGATORS:
            shadow = _NEGATION_REACH
            continue
        if shadow:
            shadow -= 1
            continue
        kept.update(_term(raw))
    return plain, frozenset(kept)


@lru_cache(maxsize=4_096)  # a case's claims and titles meet again within the case; ~400 bytes an entry
def affirmed_terms(text: str) -> frozenset[str]:
    """Terms of `text` except those within a few words after a negation."""
    return _plain_and_affirmed(_tokens(text))[1]


@lru_cache(maxsize=4_096)  # a case's question and gold answer terms: numbers unique to a case fill it
def is_identifier(term: str) -> bool:
    """Model numbers, error codes and versions: letters with digits (hb-10, e415) or a dotted version (2.4.0)."""
    has_digit = any(ch.isdigit() for ch in term)
    return has_digit and (any(ch.isalpha() for ch in term) or term.count(".") >= 2)


def split_sentences(text: str) -> list[str]:
    """Sentences of `text` (a full stop before a capital, a digit or a quote ends one; so does a newline)."""
    sentences: list[str] = []
    for line in text.split("\n"):
        parts = _SENTENCE_END[line.isascii()].split(line)
        # split() with one group alternates text and the captured mark: rejoin each sentence with its mark.
        for index in range(0, len(parts), 2):
            sentence = (parts[index] + (parts[index + 1] if index + 1 < len(parts) else "")).strip()
            if sentence:
                sentences.append(sentence)
    return sentences


@dataclass(frozen=True)
class TextAnalysis:
    """A passage cut into sentences, with each sentence's affirmed terms and all the passage's terms."""

    sentences: tuple[str, ...]
    sentence_terms: tuple[frozenset[str], ...]
    all_terms: frozenset[str]


@lru_cache(maxsize=2_048)  # ~15 KB a 1,000-character passage: under ~30 MB at any suite size; the cases in flight
# (a few times the judge's concurrency, five passages each) fit in it
def analyze(text: str) -> TextAnalysis:
    sentences = split_sentences(text)
    # The hot loop of a big run (every passage of every case): kept inline on purpose.
    findall = _TOKEN[text.isascii()].findall
    lookup = _TERMS.__getitem__
    union = _EMPTY.union
    typographic = "’" in text
    plains: list[frozenset[str]] = []
    affirmed: list[frozenset[str]] = []
    for sentence in sentences:
        folded = sentence.casefold()
        raws = findall(folded.replace("’", "'") if typographic else folded)
        plain = union(*map(lookup, raws))
        plains.append(plain)
        affirmed.append(plain if NEGATORS.isdisjoint(raws) else _plain_and_affirmed(raws)[1])
    return TextAnalysis(tuple(sentences), tuple(affirmed), union(*plains))


def term_set(text: str) -> frozenset[str]:
    """The affirmed terms of `text` (what counts as stated, negations left out)."""
    return affirmed_terms(text)


def support(claim: str, evidence: str) -> float:
    """Share of the claim's affirmed terms the evidence affirms (1.0 for a claim with no content terms)."""
    claim_terms = affirmed_terms(claim)
    if not claim_terms:
        return 1.0
    return len(claim_terms & affirmed_terms(evidence)) / len(claim_terms)


def support_terms(claim_terms: frozenset[str], evidence_terms: frozenset[str]) -> float:
    """`support` on precomputed term sets."""
    if not claim_terms:
        return 1.0
    return len(claim_terms & evidence_terms) / len(claim_terms)
