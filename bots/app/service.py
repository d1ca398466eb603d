"""The ``ChatService`` every process serves: the chat pipeline with the admin commands in.

The chat layer does not import the admin layer; this is the one place that joins them,
so every adapter, the console and the tests get ``/state`` the same way.
"""

from __future__ import annotations

from collections.abc import Mapping

from bots.admin.commands import StateCommands
from bots.chat.registry import ChatAgent
from bots.chat.service import ChatService
from bots.settings import Settings

__all__ = ["chat_service"]


def chat_service(
    agents: Mapping[str, ChatAgent],
    *,
    settings: Settings,
    aliases: Mapping[str, Mapping[str, str]] | None = None,
) -> ChatService:
    """A ``ChatService`` over ``agents`` answering ``/state`` with the admin commands."""
    return ChatService(agents, settings=settings, admin=StateCommands, aliases=aliases)
