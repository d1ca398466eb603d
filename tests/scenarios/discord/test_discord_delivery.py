"""Discord delivery through the real discord.py client: privacy, failures, dedupe, shutdown."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import structlog
from discord_harness import MakeDiscord
from discord_payloads import (
    BOT_ID,
    BOT_ROLE,
    CHANNEL,
    bot_mention,
    interaction_create,
    message_create,
)
from fakes.discord_api import FakeDiscordApi

from bots.adapters.discord.delivery import RESTARTING
from bots.chat.errors import STORE_DOWN
from bots.ops.flags import RedisFlags
from core.db.in_memory import InMemoryDb
from core.db.redis import RedisDb
from core.models.base import Message, ModelResponse
from core.testing import ScriptedModel, tool_call

DEAD_REDIS = "redis://127.0.0.1:1/0"  # nothing listens on port 1
EPHEMERAL = 64


def _mention(text: str) -> dict[str, Any]:
    return message_create(f"<@{BOT_ID}> {text}", mentions=[bot_mention()])


class GatedModel(ScriptedModel):
    """A scripted model whose every call waits until ``gate`` is set."""

    def __init__(self, turns: list[Any]) -> None:
        super().__init__(turns)
        self.gate = asyncio.Event()
        self.called = asyncio.Event()

    async def ainvoke(self, messages: list[Message], tools: list[dict[str, Any]]) -> ModelResponse:
        self.called.set()
        await self.gate.wait()
        return await super().ainvoke(messages, tools)


@pytest.mark.parametrize("text", ["help", "", "frobnicate now", 'add_task "x" bogus=1'])
async def test_help_and_bad_commands_are_deferred_privately(
    make_discord: MakeDiscord, fake_discord: FakeDiscordApi, text: str
) -> None:
    """Help, unknown tools and bad arguments are known before the run: deferred ephemerally."""
    bot = await make_discord()
    bot.gateway("INTERACTION_CREATE", interaction_create("taskboard", text))
    await bot.settle()
    assert fake_discord.sent("/callback")[0].json["data"]["flags"] & EPHEMERAL
    followups = fake_discord.sent("webhooks/")
    assert followups and all(f.json["flags"] & EPHEMERAL for f in followups)


async def test_refusal_found_during_a_public_run_is_sent_privately(
    make_discord: MakeDiscord, fake_discord: FakeDiscordApi
) -> None:
    """A private reply found only by the run: public note, private details, note deleted."""
    bot = await make_discord(statebot_max_message_chars=20)
    bot.gateway("INTERACTION_CREATE", interaction_create("taskboard", 'add "a title far too long"'))
    await bot.settle()
    assert not fake_discord.sent("/callback")[0].json.get("data", {}).get("flags", 0)
    hook_calls = [(c.method, c.path) for c in fake_discord.calls if c.path.startswith("webhooks/")]
    assert [m for m, _ in hook_calls] == ["PATCH", "POST", "DELETE"]
    assert hook_calls[0][1].endswith("/messages/@original")
    assert hook_calls[2][1].endswith("/messages/@original")
    details = fake_discord.sent("webhooks/")[0].json
    assert details["flags"] & EPHEMERAL and "too long" in details["content"]
    public_note = fake_discord.sent("webhooks/", method="PATCH")[0].json["content"]
    assert "too long" not in public_note


async def test_typing_forbidden_still_answers(
    make_discord: MakeDiscord, fake_discord: FakeDiscordApi
) -> None:
    """A 403 on the typing indicator does not stop the run or the reply."""
    fake_discord.fail("POST", "/typing")
    bot = await make_discord([tool_call("add_task", title="Milk"), "Added."])
    bot.gateway("MESSAGE_CREATE", _mention("add milk"))
    await bot.settle()
    assert fake_discord.contents() == ["Added."]


async def test_send_forbidden_becomes_a_warning_reaction_and_an_error_log(
    make_discord: MakeDiscord, fake_discord: FakeDiscordApi
) -> None:
    """A 403 on send never escapes the handler: a ⚠️ reaction and an error log with the ids."""
    fake_discord.fail("POST", f"channels/{CHANNEL}/messages")
    bot = await make_discord(["Hello."])
    payload = _mention("hi")
    with structlog.testing.capture_logs() as logs:
        bot.gateway("MESSAGE_CREATE", payload)
        await bot.settle()
    reactions = fake_discord.sent("/reactions/", method="PUT")
    assert len(reactions) == 1 and payload["id"] in reactions[0].path
    failed = [e for e in logs if e["event"] == "discord_send_failed"]
    assert failed and failed[0]["event_id"] == payload["id"] and failed[0]["status"] == 403
    assert failed[0]["session_id"] == f"discord:1200000000000000001:{CHANNEL}"


async def test_send_and_reaction_forbidden_is_logged_not_raised(
    make_discord: MakeDiscord, fake_discord: FakeDiscordApi
) -> None:
    """When neither the reply nor the reaction can be posted, the handler only logs."""
    fake_discord.fail("POST", f"channels/{CHANNEL}/messages")
    fake_discord.fail("PUT", "/reactions/")
    bot = await make_discord(["Hello."])
    with structlog.testing.capture_logs() as logs:
        bot.gateway("MESSAGE_CREATE", _mention("hi"))
        await bot.settle()
    assert {"discord_send_failed", "discord_warning_reaction_failed"} <= {e["event"] for e in logs}


async def test_interaction_that_expired_is_logged_not_raised(
    make_discord: MakeDiscord, fake_discord: FakeDiscordApi
) -> None:
    """A defer refused (Unknown interaction) runs nothing and raises nothing."""
    fake_discord.fail("POST", "/callback", 404, code=10062, message="Unknown interaction")
    bot = await make_discord()
    with structlog.testing.capture_logs() as logs:
        bot.gateway("INTERACTION_CREATE", interaction_create("taskboard", 'add "Late"'))
        await bot.settle()
    assert "discord_interaction_failed" in {e["event"] for e in logs}
    assert (await bot.state(f"discord:1200000000000000001:{CHANNEL}")).get("tasks", []) == []


async def test_delivery_to_two_processes_is_answered_once(
    make_discord: MakeDiscord, fake_discord: FakeDiscordApi, redis_url: str, key_prefix: str
) -> None:
    """The same MESSAGE_CREATE reaching two clients sharing Redis is answered by one."""
    first = await make_discord(["One."], flags=RedisFlags.from_url(redis_url, key_prefix))
    second = await make_discord(["Two."], flags=RedisFlags.from_url(redis_url, key_prefix))
    payload = _mention("hello")
    first.gateway("MESSAGE_CREATE", payload)
    second.gateway("MESSAGE_CREATE", payload)
    await first.settle()
    assert len(fake_discord.contents()) == 1
    assert len(first.model.requests) + len(second.model.requests) == 1


async def test_bot_role_mention_counts_as_a_mention(
    make_discord: MakeDiscord, fake_discord: FakeDiscordApi
) -> None:
    """``<@&bot role>`` addresses the bot; the role token is stripped from the text."""
    bot = await make_discord(["Sure."])
    bot.gateway(
        "MESSAGE_CREATE", message_create(f"<@&{BOT_ROLE}> add milk", mention_roles=[BOT_ROLE])
    )
    await bot.settle()
    assert fake_discord.contents() == ["Sure."]
    assert bot.model.requests[0].messages[-1].content == "add milk"


async def test_other_role_mention_is_not_for_the_bot(
    make_discord: MakeDiscord, fake_discord: FakeDiscordApi
) -> None:
    """A mention of a role that is not the bot's gets no answer."""
    bot = await make_discord(["Sure."])
    bot.gateway("MESSAGE_CREATE", message_create("<@&1200000000000000001> hi", mention_roles=[]))
    await bot.settle()
    assert fake_discord.contents() == [] and bot.model.requests == []


