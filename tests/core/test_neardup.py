"""Near-duplicate questions: rewordings are caught, distinct questions are not, the fast index agrees."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qaeval_tui.core.golden.loader import load_golden
from qaeval_tui.core.golden.neardup import NEAR_DUPLICATE_THRESHOLD, QuestionIndex, similarity
from tests.conftest import DEMO_GOLDEN


@pytest.fixture(scope="module")
def demo_questions() -> dict[str, str]:
    return {loaded.case.id: loaded.case.question for loaded in load_golden([DEMO_GOLDEN]).cases}


@pytest.fixture(scope="module")
def demo_index(demo_questions: dict[str, str]) -> QuestionIndex:
    return QuestionIndex(demo_questions.items())


# Rewordings a curator could bring in from production, with the demo case each repeats.
REWORDINGS = [
    ("What's the Gateway G2 price right now?", "gateway-price-current-01"),
    ("How much usable energy does the HB-10 store?", "spec-usable-capacity-01"),
    ("What does E204 mean on the HB-10?", "error-e204-meaning-01"),
    ("How many charge cycles are covered by the HB-10 warranty?", "warranty-cycles-hb10-01"),
    ("How often do I replace the air filter on the HB-10?", "maintenance-filter-01"),
    ("What is the current HB-10 firmware version?", "firmware-current-01"),
    ("How fast does Tidewell answer support emails?", "support-email-01"),
]


@pytest.mark.parametrize(("question", "case_id"), REWORDINGS)
def test_rewording_of_a_demo_question_is_flagged_first(demo_index: QuestionIndex, question: str, case_id: str) -> None:
    found = demo_index.near_duplicates(question)
    assert found and found[0].case_id == case_id
    assert found[0].score >= NEAR_DUPLICATE_THRESHOLD


def test_distinct_demo_questions_stay_below_the_threshold(demo_questions: dict[str, str]) -> None:
    # The one pair above it is a deliberate look-alike (same wording, another error code).
    flagged = {
        frozenset((a, b))
        for (a, qa), (b, qb) in itertools.combinations(demo_questions.items(), 2)
        if similarity(qa, qb) >= NEAR_DUPLICATE_THRESHOLD
    }
    assert flagged == {frozenset(("error-e204-meaning-01", "error-e415-01"))}


def test_case_punctuation_and_function_words_do_not_matter() -> None:
    assert similarity("What's the Gateway G2 price?", "whats gateway g2 PRICE") == 1.0
    assert similarity("Gateway G2 price", "Warranty transfer fee") < 0.1


def test_closest_is_ranked_limited_and_can_exclude_a_case(demo_index: QuestionIndex) -> None:
    ranked = demo_index.closest("what does error code E204 mean", limit=3)
    assert [c.case_id for c in ranked][:2] == ["error-e204-meaning-01", "error-e415-01"]
    assert len(ranked) == 3 and ranked[0].score >= ranked[1].score >= ranked[2].score
    without = demo_index.closest("what does error code E204 mean", limit=3, exclude="error-e204-meaning-01")
    assert "error-e204-meaning-01" not in [c.case_id for c in without] and len(without) == 3


def test_unrelated_or_empty_questions_find_nothing(demo_index: QuestionIndex) -> None:
    assert demo_index.near_duplicates("Who won the 1998 football world cup?") == []
    assert demo_index.near_duplicates("   ?!  ") == []
    assert QuestionIndex([]).near_duplicates("What's the Gateway G2 price right now?") == []


VOCABULARY = ("battery", "warranty", "gateway", "price", "hb-10", "e204", "filter", "what", "is", "the", "how", "many")
words = st.sampled_from(VOCABULARY)
questions = st.lists(words, min_size=0, max_size=8).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(existing=st.lists(questions, min_size=1, max_size=12), question=questions)
def test_index_scores_equal_pairwise_similarity(existing: list[str], question: str) -> None:
    index = QuestionIndex((f"c{i}", q) for i, q in enumerate(existing))
    scores = index.scores(question)
    assert [round(float(s), 9) for s in scores] == [round(similarity(question, q), 9) for q in existing]
