"""Streamed answers in a personal chat: one message posted, then edited as it grows.

The shared :class:`bots.chat.streaming.PagedStream` drives it (throttled by
``STATEBOT_STREAM_SECONDS``, continued in a new message past the limit, ending with
exactly the reply's text); this module is only its Teams editor. Channels and group
chats get the single finished reply (many readers, and Teams throttles edits there).
"""

from __future__ import annotations

from typing import Any

from bots.adapters.teams.send import Sender, message
from bots.adapters.teams.traits import MESSAGE_LIMIT
from bots.chat.replies import Reply
from bots.chat.streaming import PagedStream, StreamOptions


class TeamsEditor:
    """The :class:`bots.chat.streaming.MessageEditor` of one Teams conversation."""

    __slots__ = ("_sender", "limit")

    def __init__(self, sender: Sender) -> None:
        self._sender = sender
        self.limit = MESSAGE_LIMIT

    async def post(self, text: str) -> str:
        """Post one part; its activity id is the handle edits use."""
        return await self._sender.send(message(text, names=self._sender.names))

    async def edit(self, handle: Any, text: str) -> None:
        """Replace a posted part's text."""
        await self._sender.update(str(handle), message(text, names=self._sender.names))

    async def delete(self, handle: Any) -> None:
        """Remove a part the final text no longer needs."""
        await self._sender.delete(str(handle))

    async def status(self, running: bool) -> None:
        """Typing again while a tool runs (Teams clears it after a few seconds)."""
        if running:
            await self._sender.typing()


class TeamsStream:
    """The sink of one streamed answer and how it ends."""

    __slots__ = ("_paged",)

    def __init__(self, paged: PagedStream) -> None:
        self._paged = paged

    async def text(self, so_far: str) -> None:
        """The answer so far."""
        await self._paged.text(so_far)

    async def tool(self, name: str, running: bool) -> None:
        """A tool starts or ends."""
        await self._paged.tool(name, running)

    async def finished(self, reply: Reply) -> bool:
        """End with the reply's text; False when the ordinary path must post it
        (cards, approvals, or nothing streamed)."""
        if reply.approval is not None or reply.card is not None:
            return False
        return await self._paged.finish(reply.text)


def teams_stream(sender: Sender, options: StreamOptions) -> TeamsStream | None:
    """The stream of a personal chat's answer; None when streaming is off."""
    paged = options.sink(TeamsEditor(sender))
    return TeamsStream(paged) if paged is not None else None