async def test_redis_down_for_dedupe_replies_storage_unavailable(
    make_discord: MakeDiscord, fake_discord: FakeDiscordApi
) -> None:
    """When the dedupe claim cannot reach Redis, the mention gets the storage-down reply."""
    bot = await make_discord(["never"], flags=RedisFlags.from_url(DEAD_REDIS))
    bot.gateway("MESSAGE_CREATE", _mention("hi"))
    await bot.settle()
    assert fake_discord.contents() == [STORE_DOWN]
    assert bot.model.requests == []


async def test_redis_down_for_state_replies_storage_unavailable_everywhere(
    make_discord: MakeDiscord, fake_discord: FakeDiscordApi
) -> None:
    """With the hot store down, a mention, a DM and an app command all say storage is down."""
    store = RedisDb(db_url=DEAD_REDIS, snapshot_to=InMemoryDb(), run_snapshotter=False)
    bot = await make_discord(["never", "never"], db=store)
    bot.gateway("MESSAGE_CREATE", _mention("hi"))
    bot.gateway("MESSAGE_CREATE", message_create("hi", channel="1200000000000000004", guild=None))
    bot.gateway("INTERACTION_CREATE", interaction_create("taskboard", 'add "x"'))
    await bot.settle()
    assert fake_discord.contents() == [STORE_DOWN] * 3
    await store.aclose()


async def test_shutdown_finishes_the_run_in_flight_and_turns_new_work_away(
    make_discord: MakeDiscord, fake_discord: FakeDiscordApi
) -> None:
    """Shutdown lets the run in flight reply; work arriving meanwhile is told to resend."""
    model = GatedModel(["Finished."])
    bot = await make_discord(model=model)
    bot.gateway("MESSAGE_CREATE", _mention("slow one"))
    await asyncio.wait_for(model.called.wait(), 5)
    stopping = asyncio.create_task(bot.client.shutdown(grace=10))
    await asyncio.sleep(0.05)
    bot.gateway("MESSAGE_CREATE", _mention("too late"))
    bot.gateway("INTERACTION_CREATE", interaction_create("taskboard", 'add "late"'))
    await fake_discord.wait_for(lambda f: len(f.contents()) + len(f.sent("/callback")) >= 2)
    assert not stopping.done()
    model.gate.set()
    assert await asyncio.wait_for(stopping, 10) is True
    assert "Finished." in fake_discord.contents() and RESTARTING in fake_discord.contents()
    turned_away = fake_discord.sent("/callback")[0].json
    assert turned_away["type"] == 4 and turned_away["data"]["content"] == RESTARTING
    assert turned_away["data"]["flags"] & EPHEMERAL
    assert bot.client.is_closed()


async def test_shutdown_grace_exceeded_cancels_and_reports(
    make_discord: MakeDiscord, fake_discord: FakeDiscordApi
) -> None:
    """A run still going when the grace period ends is cancelled and shutdown says so."""
    model = GatedModel(["never"])
    bot = await make_discord(model=model)
    bot.gateway("MESSAGE_CREATE", _mention("stuck"))
    await asyncio.wait_for(model.called.wait(), 5)
    with structlog.testing.capture_logs() as logs:
        assert await bot.client.shutdown(grace=0.2) is False
    assert "shutdown_grace_exceeded" in {e["event"] for e in logs}
    assert bot.client.is_closed()
