"""Retrieval metrics on hand-computed examples, and the lexical matcher the hub and judge share."""

from __future__ import annotations

import math

import pytest

from qaeval_tui.bundled.retriever import LexicalRetriever
from qaeval_tui.core.models.golden import Source
from qaeval_tui.core.running.matching import affirmed_terms, analyze, is_identifier, split_sentences, support, terms
from qaeval_tui.core.running.metrics import ndcg_at_k, precision_at_k, recall_at_k, reciprocal_rank


def test_recall_and_precision_at_k() -> None:
    retrieved = ["s3", "s1", "s4", "s2"]
    gold = ["s1", "s2"]
    assert recall_at_k(retrieved, gold, 2) == 0.5  # s1 of {s1, s2} in the top 2
    assert recall_at_k(retrieved, gold, 4) == 1.0
    assert precision_at_k(retrieved, gold, 2) == 0.5  # s3 no, s1 yes
    assert precision_at_k(retrieved, gold, 3) == pytest.approx(1 / 3)
    assert precision_at_k(["s1"], gold, 3) == 1.0  # one retrieved, one gold: divides by what was retrieved
    assert precision_at_k([], gold, 3) == 0.0


def test_mrr_is_one_over_the_rank_of_the_first_gold_source() -> None:
    assert reciprocal_rank(["s3", "s4", "s2"], ["s2", "s1"]) == pytest.approx(1 / 3)
    assert reciprocal_rank(["s1"], ["s1"]) == 1.0
    assert reciprocal_rank(["s3"], ["s1"]) == 0.0


def test_ndcg_binary_relevance_by_hand() -> None:
    # gold at ranks 2 and 3: DCG = 1/log2(3) + 1/log2(4); ideal = 1/log2(2) + 1/log2(3).
    expected = (1 / math.log2(3) + 1 / math.log2(4)) / (1 + 1 / math.log2(3))
    assert ndcg_at_k(["x", "g1", "g2"], ["g1", "g2"], 3) == pytest.approx(expected)
    assert expected == pytest.approx(0.6934, abs=1e-4)
    assert ndcg_at_k(["g1", "g2"], ["g1", "g2"], 3) == pytest.approx(1.0)
    assert ndcg_at_k(["x", "y", "g1"], ["g1"], 2) == 0.0


def test_metrics_are_undefined_without_gold_sources() -> None:
    assert recall_at_k(["s1"], [], 3) is None
    assert precision_at_k(["s1"], [], 3) is None
    assert reciprocal_rank(["s1"], []) is None
    assert ndcg_at_k(["s1"], [], 3) is None


def test_terms_keep_identifiers_whole_and_stem_plain_words() -> None:
    found = terms("The HB-10 shows E415 after firmware 2.4.0; it charges while charging.")
    assert {"hb-10", "e415", "2.4.0", "charg"} <= set(found)
    assert "the" not in found
    assert is_identifier("hb-10") and is_identifier("e415") and is_identifier("2.4.0")
    assert not is_identifier("10.2") and not is_identifier("warranty")
    assert set(terms("$7,990 and 6,000 cycles")) == {"7990", "6000", "cycl"}


def test_negated_words_are_not_affirmed() -> None:
    assert "includ" not in affirmed_terms("Installation is not included in the price.")
    assert "includ" in affirmed_terms("Installation is included in the price.")
    assert "includ" not in affirmed_terms("Installation isn’t included.")
    assert support("installation is included", "Installation is not included.") == 0.5


def test_sentences_split_on_a_stop_before_a_capital_but_not_inside_numbers() -> None:
    text = "It stores 10.2 kWh. The HB-5 stores 5.1 kWh! Is it enough? yes.\nNext line"
    assert split_sentences(text) == [
        "It stores 10.2 kWh.",
        "The HB-5 stores 5.1 kWh!",
        "Is it enough? yes.",
        "Next line",
    ]
    analysis = analyze(text)
    assert len(analysis.sentence_terms) == len(analysis.sentences) == 4
    assert "10.2" in analysis.sentence_terms[0] and "hb-5" in analysis.all_terms


SOURCES = (
    Source(id="s1", title="HB-5 warranty", text="The HB-5 warranty lasts 7 years from installation."),
    Source(id="s2", title="HB-10 warranty", text="The HB-10 warranty lasts 10 years from installation."),
    Source(id="s3", title="Shipping", text="Orders ship within 5 business days."),
)


def test_the_retriever_ranks_the_passage_naming_the_question_identifier_first() -> None:
    hits = LexicalRetriever().rank("How long does the HB-10 warranty last?", SOURCES)
    assert hits[0].source_id == "s2"
    assert hits[0].snippet == "The HB-10 warranty lasts 10 years from installation."
    assert "s3" not in [hit.source_id for hit in hits]


def test_the_retriever_returns_nothing_below_the_floor() -> None:
    assert LexicalRetriever().rank("Do you offer monthly financing plans?", SOURCES) == []
    # An identifier no passage has: the question is about something the corpus does not cover.
    assert LexicalRetriever().rank("How long does the HB-20 warranty last?", SOURCES) == []


def test_the_retriever_respects_top_k_and_the_floor_setting() -> None:
    loose = LexicalRetriever(floor=0.0, min_question_coverage=0.0, top_k=1)
    assert len(loose.rank("warranty installation years", SOURCES)) == 1
    strict = LexicalRetriever(floor=1.0)
    assert strict.rank("warranty installation shipping", SOURCES) == []
