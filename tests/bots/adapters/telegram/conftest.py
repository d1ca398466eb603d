"""The Telegram harness: the real adapter (``bots.adapters.telegram.cli.run``) and
python-telegram-bot, polling a fake Bot API on loopback, with agents on SQLite."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bots.adapters.telegram.cli import run
from bots.adapters.telegram.settings import TelegramSettings
from bots.app.build import App
from bots.app.service import chat_service
from bots.chat.registry import ChatAgent
from bots.settings import Settings
from core.db.sqlite import SqliteDb
from tests.bots.adapters.telegram.fake_bot_api import BOT, TOKEN, FakeBotApi

WS = str(BOT["id"])  # the workspace of every key this bot makes


@dataclass
class Running:
    """A bot serving against the fake: stop it with a real SIGTERM."""

    fake: FakeBotApi
    db: SqliteDb
    task: asyncio.Task[bool]
    app: App

    async def sigterm(self) -> bool:
        """Send SIGTERM to this process (the adapter's handler takes it) and wait."""
        signal.raise_signal(signal.SIGTERM)
        return await asyncio.wait_for(self.task, 30)


Start = Callable[..., Awaitable[Running]]


@pytest.fixture
async def fake() -> AsyncIterator[FakeBotApi]:
    """The fake Bot API, started on a free port."""
    api = FakeBotApi()
    await api.start()
    yield api
    await api.stop()


@pytest.fixture
async def start(fake: FakeBotApi, tmp_path: Path) -> AsyncIterator[Start]:
    """Start the adapter on ``agents`` (made on the SQLite store by ``make``)."""
    running: list[Running] = []
    db = SqliteDb(db_file=str(tmp_path / "state.db"))

    async def make(
        agents: Callable[[SqliteDb], Mapping[str, ChatAgent]],
        *,
        settings: Settings | None = None,
        telegram: Mapping[str, Any] | None = None,
        aliases: Mapping[str, Mapping[str, str]] | None = None,
    ) -> Running:
        settings = settings or Settings(redis_url=None, statebot_shutdown_grace=10)
        served = agents(db)
        if settings.statebot_default_agent not in served:
            settings = settings.model_copy(update={"statebot_default_agent": next(iter(served))})
        app = App(
            settings=settings,
            service=chat_service(served, settings=settings, aliases=aliases),
            db=db,
            model=None,
        )
        tg = TelegramSettings(
            telegram_bot_token=TOKEN, telegram_api_url=fake.url, **(telegram or {})
        )
        task = asyncio.create_task(run(app, tg))
        ready = "setWebhook" if telegram and telegram.get("telegram_webhook_url") else "getUpdates"
        await fake.wait_for(ready)  # serving, the stop signal handled
        bot = Running(fake, db, task, app)
        running.append(bot)
        return bot

    yield make
    for bot in running:
        if not bot.task.done():
            await bot.sigterm()
    await db.aclose()
