"""The one MarkdownV2 renderer: intended formatting kept, nothing injected by text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bots.adapters.telegram.render import card_markdown, escape, render
from bots.chat.cards import Card, Section

#: MarkdownV2 characters that would make links, mentions, spoilers or custom emoji
#: when left unescaped outside code; the renderer never writes any of them as markup
NEVER_MARKUP = set("[]()|{}#+-=.!")


def unescaped_outside_code(text: str) -> list[str]:
    """The characters of ``text`` MarkdownV2 would read as markup, code excepted."""
    found: list[str] = []
    i, in_pre, in_code = 0, False, False
    while i < len(text):
        char = text[i]
        if char == "\\":
            i += 2
            continue
        if text.startswith("```", i) and not in_code:
            in_pre = not in_pre
            i += 3
            continue
        if char == "`" and not in_pre:
            in_code = not in_code
        elif not in_pre and not in_code:
            found.append(char)
        i += 1
    return [c for c in found if c in NEVER_MARKUP]


def test_model_markdown_keeps_its_meaning() -> None:
    """Bold, italics, code and code blocks survive; list markers and dots are escaped."""
    text = "**Done**: added _milk_.\n\n- one\n- two\n\n```\nx = [1]\n```\n\nrun `a_b`!"
    assert render(text) == (
        "*Done*: added _milk_\\.\n\n• one\n• two\n\n```\nx = [1]\n```\n\nrun `a_b`\\!"
    )


def test_links_and_mentions_cannot_be_disguised() -> None:
    """A Markdown link shows its URL in plain text; tg:// mentions and spoilers stay text."""
    rendered = render("[click here](tg://user?id=123) ||secret|| [x](https://evil.example)")
    assert rendered == (
        "click here \\(tg://user?id\\=123\\) \\|\\|secret\\|\\| x \\(https://evil\\.example\\)"
    )
    assert unescaped_outside_code(rendered) == []


def test_code_cannot_be_closed_early() -> None:
    """A backtick or backslash inside code is escaped, so code ends where it began."""
    assert render("`a\\`") == "`a\\\\`"
    assert render("```\nend ``` [x](y)\n```") == "```\nend \\`\\`\\` [x](y)\n```"


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_no_text_becomes_a_link_or_spoiler(text: str) -> None:
    """Whatever a user or the model writes, the output has no link, mention or spoiler markup."""
    rendered = render(text)
    assert unescaped_outside_code(rendered) == []
    if text.strip():
        assert rendered.strip()


@given(st.text(max_size=100))
def test_escape_leaves_no_markup(text: str) -> None:
    """escape() makes any text literal."""
    escaped = escape(text)
    assert unescaped_outside_code(escaped.replace("`", "\\`")) == []


def test_cards_escape_every_part() -> None:
    """A board's title, headings, lines and footer are text, whatever they contain."""
    card = Card("Board *x*", (Section("To do (2)", ("#1 [buy](tg://x)", "#2 a.b")),), "v1.0")
    assert card_markdown(card) == (
        "*Board \\*x\\**\n\n*To do \\(2\\)*\n• \\#1 \\[buy\\]\\(tg://x\\)\n• \\#2 a\\.b\n\n_v1\\.0_"
    )


def test_a_bold_heading_stays_one_bold_span() -> None:
    """`# **Plan** today` is bold once (a nested * would end the bold early)."""
    assert render("# **Plan** today") == "*Plan today*"
