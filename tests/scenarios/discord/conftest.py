"""Fixtures for Discord scenarios: the fake REST API and a logged-in real client."""

from __future__ import annotations

import warnings
from collections.abc import AsyncIterator
from typing import Any

import pytest

with warnings.catch_warnings():
    # discord.py imports the stdlib audioop (voice support, unused here), which warns
    # on Python 3.11+; the project's warnings-as-errors must not turn that into a failure
    warnings.filterwarnings("ignore", "'audioop' is deprecated", DeprecationWarning)
    import discord
from discord_harness import Harness, MakeDiscord
from discord_payloads import GUILD, guild_create
from fakes.discord_api import FakeDiscordApi

from bots.adapters.discord.client import StatebotDiscord
from bots.app.service import chat_service
from bots.ops.flags import Flags, MemoryFlags
from bots.settings import Settings
from core.db.base import BaseDb
from core.db.in_memory import InMemoryDb
from core.testing import ScriptedModel
from tools.catalog import COMMAND_ALIASES, create_agents

ADMIN_ID = "1200000000000000099"


@pytest.fixture
async def fake_discord(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeDiscordApi]:
    """The fake REST API, with discord.py's routes pointed at it."""
    fake = FakeDiscordApi()
    await fake.start()
    monkeypatch.setattr(discord.http.Route, "BASE", fake.base)
    yield fake
    await fake.stop()


@pytest.fixture
async def make_discord(fake_discord: FakeDiscordApi) -> AsyncIterator[MakeDiscord]:
    """Builds a logged-in client on a scripted model, its guild already cached.

    ``flags`` (default: in memory) and ``db`` (default: InMemoryDb) let a test share
    dedupe flags between two clients or point the store at a Redis that is down;
    keyword arguments override settings.
    """
    harnesses: list[Harness] = []

    async def make(
        turns: list[Any] | None = None,
        *,
        model: ScriptedModel | None = None,
        flags: Flags | None = None,
        db: BaseDb | None = None,
        **settings: Any,
    ) -> Harness:
        model = model or ScriptedModel(turns or [])
        service = chat_service(
            create_agents(model, db or InMemoryDb()),
            settings=Settings(
                statebot_admin_ids=frozenset({f"discord:{GUILD}:{ADMIN_ID}"}),
                redis_url=None,
                **settings,
            ),
            aliases=COMMAND_ALIASES,
        )
        client = StatebotDiscord(service, flags=flags or MemoryFlags())
        await client.login("test-bot-token")
        harness = Harness(client, model)
        harnesses.append(harness)
        harness.gateway("GUILD_CREATE", guild_create())
        return harness

    yield make
    for harness in harnesses:
        await harness.client.close()
    # every failure inside a handler must have become a reply or a log line
    assert [h.handler_errors for h in harnesses if h.handler_errors] == []
