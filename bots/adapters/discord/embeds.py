"""Cards as Discord embeds: the title, one field per section, the footer.

Discord's embed limits are checked here rather than left to a 400 from the API:
title 256 characters, at most 25 fields, field names 256 and values 1,024, footer
2,048, and 6,000 characters in all. A card that does not fit gives None, and the
caller sends the reply's text in chunks instead. Embeds never notify anyone, and the
messages carrying them are sent with ``allowed_mentions`` none as every reply is.
"""

from __future__ import annotations

import discord

from bots.chat.cards import Card, Section

TITLE_LIMIT, FIELDS_LIMIT, NAME_LIMIT, VALUE_LIMIT = 256, 25, 256, 1024
FOOTER_LIMIT, TOTAL_LIMIT = 2048, 6000
COLOUR = discord.Colour.blurple()
BLANK = "\u200b"  # Discord refuses an empty field name


def card_embed(card: Card) -> discord.Embed | None:
    """The embed for ``card``, or None when it exceeds Discord's embed limits."""
    fields = [(section.heading or BLANK, _value(section)) for section in card.sections]
    too_big = (
        len(card.title) > TITLE_LIMIT
        or len(fields) > FIELDS_LIMIT
        or len(card.footer) > FOOTER_LIMIT
        or any(len(name) > NAME_LIMIT or len(value) > VALUE_LIMIT for name, value in fields)
    )
    if too_big:
        return None
    embed = discord.Embed(title=card.title, colour=COLOUR)
    for name, value in fields:
        embed.add_field(name=name, value=value, inline=False)
    if card.footer:
        embed.set_footer(text=card.footer)
    return embed if len(embed) <= TOTAL_LIMIT else None


def _value(section: Section) -> str:
    """The section's lines; code as a fenced block (a stray fence cannot close it)."""
    if section.code:
        body = "\n".join(section.lines).replace("```", "`\u200b``")
        return f"```json\n{body}\n```"
    return "\n".join(f"• {line}" for line in section.lines) or BLANK
