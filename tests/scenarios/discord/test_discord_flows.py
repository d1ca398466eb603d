"""Discord through the real discord.py client: gateway payloads in, REST calls out."""

from __future__ import annotations

from discord_harness import MakeDiscord
from discord_payloads import (
    BOT_ID,
    CHANNEL,
    DM_CHANNEL,
    GUILD,
    THREAD,
    bot_mention,
    interaction_create,
    message_create,
    other_bot,
)
from fakes.discord_api import FakeDiscordApi

from bots.chat.boards import THREAD_BOARD
from core.testing import tool_call

CHANNEL_SESSION = f"discord:{GUILD}:{CHANNEL}"
THREAD_SESSION = f"discord:{GUILD}:{CHANNEL}:{THREAD}"


async def test_login_syncs_one_command_per_agent_and_state(
    make_discord: MakeDiscord, fake_discord: FakeDiscordApi
) -> None:
    """Logging in publishes /taskboard, /shopping, … and /state, each with a text option."""
    await make_discord()
    synced = fake_discord.sent("/commands", method="PUT")[0].json
    names = {c["name"] for c in synced}
    assert {"taskboard", "state"} <= names
    taskboard = next(c for c in synced if c["name"] == "taskboard")
    assert [o["name"] for o in taskboard["options"]] == ["text"]
    assert taskboard["options"][0]["description"].startswith("what to do, e.g.")


async def test_mention_is_answered_in_channel(
    make_discord: MakeDiscord, fake_discord: FakeDiscordApi
) -> None:
    """A message mentioning the bot runs the agent and is answered in its channel."""
    bot = await make_discord([tool_call("add_task", title="Buy milk"), "Added #1."])
    bot.gateway("MESSAGE_CREATE", message_create(f"<@{BOT_ID}> add milk", mentions=[bot_mention()]))
    await bot.settle()
    sent = fake_discord.sent(f"channels/{CHANNEL}/messages")
    assert [c.json["content"] for c in sent] == ["Added #1."]
    assert sent[0].json["allowed_mentions"]["parse"] == []
    assert fake_discord.sent(f"channels/{CHANNEL}/typing")
    assert [t["title"] for t in (await bot.state(CHANNEL_SESSION))["tasks"]] == ["Buy milk"]
    assert bot.model.requests[0].messages[-1].content == "add milk"


async def test_thread_is_its_own_session(
    make_discord: MakeDiscord, fake_discord: FakeDiscordApi
) -> None:
    """Under thread scope, a mention in a thread keys the session by parent channel and
    thread id, and the reply says it is that thread's board."""
    bot = await make_discord(
        [tool_call("add_task", title="In thread"), "ok", tool_call("add_task", title="Top"), "ok"],
        statebot_agent_scopes={"taskboard": "thread"},
    )
    mention = [bot_mention()]
    bot.gateway(
        "MESSAGE_CREATE", message_create(f"<@{BOT_ID}> add", channel=THREAD, mentions=mention)
    )
    await bot.settle()
    bot.gateway("MESSAGE_CREATE", message_create(f"<@{BOT_ID}> add", mentions=mention))
    await bot.settle()
    assert [t["title"] for t in (await bot.state(THREAD_SESSION))["tasks"]] == ["In thread"]
    assert [t["title"] for t in (await bot.state(CHANNEL_SESSION))["tasks"]] == ["Top"]
    in_thread = fake_discord.sent(f"channels/{THREAD}/messages")[0].json["content"]
    assert in_thread == f"ok\n_{THREAD_BOARD}_"
    top = [c.json["content"] for c in fake_discord.sent(f"channels/{CHANNEL}/messages")]
    assert "ok" in top  # the channel's own board needs no note


async def test_direct_message_is_answered(
    make_discord: MakeDiscord, fake_discord: FakeDiscordApi
) -> None:
    """A DM needs no mention; its session lives under the ``dm`` workspace."""
    bot = await make_discord([tool_call("add_task", title="Private"), "Added."])
    bot.gateway("MESSAGE_CREATE", message_create("add private", channel=DM_CHANNEL, guild=None))
    await bot.settle()
    assert fake_discord.sent(f"channels/{DM_CHANNEL}/messages")[0].json["content"] == "Added."
    state = await bot.state(f"discord:dm:{DM_CHANNEL}")
    assert [t["title"] for t in state["tasks"]] == ["Private"]


