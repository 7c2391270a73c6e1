"""The default rubric's labeling guidelines (Markdown), shown with `g` on the review screen.

Project-authored text: the review screen renders it as Markdown. A project with its own rubric
writes its own, inline or in a .md file (`[rubric] guidelines`, `[[rubric.axes]] guidelines`).
"""

from __future__ import annotations

GENERAL_GUIDELINES = """\
# Labeling guidelines

Score what is on screen: the question, the answer and the retrieved sources. Score the blind axes
(faithfulness, citation correctness) first; the gold answer shows only after them, and from then
on they are locked. Unsure between two points? Take the lower one and write a note (`n`). If you
cannot judge an axis at all (a source is unreadable, the question is ambiguous), press `x`.

## Abstentions

An answer that declines ("the sources do not say") makes no claim. **Faithfulness 2** and
**citation correctness 2** if it cites nothing and claims nothing. Answer correctness decides
whether declining was right: **2** when the gold says to abstain, **0** when the sources held the
answer.

*Worked example.* Question: "What is the refund window for annual plans?" Answer: "The sources do
not say." Sources: only the monthly-plan policy. Gold: abstain. Score faithfulness 2, citation
correctness 2, answer correctness 2. Had a source said "annual plans: 30 days", answer
correctness would be 0.

## Answers with no citations

Faithfulness still asks whether the claims are in the sources: read them. Citation correctness is
**0** when a claim needs a citation and has none; an answer with nothing to cite (an abstention)
is not penalised.

*Worked example.* Answer: "Passwords expire after 90 days." with no marker; source 2 says exactly
that. Faithfulness 2 (supported), citation correctness 0 (the claim is uncited).

## Partly supported answers

One unsupported or contradicted detail in an otherwise supported answer is **faithfulness 1**; a
claim the sources contradict on the point the question asks about is **0**.

*Worked example.* Answer: "Exports run nightly at 02:00 UTC and keep 14 days of history [1]."
Source 1 says nightly at 02:00 UTC and says nothing about history. Faithfulness 1 (the 14 days goes
beyond the source), citation correctness 2 (the cited passage supports what it can).
"""

AXIS_GUIDELINES: dict[str, str] = {
    "faithfulness": """\
## Faithfulness

Is every claim in the answer supported by the retrieved sources? Judge against the sources only,
not what you know. An abstention makes no claim: 2. One detail beyond the sources: 1. A claim the
sources contradict, or the main claim missing from them: 0.
""",
    "citation_correctness": """\
## Citation correctness

Does each citation point to the passage that supports its claim? A needed citation that is missing
is 0, as is a citation to a source that does not say it. Relevant but weaker sources: 1. An answer
with nothing to cite (an abstention): 2.
""",
    "answer_correctness": """\
## Answer correctness

Compared with the gold answer, shown once the blind axes are scored. Right in substance: 2. The
key fact incomplete or mixed with an error: 1. Wrong, missing, or a wrong refusal (or an answer
where the gold says to abstain): 0.
""",
}
