"""A golden case as Content: a short summary for the browser, and the whole case with its sources."""

from __future__ import annotations

from textual.content import Content

from qaeval_tui.core.models.golden import LIVING_SPLIT, LoadedCase, RetrieveCheckpoint
from qaeval_tui.tui.literal import line, plain

HEAD = "bold $primary"
MUTED = "$foreground-muted"


def _row(title: str, body: Content) -> Content:
    return Content.assemble((f"{title:<14}", HEAD), body)


def _gold(loaded: LoadedCase) -> Content:
    case = loaded.case
    if case.expected_behavior == "abstain":
        return Content.styled("the system should abstain", "italic")
    return plain(case.gold_answer or "")


def access_line(loaded: LoadedCase) -> Content:
    """Whether the case may change: frozen cases never do."""
    if loaded.split == LIVING_SPLIT:
        return Content.styled("living split · read-only here (promotions append to it)", "$warning")
    return line(f"{loaded.split} split · read-only: frozen cases are never changed").stylize("bold $success")


def case_summary(loaded: LoadedCase) -> Content:
    case = loaded.case
    return Content("\n").join(
        [
            Content.assemble(plain(case.id).stylize("bold"), "  ", access_line(loaded)),
            _row("Question", plain(case.question)),
            _row("Gold", _gold(loaded)),
            _row("Sources", plain(f"{len(case.sources)} · gold: {', '.join(case.gold_source_ids) or 'none'}")),
        ]
    )


def case_content(loaded: LoadedCase) -> Content:
    """Every field of the case, then its sources (gold ones marked)."""
    case = loaded.case
    lines = [
        Content.assemble(plain(case.id).stylize("bold $accent"), ("  ", ""), access_line(loaded)),
        line(f"{loaded.path}:{loaded.line} · content hash {loaded.content_hash[:16]}").stylize(MUTED),
        Content(""),
        _row("Question", plain(case.question)),
        _row("Behaviour", Content(case.expected_behavior)),
        _row("Gold", _gold(loaded)),
        _row("Gold sources", plain(", ".join(case.gold_source_ids) or "none")),
        _row("Difficulty", Content(case.difficulty)),
        _row("Tag", plain(case.adversarial) if case.adversarial else Content.styled("none", MUTED)),
    ]
    for index, checkpoint in enumerate(case.checkpoints):
        if isinstance(checkpoint, RetrieveCheckpoint):
            text = plain(f"retrieve {checkpoint.source_id}")
        else:
            text = plain(f"value {checkpoint.name} = {checkpoint.value!r}")
        lines.append(_row("Checkpoints" if index == 0 else "", text))
    provenance = case.provenance
    if provenance is not None:
        lines.append(
            _row(
                "Provenance",
                Content.assemble(
                    plain(provenance.origin), (" · trace ", MUTED), plain(provenance.trace_id),
                    (" · by ", MUTED), plain(provenance.promoted_by), (" at ", MUTED), plain(provenance.promoted_at),
                ),
            )
        )  # fmt: skip
        lines.append(_row("", Content.assemble(("why: ", MUTED), plain(provenance.reason))))
    lines.append(Content(""))
    lines.append(Content.styled(f"Sources ({len(case.sources)})", HEAD))
    for source in case.sources:
        gold = source.id in case.gold_source_ids
        lines.append(
            Content.assemble(
                plain(source.id).stylize("bold $primary"),
                " · ",
                plain(source.title or "(untitled)").stylize("bold"),
                ("  ★ gold" if gold else "", "bold $success"),
            )
        )
        lines.append(plain(source.text))
        lines.append(Content(""))
    return Content("\n").join(lines)
