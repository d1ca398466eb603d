"""One reply onto Teams: an approval card, a board card, or text in parts."""

from __future__ import annotations

from bots.adapters.teams.cards import approval_card, board_card, fits
from bots.adapters.teams.send import Sender
from bots.chat.replies import Reply


async def deliver(sender: Sender, reply: Reply) -> list[str]:
    """Post ``reply`` where ``sender`` writes; the ids of what was posted.

    Teams has no message only one person sees in a conversation, so an ephemeral
    reply (a help text, a refusal) is posted like any other. A board too big for one
    message is sent as its text (which always holds the whole answer).
    """
    if reply.approval is not None:
        return [await sender.card(approval_card(reply.text, reply.approval), reply.text)]
    card = board_card(reply.card) if reply.card is not None else None
    if card is not None and fits(card):
        return [await sender.card(card, reply.text)]
    return await sender.text(reply.text)  # the text is the whole answer, cards aside
