"""Guideline sections a ruling may cite: listed from the rubric's Markdown headings, validated when
a ruling names one, stored with the ruling and shown by its title wherever the ruling is."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from qaeval_tui.core.config import Config
from qaeval_tui.core.curation.adjudication import adjudication_queue, record_consensus
from qaeval_tui.core.curation.dossier import item_dossier
from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.guideline_sections import cited_section, guideline_sections, section_label
from qaeval_tui.core.review.session import build_review_items
from qaeval_tui.core.rubric import Axis, Rubric
from qaeval_tui.core.store.rows import ItemAxis
from qaeval_tui.core.store.sqlite import Store
from tests.core.review_fixtures import store_with_run
from tests.core.test_adjudication_queue import label

CONFIG = Config()
F = "faithfulness"


def test_the_demo_rubric_lists_its_general_and_per_axis_sections() -> None:
    sections = guideline_sections(CONFIG.rubric)
    assert [(s.id, s.title, s.axis) for s in sections] == [
        ("labeling-guidelines", "Labeling guidelines", None),
        ("abstentions", "Abstentions", None),
        ("answers-with-no-citations", "Answers with no citations", None),
        ("partly-supported-answers", "Partly supported answers", None),
        ("faithfulness#faithfulness", "Faithfulness", F),
        ("citation_correctness#citation-correctness", "Citation correctness", "citation_correctness"),
        ("answer_correctness#answer-correctness", "Answer correctness", "answer_correctness"),
    ]
    # a ruling on one axis may cite the general sections and that axis's own
    assert [s.id for s in guideline_sections(CONFIG.rubric, F)][-1] == "faithfulness#faithfulness"
    assert len(guideline_sections(CONFIG.rubric, F)) == 5


def test_headings_in_code_are_not_sections_and_a_repeated_heading_gets_its_own_id() -> None:
    text = (
        "# Scoring *well*\n\n```\n# not a heading\n```\n\n## Example ##\nbody\n\n## Example\n\n#no space\n"
        "~~~~\n## fenced too\n~~~~\n### `Edge` cases: 1/2!\n"
    )
    axis = Axis(name="tone", anchors=("bad", "ok", "good"), guidelines="## Tone\n")
    rubric = Rubric(axes=(axis,), guidelines=text)
    assert [(s.id, s.title, s.level) for s in guideline_sections(rubric)] == [
        ("scoring-well", "Scoring well", 1),
        ("example", "Example", 2),
        ("example-1", "Example", 2),
        ("edge-cases-12", "Edge cases: 1/2!", 3),
        ("tone#tone", "Tone", 2),
    ]
    assert section_label(rubric, "example-1") == "Example (general guidelines)"
    assert section_label(rubric, "tone#tone") == "Tone (tone guidelines)"
    assert section_label(rubric, "gone") == "gone (no longer in the guidelines)"


def test_an_unknown_section_or_another_axis_s_is_refused_naming_what_may_be_cited() -> None:
    with pytest.raises(UsageError) as caught:
        cited_section(CONFIG.rubric, F, "partly-supported")
    message = str(caught.value)
    assert message.startswith("cites 'partly-supported': no such guideline section")
    assert "partly-supported-answers" in message and "faithfulness#faithfulness" in message
    assert "answer_correctness#" not in message  # only what a faithfulness ruling may cite
    with pytest.raises(UsageError, match="a section of the answer_correctness guidelines"):
        cited_section(CONFIG.rubric, F, "answer_correctness#answer-correctness")
    assert cited_section(CONFIG.rubric, F, " abstentions ").title == "Abstentions"


@pytest.fixture
def split(tmp_path: Path) -> Iterator[tuple[Store, str]]:
    store, items = store_with_run(tmp_path / "q.db", n_items=2)
    build_review_items(store, "run-1")
    store.insert_labels([label(items[0], "ana", {F: 0}), label(items[0], "ben", {F: 2})], origin="test")
    yield store, items[0]
    store.close()


def test_a_ruling_citing_a_section_is_stored_and_shown_with_its_title(split: tuple[Store, str]) -> None:
    store, item = split
    record_consensus(store, CONFIG, item, F, 1, "one detail goes beyond the source", "dana", "partly-supported-answers")
    row = store.rulings()[ItemAxis(item, F)]
    assert (row.score, row.reason, row.adjudicator, row.cites) == (
        1,
        "one detail goes beyond the source",
        "dana",
        "partly-supported-answers",
    )
    (entry,) = adjudication_queue(store, CONFIG).entries
    assert entry.ruling is not None and entry.ruling.cites_title == "Partly supported answers (general guidelines)"
    assert entry.ruling.text() == (
        "ruled 1 by dana: “one detail goes beyond the source” · cites Partly supported answers (general guidelines)"
    )
    (ruling,) = item_dossier(store, CONFIG, item, with_judge=False).rulings
    assert (ruling.axis, ruling.reason, ruling.cites_title) == (
        F,
        "one detail goes beyond the source",
        "Partly supported answers (general guidelines)",
    )


@pytest.mark.parametrize(
    ("cites", "message"),
    [
        ("partly-supported", "no such guideline section"),
        ("citation_correctness#citation-correctness", "a section of the citation_correctness guidelines"),
    ],
)
def test_a_ruling_citing_an_unknown_section_is_refused_and_writes_nothing(
    split: tuple[Store, str], cites: str, message: str
) -> None:
    store, item = split
    with pytest.raises(UsageError, match=message) as caught:
        record_consensus(store, CONFIG, item, F, 1, "fits the anchor", "dana", cites)
    assert caught.value.exit_code == 2
    assert store.count("adjudications") == 0
