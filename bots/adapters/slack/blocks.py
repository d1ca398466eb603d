"""Cards as Slack Block Kit: a header, one section per card section, a context footer.

Every text that reaches a block passes through :func:`bots.adapters.slack.format.to_mrkdwn`
(escaped, broadcast-free), so a task titled ``<!channel>`` stays inert inside blocks
as it does in plain text. Block Kit's limits are checked, not trusted to Slack: at
most 50 blocks, 3,000 characters per section text, 150 per header. A card that does
not fit gives None, and the caller sends the reply's text in chunks instead.
"""

from __future__ import annotations

from typing import Any

from bots.adapters.slack.format import to_mrkdwn
from bots.chat.cards import Card, Section

MAX_BLOCKS = 50
SECTION_LIMIT = 3000
HEADER_LIMIT = 150


def card_blocks(card: Card) -> list[dict[str, Any]] | None:
    """The Block Kit blocks for ``card``, or None when it exceeds Slack's limits."""
    title = " ".join(card.title.split())
    if len(title) > HEADER_LIMIT:
        return None
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": title, "emoji": False}}
    ]
    for section in card.sections:
        text = _section_text(section)
        if len(text) > SECTION_LIMIT:
            return None
        blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": text}})
    if card.footer:
        footer = to_mrkdwn(card.footer)
        blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": footer}]})
    return blocks if len(blocks) <= MAX_BLOCKS else None


def _section_text(section: Section) -> str:
    """The section as Markdown, converted once to safe mrkdwn."""
    if section.code:
        body = "```\n" + "\n".join(section.lines) + "\n```"
    else:
        body = "\n".join(f"- {line}" for line in section.lines)
    markdown = f"**{section.heading}**\n\n{body}" if section.heading else body
    return to_mrkdwn(markdown)
