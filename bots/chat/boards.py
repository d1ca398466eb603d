"""Which board a reply is about, when it is not the channel's.

A board-keeping agent (its own ``session_scope`` is ``channel``, like the Taskboard)
is the channel's board by default, whether mentioned in a thread or used through its
slash command. Configured per thread or per person (``STATEBOT_AGENT_SCOPES``), one
channel holds several boards of the same agent, so every reply of it says which one
it is; decided here once, from the session the turn ran on, for every kind of turn
(message, command, click) and every platform. A conversational agent (thread scope of
its own) needs no such note: its thread is the conversation.
"""

from __future__ import annotations

from dataclasses import replace

from bots.chat.registry import ChatAgent
from bots.chat.replies import Reply
from bots.keys import channel_of_session

__all__ = ["THREAD_BOARD", "USER_BOARD", "board_note", "noted"]

THREAD_BOARD = "This thread's own board, not the channel's."
USER_BOARD = "Your own board, not the channel's."


def board_note(agent: ChatAgent, session_id: str) -> str:
    """The note saying which board ``session_id`` is ('' when it is the channel's)."""
    if getattr(agent, "session_scope", None) != "channel":
        return ""
    channel = channel_of_session(session_id)
    if channel == session_id:
        return ""
    return USER_BOARD if channel is None else THREAD_BOARD


def noted(reply: Reply, note: str) -> Reply:
    """``reply`` saying ``note`` under its text (and in its card's footer)."""
    if not note or reply.approval is not None:
        return reply
    card = reply.card
    if card is not None:
        card = replace(card, footer=" · ".join(p for p in (card.footer, note) if p))
    return replace(reply, text=f"{reply.text}\n_{note}_", card=card)
