"""The one MarkdownV2 renderer: every text Telegram shows passes through here.

Replies are Markdown (the model writes it; Slack and Discord render it). Telegram's
MarkdownV2 treats ``_*[]()~`>#+-=|{}.!`` and ``\\`` as markup everywhere, so a user's
or the model's ``*`` or ``[x](tg://user?id=1)`` would become formatting, a live
mention or a disguised link. Here the text is parsed as CommonMark (markdown-it-py)
and written back in MarkdownV2: bold, italics, strikethrough, inline code and code
blocks keep their meaning; every other character is escaped, so it shows as typed.
A link is shown as its text and its URL in plain characters (never a hidden target);
raw HTML is text. Cards (boards, state dumps) are rendered from their parts, every
part escaped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from markdown_it import MarkdownIt
from markdown_it.token import Token
from telegram.helpers import escape_markdown

from bots.chat.cards import Card, Section

__all__ = ["card_markdown", "escape", "escape_code", "render"]

_MARKS = {"strong": "*", "em": "_", "s": "~"}
_PARSER = MarkdownIt("commonmark", {"html": False}).enable("strikethrough")


def escape(text: str) -> str:
    """``text`` shown literally in MarkdownV2 (outside code): the library's escaping."""
    return escape_markdown(text, version=2)


def escape_code(text: str) -> str:
    """``text`` shown literally inside ``code`` or a ``pre`` block (only ` and \\ matter)."""
    return escape_markdown(text, version=2, entity_type="pre")


def render(markdown: str) -> str:
    """Markdown from a user or the model -> MarkdownV2 with no markup it did not mean."""
    text, listed = "", False
    for block, in_list in _blocks(_PARSER.parse(markdown)):
        if block:
            text += ("\n" if in_list and listed else "\n\n" if text else "") + block
            listed = in_list
    return text.strip() or escape(markdown.strip())


def _blocks(tokens: Sequence[Token]) -> list[tuple[str, bool]]:
    """Each block-level piece rendered, and whether it is a list line (joined by one
    newline, not a blank line); list items and quotes prefix their lines."""
    out: list[tuple[str, bool]] = []
    prefixes: list[str] = []  # the quote and list prefixes of the current block
    numbers: list[int | None] = []  # per open list: the next number (None: bullets)
    heading = False
    for token in tokens:
        kind = token.type
        if kind in ("bullet_list_open", "ordered_list_open"):
            numbers.append(int(token.attrGet("start") or 1) if kind[0] == "o" else None)
        elif kind in ("bullet_list_close", "ordered_list_close"):
            numbers.pop()
        elif kind == "list_item_open":
            number = numbers[-1] if numbers else None
            prefixes.append("• " if number is None else escape(f"{number}. "))
            if number is not None:
                numbers[-1] = number + 1
        elif kind in ("list_item_close", "blockquote_close"):
            prefixes.pop()
        elif kind == "blockquote_open":
            prefixes.append(">")
        elif kind in ("heading_open", "heading_close"):
            heading = kind == "heading_open"
        elif kind == "inline":
            text = _inline(token.children or [], in_bold=heading)
            text = f"*{text}*" if heading and text else text
            out.append((_prefixed(text, prefixes), bool(numbers)))
            prefixes = [p if p == ">" else "  " for p in prefixes]  # the item's next lines
        elif kind in ("fence", "code_block"):
            language = re.sub(r"[^\w+-]", "", token.info.split(" ")[0]) if token.info else ""
            body = escape_code(token.content.rstrip("\n"))
            out.append((f"```{language}\n{body}\n```", False))
        elif kind == "hr":
            out.append((escape("———"), False))
    return out


def _prefixed(text: str, prefixes: list[str]) -> str:
    """``text`` under its list marker and quote bars; continuation lines indented."""
    if not prefixes:
        return text
    first, *rest = text.split("\n")
    indent = "".join(">" if p == ">" else "  " for p in prefixes)
    return "\n".join(["".join(prefixes) + first, *(indent + line for line in rest)])


def _inline(tokens: Sequence[Token], *, in_bold: bool = False) -> str:
    """One paragraph's inline tokens in MarkdownV2 (``in_bold``: a heading, already bold,
    so its own bold marks are dropped rather than closing it early)."""
    parts: list[str] = []
    links: list[tuple[str, int]] = []  # open links: the target and where their text starts
    for token in tokens:
        kind = token.type
        mark = _MARKS.get(kind.rsplit("_", 1)[0]) if kind.endswith(("_open", "_close")) else None
        if kind == "text":
            parts.append(escape(token.content))
        elif kind == "code_inline":
            parts.append(f"`{escape_code(token.content)}`")
        elif kind in ("softbreak", "hardbreak"):
            parts.append("\n")
        elif mark is not None:
            parts.append("" if in_bold and mark == "*" else mark)
        elif kind == "link_open":
            links.append((str(token.attrGet("href") or ""), len(parts)))
        elif kind == "link_close" and links:
            href, start = links.pop()
            if "".join(parts[start:]) != escape(href):  # an autolink shows its URL once
                parts.append(escape(f" ({href})"))
        elif kind == "image":
            parts.append(escape(f"{token.content} ({token.attrGet('src') or ''})"))
        else:  # raw HTML and anything unknown: shown as written
            parts.append(escape(token.content))
    return "".join(parts)


def card_markdown(card: Card) -> str:
    """A card (board, state dump) as MarkdownV2: a bold title, bold headings, lines."""
    parts = [f"*{escape(card.title)}*"]
    parts.extend(_section(section) for section in card.sections)
    if card.footer:
        parts.append(f"_{escape(card.footer)}_")
    return "\n\n".join(parts)


def _section(section: Section) -> str:
    heading = f"*{escape(section.heading)}*\n" if section.heading else ""
    if section.code:
        return heading + f"```json\n{escape_code(chr(10).join(section.lines))}\n```"
    return heading + "\n".join(f"• {escape(line)}" for line in section.lines)
