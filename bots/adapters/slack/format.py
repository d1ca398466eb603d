"""Safe Slack text: Markdown from models and users -> mrkdwn that cannot be abused.

Every outgoing Slack text passes through :func:`to_mrkdwn` (``bots.adapters.slack.send`` is the
one place that calls it). The Markdown is parsed with markdown-it-py (CommonMark,
raw HTML off, GFM tables and strikethrough on) and rendered token by token, so the
markup is *generated* and the text is *escaped*, never the other way round:

- ``&``, ``<``, ``>`` in text (and in code) become ``&amp;``, ``&lt;``, ``&gt;``, so
  ``<!channel>`` or ``<https://evil.example|Q2 report>`` typed by a user or a model
  shows as the characters it is, never as a broadcast or a disguised link;
- ``@channel`` / ``@here`` / ``@everyone`` (any case, full-width ``＠``, zero-width
  characters between) get a word joiner after the ``@`` so no client links them;
- a Markdown link shows its real URL: ``[Q2 report](https://x)`` -> ``Q2 report
  (<https://x>)``; only http, https and mailto URLs become links;
- user and channel references (``<@U123>``, ``<#C123|name>``) are the only Slack
  markup kept from the text, re-emitted by :func:`user_mention` / channel markup the
  bot builds: they name a person or a channel, never a crowd.

Headings and bold become ``*bold*``, italics ``_x_``, strikethrough ``~x~``, lists
``•``/``1.``, block quotes ``>``, code spans and fences stay code, and a table becomes
a code block with aligned columns (Slack has no table markup).
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from markdown_it import MarkdownIt
from markdown_it.tree import SyntaxTreeNode

# autolinks off: "<…>" in text is Slack's syntax (``<!subteam^S1|@team>`` would parse
# as an e-mail autolink); bare URLs are linked by Slack itself, showing themselves
_MD = (
    MarkdownIt("commonmark", {"html": False, "linkify": False})
    .enable(["table", "strikethrough"])
    .disable("autolink")
)

# Slack references a text may carry: users (U/W ids) and channels, optionally labelled
_REFERENCE = re.compile(r"<([@#])([UWC][A-Z0-9]{2,})(?:\|[^<>|]*)?>")
# placeholders for references while the Markdown is parsed (private-use code points)
_HOLD_OPEN, _HOLD_CLOSE = "\ue000", "\ue001"
_HELD = re.compile(f"{_HOLD_OPEN}(\\d+){_HOLD_CLOSE}")
# "@channel" spelled any way: ASCII, full-width or small @, zero-width characters between
_BROADCAST = re.compile(
    r"[@\uff20\ufe6b][\u200b-\u200d\u2060\ufeff]*(?=(?:channel|here|everyone)\b)",
    re.IGNORECASE,
)
_WORD_JOINER = "\u2060"
_LINK_SCHEMES = frozenset({"http", "https", "mailto"})
_BULLETS = ("•", "◦", "▪")


def escape(text: str) -> str:
    """Escape Slack's three control characters and neutralise broadcast words."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _BROADCAST.sub("@" + _WORD_JOINER, text)


def user_mention(user_id: str) -> str:
    """Markup naming a Slack user, built by the bot (shown as the user's name)."""
    if not re.fullmatch(r"[UW][A-Z0-9]{2,}", user_id):
        raise ValueError(f"not a Slack user id: {user_id!r}")
    return f"<@{user_id}>"


def link(url: str) -> str:
    """A link showing its own URL, or the escaped text when the scheme is not linkable."""
    if urlsplit(url).scheme.lower() not in _LINK_SCHEMES:
        return escape(url)
    # "|" would start a label Slack shows instead of the URL; < > & cannot appear raw
    safe = url.replace("&", "&amp;").replace("<", "%3C").replace(">", "%3E")
    return "<" + safe.replace("|", "%7C") + ">"


def to_mrkdwn(markdown: str) -> str:
    """Model or user Markdown -> Slack mrkdwn, escaped and broadcast-free."""
    held: list[str] = []

    def hold(match: re.Match[str]) -> str:
        held.append(f"<{match.group(1)}{match.group(2)}>")
        return f"{_HOLD_OPEN}{len(held) - 1}{_HOLD_CLOSE}"

    source = markdown.replace(_HOLD_OPEN, "").replace(_HOLD_CLOSE, "")
    source = _REFERENCE.sub(hold, source)
    rendered = _Renderer().blocks(SyntaxTreeNode(_MD.parse(source)).children)
    text = re.sub(r"\n{3,}", "\n\n", rendered).strip("\n")
    return _HELD.sub(lambda m: held[int(m.group(1))], text)


