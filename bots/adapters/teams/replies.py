"""One reply onto Teams: an approval card, a board card, or text in parts."""

from __future__ import annotations

from bots.adapters.teams.cards import approval_card, board_card
from bots.adapters.teams.send import Sender
from bots.chat.replies import Reply


async def deliver(sender: Sender, reply: Reply) -> list[str]:
    """Post ``reply`` where ``sender`` writes; the ids of what was posted.

    Teams has no message only one person sees in a conversation, so an ephemeral
    reply (a help text, a refusal) is posted like any other.
    """
    if reply.approval is not None:
        return [await sender.card(approval_card(reply.text, reply.approval), reply.text)]
    if reply.card is not None:
        return [await sender.card(board_card(reply.card), reply.text)]
    return await sender.text(reply.text)
