"""Approve / Reject on Discord: buttons sent, the click resumes the run in another process."""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis
from discord_harness import Harness
from discord_payloads import (
    ALICE,
    BOT_ID,
    CHANNEL,
    GUILD,
    bot_mention,
    guild_create,
    interaction_create,
    message_create,
)
from fakes.discord_api import APP_ID, BOT_USER, FakeDiscordApi

from bots.adapters.discord.client import StatebotDiscord
from bots.adapters.discord.components import PREFIX, RedisApprovals, approval_view
from bots.app.service import chat_service
from bots.chat.approvals import ALREADY, EXPIRED, NOT_YOURS
from bots.ops.flags import MemoryFlags
from bots.settings import Settings
from core.agent import Agent
from core.db.sqlite import SqliteDb
from core.testing import ScriptedModel, tool_call
from core.tools import tool

BOB = {**ALICE, "id": "1200000000000000012", "username": "bob", "global_name": "Bob"}
ADMIN = {**ALICE, "id": "1200000000000000099", "username": "root", "global_name": "Root"}
SESSION = f"discord:{GUILD}:{CHANNEL}"
QUESTION = 'Approve clear_board({"keep": 1})?'

Start = Callable[[list[Any]], Awaitable[Harness]]


@tool(requires_confirmation=True)
def clear_board(session_state: dict[str, Any], keep: int = 0) -> str:
    """Delete every task but the first ``keep``."""
    session_state["tasks"] = session_state.get("tasks", [])[:keep]
    return f"cleared, kept {keep}"


@pytest.fixture
async def start(
    fake_discord: FakeDiscordApi, tmp_path: Path, redis_url: str, key_prefix: str
) -> AsyncIterator[Start]:
    """Starts bot processes sharing one SQLite file and one Redis, as a deployment would."""
    opened: list[tuple[StatebotDiscord, SqliteDb, RedisApprovals]] = []

    async def make(turns: list[Any]) -> Harness:
        model = ScriptedModel(turns)
        db = SqliteDb(db_file=str(tmp_path / "state.db"))
        agent = Agent(
            model=model, db=db, tools=[clear_board], id="board", session_state={"tasks": ["a", "b"]}
        )
        settings = Settings(
            statebot_default_agent="board",
            statebot_admin_ids=frozenset({f"discord:{GUILD}:{ADMIN['id']}"}),
            redis_url=None,
        )
        approvals = RedisApprovals(aioredis.Redis.from_url(redis_url), key_prefix)
        client = StatebotDiscord(
            chat_service({"board": agent}, settings=settings),
            flags=MemoryFlags(),
            approvals=approvals,
        )
        await client.login("test-bot-token")
        harness = Harness(client, model)
        harness.gateway("GUILD_CREATE", guild_create())
        opened.append((client, db, approvals))
        return harness

    yield make
    for client, db, approvals in opened:
        await client.close()
        await db.aclose()
        await approvals.aclose()


def component_click(
    question: dict[str, Any], custom_id: str, user: dict[str, Any]
) -> dict[str, Any]:
    """INTERACTION_CREATE of type 3 (message component): a button on the bot's message."""
    body = interaction_create("unused", None, user=user)
    body.update(
        type=3,
        message={**question, "author": BOT_USER, "channel_id": CHANNEL},
        data={"custom_id": custom_id, "component_type": 2},
    )
    return body


def _buttons(fake: FakeDiscordApi) -> tuple[dict[str, Any], dict[str, str]]:
    """The question message as Discord would store it, and its buttons by label."""
    [sent] = [c for c in fake.sent(f"channels/{CHANNEL}/messages") if c.json.get("components")]
    buttons = [b for row in sent.json["components"] for b in row["components"]]
    message = {
        **fake._message(CHANNEL, sent.json),
        "components": copy.deepcopy(sent.json["components"]),
    }
    return message, {b["label"]: b["custom_id"] for b in buttons}


def _contents(fake: FakeDiscordApi) -> list[str]:
    """The content of every message the bot sent, followed up or edited."""
    return [str(c.json.get("content")) for c in fake.calls if isinstance(c.json, dict)]


