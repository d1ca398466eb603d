"""Slack's "queued" notice (``bots.chat.queued``): a reaction on the waiting message.

Shown at once when the message's run joins its conversation's queue, and taken off
when the answer is out (the reply itself is the outcome). Like the working reaction
it is decoration: a refused reaction is logged and the run goes on.
"""

from __future__ import annotations

from bots.adapters.slack.send import SlackSender

__all__ = ["QUEUED_REACTION", "SlackQueued"]

#: ⏸ on the message while it waits its turn (the hourglass means "working on it")
QUEUED_REACTION = "double_vertical_bar"


class SlackQueued:
    """Reacts on one message while it waits behind others."""

    __slots__ = ("_channel", "_sender", "_shown", "_ts")

    def __init__(self, sender: SlackSender, channel: str, ts: str) -> None:
        self._sender = sender
        self._channel = channel
        self._ts = ts
        self._shown = False

    async def queued(self, ahead: int) -> None:
        """Show the queued reaction (Slack has no words for how many are ahead here)."""
        self._shown = await self._sender.react(
            "reactions_add", self._channel, self._ts, QUEUED_REACTION
        )

    async def clear(self) -> None:
        """Take the reaction off once the answer is out."""
        if self._shown:
            self._shown = False
            await self._sender.react("reactions_remove", self._channel, self._ts, QUEUED_REACTION)
