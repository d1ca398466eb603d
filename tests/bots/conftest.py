"""Fixtures for the chat layer: real catalog agents on an in-memory store."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from bots.app.service import chat_service
from bots.chat.service import ChatService
from bots.inbound import InboundMessage, SlashCommand
from bots.settings import Settings
from core.db.in_memory import InMemoryDb
from core.models.scripted import ScriptedModel, Turn
from tools.catalog import COMMAND_ALIASES, create_agents

ServiceFactory = Callable[..., ChatService]


@pytest.fixture
def db() -> InMemoryDb:
    """A fresh in-memory store."""
    return InMemoryDb()


@pytest.fixture
def make_service(db: InMemoryDb) -> ServiceFactory:
    """Build a ChatService over the catalog's agents, with an optional scripted model."""

    def build(turns: Sequence[Turn] | None = None, **settings: Any) -> ChatService:
        model = ScriptedModel(turns) if turns is not None else None
        settings.setdefault("openai_api_key", None)
        settings.setdefault("openai_base_url", None)
        return chat_service(
            create_agents(model, db), settings=Settings(**settings), aliases=COMMAND_ALIASES
        )

    return build


def message(
    text: str, *, thread: str | None = "1700.1", user: str = "U1", **kw: Any
) -> InboundMessage:
    """A Slack-like message that mentions the bot, decided as the Slack parser would."""
    kw.setdefault("bot_mentioned", True)
    kw.setdefault("addressed", kw["bot_mentioned"] or kw.get("is_dm", False))
    kw.setdefault("reply_thread", thread)
    return InboundMessage("slack", "T1", kw.pop("channel", "C1"), thread, user, text, "Ev1", **kw)


def command(name: str, text: str, *, user: str = "U1", channel: str = "C1") -> SlashCommand:
    """A Slack-like slash command typed in a channel."""
    return SlashCommand("slack", "T1", channel, None, user, name, text, "Ev2")
