"""Stopping and the webhook: SIGTERM drains runs in flight, updates not taken stay with
Telegram, the webhook checks its secret token, serves health and answers 503 while
draining so Telegram delivers again."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import aiohttp
import click
import pytest

from bots.adapters.telegram.cli import run
from bots.adapters.telegram.intake import SECRET_HEADER
from bots.adapters.telegram.settings import TelegramSettings
from bots.adapters.telegram.updates import INTERRUPTED
from bots.app.build import App
from bots.app.service import chat_service
from bots.settings import Settings
from core.agent import Agent
from core.db.in_memory import InMemoryDb
from core.db.sqlite import SqliteDb
from core.testing import ScriptedModel, tool_call
from core.tools import tool
from tests.bots.adapters.telegram import payloads as p
from tests.bots.adapters.telegram.conftest import WS, Start
from tests.bots.adapters.telegram.fake_bot_api import FakeBotApi

SESSION = f"telegram:{WS}:{p.GROUP}"
SECRET = "s3cret_token-123"


class Gate:
    """A tool that holds its run until released, so a run is in flight on demand."""

    def __init__(self) -> None:
        self.entered = asyncio.Event()
        self.release = asyncio.Event()

    def agents(self, turns: list[Any]) -> Any:
        @tool
        async def slow_note(session_state: dict[str, Any], note: str) -> str:
            """Keep a note, slowly."""
            self.entered.set()
            await self.release.wait()
            session_state.setdefault("notes", []).append(note)
            return f"noted {note}"

        def make(db: SqliteDb) -> dict[str, Agent]:
            return {
                "notes": Agent(model=ScriptedModel(turns), db=db, tools=[slow_note], id="notes")
            }

        return make


TURNS = [tool_call("slow_note", note="milk"), "Noted milk."]


async def test_sigterm_lets_the_run_in_flight_finish(start: Start, fake: FakeBotApi) -> None:
    """SIGTERM mid-run: polling stops, the run finishes and answers, its state is saved,
    and an update sent meanwhile stays with Telegram for the next start."""
    gate = Gate()
    bot = await start(gate.agents(TURNS))
    fake.push(p.mention("note milk"))
    await asyncio.wait_for(gate.entered.wait(), 10)
    stopping = asyncio.create_task(bot.sigterm())
    await fake.wait_for("getUpdates", where=lambda c: c.get("timeout") == 0)  # last confirm
    later = fake.push(p.mention("and eggs", message_id=43))
    gate.release.set()
    assert await stopping is True  # drained: nothing cut short
    [sent] = fake.sent()
    assert sent["text"] == "Noted milk\\."
    session = await bot.db.aload(SESSION)
    assert session is not None and session.state["notes"] == ["milk"]
    assert fake.confirmed <= later  # not confirmed: Telegram delivers it again


async def test_a_run_past_the_grace_is_cut_and_its_user_told(
    start: Start, fake: FakeBotApi
) -> None:
    """Past STATEBOT_SHUTDOWN_GRACE the run is cancelled and says so; run() reports it."""
    gate = Gate()
    settings = Settings(redis_url=None, statebot_shutdown_grace=0.2)
    bot = await start(gate.agents(TURNS), settings=settings)
    fake.push(p.mention("note milk"))
    await asyncio.wait_for(gate.entered.wait(), 10)
    assert await bot.sigterm() is False
    [sent] = fake.sent()
    assert sent["text"].startswith("I had to stop") and INTERRUPTED.startswith("I had to stop")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_the_webhook_checks_its_secret_and_drains(start: Start, fake: FakeBotApi) -> None:
    """setWebhook carries the secret; a request without it is refused unread; /healthz and
    /metrics are served on the webhook's port; while draining the webhook answers 503."""
    port = _free_port()
    url = f"http://127.0.0.1:{port}/telegram/hook"
    gate = Gate()
    telegram = {
        "telegram_webhook_url": url,
        "telegram_webhook_secret": SECRET,
        "telegram_webhook_port": port,
    }
    bot = await start(gate.agents(TURNS), telegram=telegram)
    [hook] = fake.sent("setWebhook")
    assert (hook["url"], hook["secret_token"]) == (url, SECRET)
    assert hook["allowed_updates"] == ["message", "callback_query"]
    update = {**p.mention("note milk"), "update_id": 1}
    async with aiohttp.ClientSession() as http:
        async with http.post(url, json=update, headers={SECRET_HEADER: "wrong"}) as refused:
            assert refused.status == 401
        async with http.post(url, json=update) as missing:
            assert missing.status == 401
        assert not gate.entered.is_set()
        for junk in ("not json", "[1, 2]"):
            headers = {SECRET_HEADER: SECRET, "Content-Type": "application/json"}
            async with http.post(url, data=junk, headers=headers) as bad:
                assert bad.status == 400  # answered, not a crash; nothing run
        async with http.post(url, json=update, headers={SECRET_HEADER: SECRET}) as taken:
            assert taken.status == 200
        await asyncio.wait_for(gate.entered.wait(), 10)
        async with http.get(f"http://127.0.0.1:{port}/healthz") as health:
            assert health.status == 200
        async with http.get(f"http://127.0.0.1:{port}/metrics") as metrics:
            assert metrics.status == 200 and "statebot_" in await metrics.text()
        stopping = asyncio.create_task(bot.sigterm())
        await asyncio.sleep(0)  # the signal handler runs
        later = {**p.mention("and eggs", message_id=43), "update_id": 2}
        async with http.post(url, json=later, headers={SECRET_HEADER: SECRET}) as busy:
            assert busy.status == 503  # Telegram keeps it and retries
        gate.release.set()
        assert await stopping is True
    assert [s["text"] for s in fake.sent()] == ["Noted milk\\."]


async def test_a_refused_token_is_one_line(fake: FakeBotApi) -> None:
    """getMe answering 401: a one-line error naming the token, not a traceback."""
    settings = Settings(redis_url=None, statebot_default_agent="notes")
    agents = {"notes": Agent(model=ScriptedModel([]), id="notes")}
    app = App(
        settings=settings,
        service=chat_service(agents, settings=settings),
        db=InMemoryDb(),
        model=None,
    )
    tg = TelegramSettings(telegram_bot_token="999:wrong", telegram_api_url=fake.url)
    with pytest.raises(click.ClickException, match="refused TELEGRAM_BOT_TOKEN") as raised:
        await run(app, tg)
    assert "\n" not in raised.value.message


async def test_a_token_revoked_while_polling_stops_the_process(
    start: Start, fake: FakeBotApi
) -> None:
    """getUpdates answering 401 ends the library's polling; the adapter exits with one
    line instead of staying up, healthy to its probes, taking nothing."""
    bot = await start(Gate().agents(TURNS))
    fake.fail("getUpdates", 401, "Unauthorized")
    fake.push(p.message("chatter"))  # ends the pending long poll; the next one gets the 401
    with pytest.raises(click.ClickException, match="polling for updates stopped"):
        await asyncio.wait_for(bot.task, 30)
