"""The citable sections of the rubric's guidelines: what an adjudication ruling may cite.

A section is a Markdown heading (`#` to `######`, outside fenced code) of the general guidelines
(`[rubric] guidelines`) or of one axis's (`[[rubric.axes]] guidelines`). Its id is the heading's
slug, as GitHub writes anchors (lower case, punctuation dropped, spaces as hyphens, `-1`, `-2` on
a repeated heading): bare for the general guidelines (`partly-supported-answers`), after the axis
name and `#` for an axis's (`faithfulness#faithfulness`). The id stays the same as long as the
heading's words do; a ruling stores the id, and a stored id the guidelines no longer have is shown
as it is, marked as gone.

A ruling on one axis may cite the general guidelines or that axis's own: a section of another
axis's guidelines is refused, as is an unknown id (UsageError, exit 2, nothing written).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.rubric import Rubric
from qaeval_tui.core.text import one_line

__all__ = ["GuidelineSection", "cited_section", "guideline_sections", "section_label", "slug"]

_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_INLINE = re.compile(r"[*`]|(?<!\w)_|_(?!\w)")
_NOT_SLUG = re.compile(r"[^\w\- ]", re.UNICODE)


@dataclass(frozen=True)
class GuidelineSection:
    id: str
    """What a ruling stores and `--cites` takes."""
    title: str
    """The heading's words, without its Markdown emphasis."""
    axis: str | None
    """The axis whose guidelines hold it; None for the general guidelines."""
    level: int
    """1 for `#`, 2 for `##`, ..."""

    @property
    def where(self) -> str:
        return "general guidelines" if self.axis is None else f"{self.axis} guidelines"


def slug(title: str) -> str:
    """The heading's anchor as GitHub writes it: `Partly supported answers` -> `partly-supported-answers`."""
    return _NOT_SLUG.sub("", title.strip().lower()).replace(" ", "-")


def _headings(markdown: str) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    fence: str | None = None
    for text in markdown.splitlines():
        opened = _FENCE.match(text)
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = None
            continue
        if opened:
            fence = opened.group(1)
            continue
        heading = _HEADING.match(text)
        if heading:
            title = " ".join(_INLINE.sub("", heading.group(2) or "").split())
            if title:
                found.append((len(heading.group(1)), title))
    return found


def _sections(markdown: str, axis: str | None) -> list[GuidelineSection]:
    seen: dict[str, int] = {}
    sections: list[GuidelineSection] = []
    for level, title in _headings(markdown):
        base = slug(title) or "section"
        count = seen.get(base, 0)
        seen[base] = count + 1
        anchor = base if count == 0 else f"{base}-{count}"
        sections.append(GuidelineSection(anchor if axis is None else f"{axis}#{anchor}", title, axis, level))
    return sections


def guideline_sections(rubric: Rubric, axis: str | None = None) -> tuple[GuidelineSection, ...]:
    """Every citable section: the general guidelines' first, then each axis's in rubric order.

    With `axis`, only what a ruling on that axis may cite: the general sections and that axis's."""
    sections = _sections(rubric.guidelines, None)
    for each in rubric.axes:
        if axis is None or each.name == axis:
            sections.extend(_sections(each.guidelines, each.name))
    return tuple(sections)


def cited_section(rubric: Rubric, axis: str, section_id: str) -> GuidelineSection:
    """The section a ruling on `axis` cites. UsageError (exit 2) naming `cites` when the rubric's
    guidelines have no such section, or it belongs to another axis's guidelines."""
    wanted = section_id.strip()
    for section in guideline_sections(rubric):
        if section.id == wanted:
            if section.axis not in (None, axis):
                raise UsageError(
                    f"cites {one_line(wanted)!r}: a section of the {one_line(section.axis)} guidelines; "
                    f"a ruling on {one_line(axis)} cites the general guidelines or its own"
                )
            return section
    allowed = [section.id for section in guideline_sections(rubric, axis)]
    known = ", ".join(one_line(section) for section in allowed) if allowed else "none: the rubric has no headings"
    raise UsageError(f"cites {one_line(wanted)!r}: no such guideline section; a ruling on {axis} may cite: {known}")


def section_label(rubric: Rubric, section_id: str) -> str:
    """How a cited section reads next to a ruling: `Partly supported answers (general guidelines)`,
    or the stored id marked as gone when the guidelines no longer have it."""
    for section in guideline_sections(rubric):
        if section.id == section_id:
            return f"{section.title} ({section.where})"
    return f"{section_id} (no longer in the guidelines)"
