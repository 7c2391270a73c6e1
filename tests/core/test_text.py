"""core.text: the one literal path every renderer goes through."""

from __future__ import annotations

import json
import sys
import unicodedata
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given
from hypothesis import strategies as st

from qaeval_tui.core.text import has_hidden, html_text, json_visible, literal, markdown_text, one_line, xml_text

JOINERS = {"\u200c", "\u200d"}  # kept: scripts and emoji sequences need them


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("a\x1b[2Jb", "a\\x1b[2Jb"),  # clear screen
        ("\x1b]52;c;aGk=\x07", "\\x1b]52;c;aGk=\\x07"),  # OSC 52: clipboard write
        ("\x9b31m", "\\x9b31m"),  # C1 CSI
        ("abc\u202eexe.txt", "abc\\u202eexe.txt"),  # right-to-left override
        ("\u2066x\u2069", "\\u2066x\\u2069"),  # isolates
        ("a\u200bb\u00adc\ufeff", "a\\u200bb\\xadc\\ufeff"),  # zero-width space, soft hyphen, BOM
        ("\U000e0041", "\\U000e0041"),  # tag character (invisible text)
        ("\ud800", "\\ud800"),  # lone surrogate: would not even encode
        ("\u2028", "\\u2028"),  # line separator
        ("\ufffe", "\\ufffe"),  # forbidden in XML
        ("tab\there\nnext", "tab\there\nnext"),
        ("[bold red]x[/] :warning: <b>", "[bold red]x[/] :warning: <b>"),  # markup is the renderer's business
        ("naïve 日本語 👩\u200d💻 ٱلْ", "naïve 日本語 👩\u200d💻 ٱلْ"),
    ],
)
def test_literal_shows_every_hidden_character_as_an_escape(raw: str, shown: str) -> None:
    assert literal(raw) == shown
    assert has_hidden(raw) == (raw != shown)


def test_every_format_character_of_this_python_is_hidden() -> None:
    """The hard-coded class matches Python's Unicode table: a new Cf character fails here, not in a terminal."""
    missed = [
        f"U+{code:04X}"
        for code in range(sys.maxunicode + 1)
        if unicodedata.category(chr(code)) in ("Cc", "Cf", "Cs", "Zl", "Zp")
        and chr(code) not in JOINERS | {"\t", "\n"}
        and not has_hidden(chr(code))
    ]
    assert missed == []


@given(st.text())
def test_literal_output_holds_no_hidden_character(text: str) -> None:
    assert not has_hidden(literal(text))
    assert not has_hidden(one_line(text)) and "\n" not in one_line(text)


def test_one_line_never_cuts_an_escape_in_half() -> None:
    assert one_line("abcdef\x1b[2J", 9) == "abcdef…"  # not "abcdef\x…"
    assert one_line("ab\u202ecdefgh", 6) == "ab…"
    assert one_line("a  b\n\nc", None) == "a b c"


def test_markdown_text_cannot_add_a_heading_a_cell_code_or_html() -> None:
    text = markdown_text("x | y\n# heading `code` <script>a</script> [l](u) *e* $m$ :warning:")
    assert text == (
        "x \\| y \\# heading \\`code\\` &lt;script&gt;a&lt;/script&gt; \\[l\\](u) \\*e\\* \\$m\\$ :warning:"
    )


def test_html_text_escapes_entities_and_shows_hidden_characters() -> None:
    assert html_text('<a href="x">\x1b&</a>') == "&lt;a href=&quot;x&quot;&gt;\\x1b&amp;&lt;/a&gt;"


@given(st.text())
def test_xml_text_is_always_well_formed_and_keeps_visible_text(text: str) -> None:
    element = ET.Element("t", message=xml_text(text))
    element.text = xml_text(text)
    parsed = ET.fromstring(ET.tostring(element, encoding="unicode"))
    assert (parsed.text or "", parsed.get("message")) == (xml_text(text), xml_text(text))


@given(st.recursive(st.text() | st.integers(), lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner)))
def test_json_visible_reads_back_to_the_same_data(data: object) -> None:
    document = json_visible(json.dumps(data, ensure_ascii=False))
    assert not has_hidden(document)
    assert json.loads(document) == data