def _ephemerals(fake: FakeDiscordApi) -> list[str]:
    return [
        c.json["content"]
        for c in fake.calls
        if c.method == "POST"
        and c.path.startswith("webhooks/")
        and c.json
        and c.json.get("flags", 0) & 64
    ]


async def _board(bot: Harness) -> dict[str, Any]:
    agent = bot.client.service.agents["board"]
    assert isinstance(agent, Agent)
    return await agent.aget_session_state(SESSION)


async def _until(fake: FakeDiscordApi, predicate: Callable[[], bool]) -> None:
    await fake.wait_for(lambda _fake: predicate())


async def test_approval_round_trip_across_two_processes(
    start: Start, fake_discord: FakeDiscordApi
) -> None:
    """Buttons name the call; Bob may not decide; Ana's click in process B runs it; twice: no."""
    first = await start([tool_call("clear_board", keep=1)])
    second = await start(["Cleared; #1 kept."])
    first.gateway(
        "MESSAGE_CREATE", message_create(f"<@{BOT_ID}> clear the board", mentions=[bot_mention()])
    )
    await first.settle()
    question, buttons = _buttons(fake_discord)
    assert question["content"] == QUESTION
    assert list(buttons) == ["Approve", "Reject"]
    assert all(c.startswith(PREFIX) and len(c) <= 100 for c in buttons.values())

    second.gateway("INTERACTION_CREATE", component_click(question, buttons["Approve"], BOB))
    await _until(fake_discord, lambda: NOT_YOURS in _ephemerals(fake_discord))
    assert (await _board(second)) == {"tasks": ["a", "b"]}  # nothing was done

    second.gateway("INTERACTION_CREATE", component_click(question, buttons["Approve"], ALICE))
    await _until(fake_discord, lambda: any("Cleared" in t for t in _contents(fake_discord)))
    assert await _board(second) == {"tasks": ["a"]}
    callbacks = [c.json for c in fake_discord.calls if c.path.endswith("/callback")]
    assert {cb["type"] for cb in callbacks} == {6}  # deferred update: answered within 3 s
    edited = [c.json for c in fake_discord.calls if c.method == "PATCH" and "@original" in c.path]
    assert edited and edited[-1]["components"] == []  # the buttons are gone
    answer = next(t for t in _contents(fake_discord) if "Cleared" in t)
    assert answer == f"Approved by <@{ALICE['id']}>.\nCleared; #1 kept."

    first.gateway("INTERACTION_CREATE", component_click(question, buttons["Reject"], ALICE))
    await _until(fake_discord, lambda: ALREADY in _ephemerals(fake_discord))
    assert await _board(first) == {"tasks": ["a"]}


async def test_admin_may_reject_and_the_run_says_so(
    start: Start, fake_discord: FakeDiscordApi
) -> None:
    """An admin's Reject resumes the run with the call refused; the state is untouched."""
    bot = await start([tool_call("clear_board", keep=0), "Left the board as it was."])
    bot.gateway("MESSAGE_CREATE", message_create(f"<@{BOT_ID}> clear", mentions=[bot_mention()]))
    await bot.settle()
    question, buttons = _buttons(fake_discord)
    bot.gateway("INTERACTION_CREATE", component_click(question, buttons["Reject"], ADMIN))
    await _until(
        fake_discord, lambda: any(t.startswith("Rejected by") for t in _contents(fake_discord))
    )
    assert (await _board(bot)) == {"tasks": ["a", "b"]}


async def test_unknown_or_expired_buttons_say_so(
    start: Start, fake_discord: FakeDiscordApi
) -> None:
    """A button whose approval is gone (expired, or never stored) answers "expired", ephemerally."""
    bot = await start([])
    stale = f"{PREFIX}:y:{'0' * 32}"
    buttons = approval_view("0" * 32).to_components()  # the buttons stay on the old message
    message = fake_discord._message(CHANNEL, {"content": QUESTION})
    message["components"] = buttons
    bot.gateway("INTERACTION_CREATE", component_click(message, stale, ALICE))
    await _until(fake_discord, lambda: EXPIRED in _ephemerals(fake_discord))
    assert APP_ID  # the followup goes to the application's webhook
    assert any(c.path.startswith(f"webhooks/{APP_ID}/") for c in fake_discord.calls)