class _Renderer:
    """Walks markdown-it's syntax tree; block methods return text ending in newlines."""

    __slots__ = ("_depth", "_in_heading")

    def __init__(self) -> None:
        self._depth = 0
        self._in_heading = False

    def blocks(self, nodes: list[SyntaxTreeNode]) -> str:
        return "".join(self.block(node) for node in nodes)

    def block(self, node: SyntaxTreeNode) -> str:
        kind = node.type
        if kind == "paragraph":
            end = "\n" if node.hidden else "\n\n"
            return self.inline(node.children) + end
        if kind == "heading":
            self._in_heading = True
            body = self.inline(node.children)
            self._in_heading = False
            return f"*{body}*\n\n" if body.strip() else "\n"
        if kind in ("fence", "code_block"):
            return _code_block(node.content)
        if kind in ("bullet_list", "ordered_list"):
            return self.items(node) + ("\n" if self._depth == 0 else "")
        if kind == "blockquote":
            inner = self.blocks(node.children).strip("\n")
            return "\n".join("> " + line for line in inner.split("\n")) + "\n\n"
        if kind == "table":
            return _code_block(_table_text(node))
        if kind == "hr":
            return "──────────\n\n"
        return self.blocks(node.children) if node.children else escape(node.content)

    def items(self, node: SyntaxTreeNode) -> str:
        self._depth += 1
        indent = "    " * (self._depth - 1)
        start = int(node.attrs.get("start", 1) or 1)
        lines: list[str] = []
        for number, item in enumerate(node.children, start):
            marker = (
                f"{number}."
                if node.type == "ordered_list"
                else _BULLETS[min(self._depth, len(_BULLETS)) - 1]
            )
            body = self.blocks(item.children).strip("\n")
            first, *rest = body.split("\n") if body else [""]
            lines.append(f"{indent}{marker} {first}")
            lines.extend(line if line.startswith(indent) else indent + "  " + line for line in rest)
        self._depth -= 1
        return "\n".join(lines) + "\n"

    def inline(self, nodes: list[SyntaxTreeNode]) -> str:
        return "".join(self.span(node) for node in nodes)

    def span(self, node: SyntaxTreeNode) -> str:
        kind = node.type
        if kind == "inline":
            return self.inline(node.children)
        if kind == "text":
            return escape(node.content)
        if kind in ("softbreak", "hardbreak"):
            return "\n"
        if kind == "code_inline":
            return f"`{escape(node.content)}`" if node.content.strip() else ""
        if kind in ("strong", "em", "s"):
            body = self.inline(node.children)
            mark = {"strong": "*", "em": "_", "s": "~"}[kind]
            if not body.strip() or (kind == "strong" and self._in_heading):
                return body
            return f"{mark}{body}{mark}"
        if kind == "link":
            return self.link(str(node.attrs.get("href", "")), self.inline(node.children))
        if kind == "image":
            alt = escape(node.content)
            return self.link(str(node.attrs.get("src", "")), alt)
        return self.inline(node.children) if node.children else escape(node.content)

    def link(self, href: str, label: str) -> str:
        shown = link(href)
        bare = href.removeprefix("mailto:")
        if not label.strip() or label in (escape(href), escape(bare)):
            return shown
        return f"{label} ({shown})"


def _code_block(content: str) -> str:
    # a fence inside the content would end the block early; break it with a zero-width space
    body = escape(content.rstrip("\n")).replace("```", "`\u200b``")
    return f"```\n{body}\n```\n\n"


def _table_text(node: SyntaxTreeNode) -> str:
    """A GFM table as aligned plain-text columns."""
    rows: list[list[str]] = []
    for section in node.children:  # thead, tbody
        for row in section.children:
            rows.append([_plain(cell) for cell in row.children])
    widths = [max(len(r[i]) for r in rows if i < len(r)) for i in range(max(map(len, rows)))]
    lines = [" | ".join(cell.ljust(widths[i]) for i, cell in enumerate(r)).rstrip() for r in rows]
    if len(lines) > 1:
        lines.insert(1, "-+-".join("-" * w for w in widths))
    return "\n".join(lines)


def _plain(node: SyntaxTreeNode) -> str:
    """The text of a node without markup (table cells are shown inside code)."""
    if node.type in ("text", "code_inline"):
        return node.content
    if node.type in ("softbreak", "hardbreak"):
        return " "
    return "".join(_plain(child) for child in node.children)