async def test_everyone_and_bots_are_ignored(
    make_discord: MakeDiscord, fake_discord: FakeDiscordApi
) -> None:
    """@everyone, unmentioned chatter and other bots' mentions get no answer."""
    bot = await make_discord()
    bot.gateway("MESSAGE_CREATE", message_create("@everyone standup!", mention_everyone=True))
    bot.gateway("MESSAGE_CREATE", message_create("just chatting"))
    bot.gateway(
        "MESSAGE_CREATE",
        message_create(f"<@{BOT_ID}> hi", mentions=[bot_mention()], author=other_bot()),
    )
    await bot.settle()
    assert fake_discord.contents() == []
    assert bot.model.requests == []


async def test_app_command_defers_then_follows_up(
    make_discord: MakeDiscord, fake_discord: FakeDiscordApi
) -> None:
    """/taskboard add … is deferred at once, run as a tool, and answered by a follow-up."""
    bot = await make_discord()
    bot.gateway("INTERACTION_CREATE", interaction_create("taskboard", 'add "Water plants"'))
    await bot.settle()
    paths = [c.path for c in fake_discord.calls if c.method == "POST"]
    callback = next(i for i, p in enumerate(paths) if p.endswith("/callback"))
    followup = next(i for i, p in enumerate(paths) if p.startswith("webhooks/"))
    assert callback < followup
    defer = fake_discord.sent("/callback")[0].json
    assert defer["type"] == 5  # DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE
    assert "Water plants" in fake_discord.sent("webhooks/")[0].json["content"]
    state = await bot.state(CHANNEL_SESSION)
    assert [t["title"] for t in state["tasks"]] == ["Water plants"]
    assert bot.model.requests == []


async def test_state_command_refused_for_non_admin(
    make_discord: MakeDiscord, fake_discord: FakeDiscordApi
) -> None:
    """/state dump by a non-admin is deferred ephemerally and refused ephemerally."""
    bot = await make_discord()
    bot.gateway("INTERACTION_CREATE", interaction_create("state", "dump"))
    await bot.settle()
    defer = fake_discord.sent("/callback")[0].json
    assert defer["data"]["flags"] & 64  # EPHEMERAL
    followup = fake_discord.sent("webhooks/")[0].json
    assert followup["flags"] & 64 and "admin" in followup["content"].lower()


async def test_long_reply_is_chunked_at_2000(
    make_discord: MakeDiscord, fake_discord: FakeDiscordApi
) -> None:
    """A reply longer than 2,000 characters arrives as several messages of at most 2,000."""
    long_text = "\n".join(f"line {i}: " + "x" * 90 for i in range(60))
    bot = await make_discord([long_text])
    bot.gateway("MESSAGE_CREATE", message_create(f"<@{BOT_ID}> report", mentions=[bot_mention()]))
    await bot.settle()
    parts = fake_discord.contents()
    assert len(parts) >= 3 and all(len(p) <= 2000 for p in parts)
    assert "\n".join(parts) == long_text


async def test_model_failure_gives_friendly_reply(
    make_discord: MakeDiscord, fake_discord: FakeDiscordApi
) -> None:
    """A model error is answered with a short apology; the board is unchanged."""
    from core.models.base import ModelError

    bot = await make_discord([tool_call("add_task", title="Keep"), "ok", ModelError("502")])
    mention = [bot_mention()]
    bot.gateway("MESSAGE_CREATE", message_create(f"<@{BOT_ID}> add keep", mentions=mention))
    await bot.settle()
    before = await bot.state(CHANNEL_SESSION)
    bot.gateway("MESSAGE_CREATE", message_create(f"<@{BOT_ID}> more", mentions=mention))
    await bot.settle()
    replies = fake_discord.contents()
    assert len(replies) == 2 and replies[1].startswith("Sorry, the model did not answer")
    assert await bot.state(CHANNEL_SESSION) == before
