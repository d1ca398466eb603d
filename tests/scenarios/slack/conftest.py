"""Fixtures for Slack scenarios: the fake Web API, stores and running bot instances."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import redis.asyncio as aioredis
from fakes.slack_api import FakeSlackApi
from slack_harness import MakeBot, SlackBot, settle, start_bot
from slack_payloads import TEAM

from bots.adapters.slack.options import SlackOptions
from bots.adapters.slack.settings import SlackSettings
from bots.app.service import chat_service
from bots.keys import Scope
from bots.ops.flags import Flags, MemoryFlags, RedisFlags
from bots.settings import Settings
from core.db.base import BaseDb
from core.testing import ScriptedModel
from tools.catalog import COMMAND_ALIASES, create_agents

SLACK_FIELDS = frozenset(SlackSettings.model_fields)

ADMIN = "U0ADMIN01"


@pytest.fixture
async def fake_slack() -> AsyncIterator[FakeSlackApi]:
    """The fake Slack Web API, serving on a free loopback port."""
    fake = FakeSlackApi()
    await fake.start()
    yield fake
    await fake.stop()


@pytest.fixture
async def make_bot(fake_slack: FakeSlackApi, tmp_path: Path) -> AsyncIterator[MakeBot]:
    """Builds bot instances; all open one SQLite file, as separate processes would."""
    from core.db.sqlite import SqliteDb

    started: list[SlackBot] = []
    closables: list[Any] = []
    http = aiohttp.ClientSession()

    async def make(
        turns: list[Any] | None = None,
        *,
        flags: Flags | None = None,
        scopes: dict[str, Scope] | None = None,
        **settings: Any,
    ) -> SlackBot:
        db: BaseDb = SqliteDb(db_file=str(tmp_path / "state.db"))
        closables.append(db)
        model = ScriptedModel(turns or [])
        # the adapter's own settings (STATEBOT_SLACK_*) apart from the neutral ones
        own = {name: settings.pop(name) for name in list(settings) if name in SLACK_FIELDS}
        config = Settings(
            statebot_admin_ids=frozenset({f"slack:{TEAM}:{ADMIN}"}),  # a full user key
            statebot_agent_scopes=scopes or {},
            redis_url=None,
            **settings,
        )
        service = chat_service(create_agents(model, db), settings=config, aliases=COMMAND_ALIASES)
        options = SlackOptions.from_settings(config, SlackSettings(**own))
        bot = await start_bot(fake_slack, service, model, flags or MemoryFlags(), http, options)
        started.append(bot)
        return bot

    yield make
    await settle()
    for bot in started:
        await bot.server.stop()
    for db in closables:
        await db.aclose()
    await http.close()


@pytest.fixture
async def redis_flags(redis_url: str, key_prefix: str) -> AsyncIterator[Callable[[], RedisFlags]]:
    """Opens RedisFlags clients on the test's key prefix, as separate processes would."""
    opened: list[RedisFlags] = []

    def open_flags() -> RedisFlags:
        opened.append(RedisFlags(aioredis.Redis.from_url(redis_url), key_prefix))
        return opened[-1]

    yield open_flags
    for flags in opened:
        await flags.aclose()
