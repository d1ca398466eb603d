"""Discord: a first mention reads the thread's history once; busy threads say "queued"."""

from __future__ import annotations

from typing import Any

from discord_harness import MakeDiscord
from discord_payloads import ALICE, CHANNEL, GUILD, THREAD, bot_mention, message_create
from fakes.discord_api import BOT_ID, BOT_USER, FakeDiscordApi

from bots.chat.errors import QUEUE_TIMEOUT
from core.db.in_memory import InMemoryDb

SESSION = f"discord:{GUILD}:{CHANNEL}:{THREAD}"
ANA, BO = "1400000000000000010", "1400000000000000012"  # in the fake's user directory
SCOPES = {"statebot_agent_scopes": {"taskboard": "thread"}}


def _said(n: int, author: dict[str, Any], content: str, kind: int = 0) -> dict[str, Any]:
    said = message_create(content, channel=THREAD)
    said.update(id=str(1240000000000000000 + n), type=kind, author=author)
    return said


def _person(user_id: str, name: str) -> dict[str, Any]:
    return {"id": user_id, "username": name, "discriminator": "0", "avatar": None}


HISTORY = [
    _said(1, _person(ANA, "alice"), "the build is red"),
    _said(2, _person(BO, "bob"), f"<@{ANA}> since when?"),
    _said(3, _person(BO, "bob"), "", kind=7),  # "bob joined": a system message
    _said(4, BOT_USER, "I added it to the board."),
    _said(5, _person(ANA, "alice"), "since the 04:00 deploy"),
]


def _mention(text: str, author: dict[str, Any] = ALICE) -> dict[str, Any]:
    return message_create(
        f"<@{BOT_ID}> {text}", channel=THREAD, mentions=[bot_mention()], author=author
    )


def _history_calls(fake: FakeDiscordApi) -> list[Any]:
    return [c for c in fake.calls if c.method == "GET" and c.path == f"channels/{THREAD}/messages"]


def _user_messages(model: Any, request: int = -1) -> list[str]:
    return [str(m.content) for m in model.requests[request].messages if m.role == "user"]


async def test_first_mention_reads_the_thread_once(
    make_discord: MakeDiscord, fake_discord: FakeDiscordApi
) -> None:
    """Names and mentions readable, system messages out; not again, not after a restart."""
    fake_discord.histories.add(THREAD, HISTORY)
    db = InMemoryDb()
    bot = await make_discord(["Looking.", "Still looking."], db=db, **SCOPES)
    bot.gateway("MESSAGE_CREATE", _mention("what broke?"))
    await bot.settle()
    caught_up, question = _user_messages(bot.model)
    assert caught_up.splitlines() == [
        "Earlier messages in this thread, before you were asked (oldest first):",
        "Alice: the build is red",
        "bob: @Alice since when?",
        "You: I added it to the board.",
        "Alice: since the 04:00 deploy",
    ]
    assert question.endswith("what broke?")
    assert any(c.startswith("Looking.") for c in fake_discord.contents())

    bot.gateway("MESSAGE_CREATE", _mention("and now?"))
    await bot.settle()
    assert len(_history_calls(fake_discord)) == 1
    restarted = await make_discord(["Again."], db=db, **SCOPES)
    restarted.gateway("MESSAGE_CREATE", _mention("again?"))
    await restarted.settle()
    assert len(_history_calls(fake_discord)) == 1
    assert not any("Earlier messages" in t for t in _user_messages(restarted.model))


async def test_catch_up_is_bounded(make_discord: MakeDiscord, fake_discord: FakeDiscordApi) -> None:
    """200 earlier messages: only the latest ``catch_up`` are asked for and shown."""
    fake_discord.histories.add(
        THREAD, [_said(n, _person(ANA, "alice"), f"line {n:03d}") for n in range(200)]
    )
    bot = await make_discord(["ok"], statebot_catch_up=30, statebot_catch_up_chars=10_000, **SCOPES)
    bot.gateway("MESSAGE_CREATE", _mention("sum up"))
    await bot.settle()
    assert len(_history_calls(fake_discord)) == 1  # one page: 30 asked for
    lines = _user_messages(bot.model)[0].splitlines()
    assert lines[1:] == [f"Alice: line {n}" for n in range(170, 200)]


async def test_two_people_at_once_are_queued_then_answered_in_order(
    make_discord: MakeDiscord, fake_discord: FakeDiscordApi
) -> None:
    """While a run holds the thread, Ana and Bo each read "queued behind N", then the answers."""
    db = InMemoryDb()
    bot = await make_discord(["For Ana.", "For Bo."], db=db, statebot_catch_up=0, **SCOPES)
    async with db.session_lock(SESSION):
        bot.gateway("MESSAGE_CREATE", _mention("first"))
        await fake_discord.wait_for(lambda f: any("Queued" in c for c in f.contents()))
        bot.gateway("MESSAGE_CREATE", _mention("second", _person(BO, "bob")))
        await fake_discord.wait_for(lambda f: sum("Queued" in c for c in f.contents()) == 2)
        assert bot.model.requests == []
    await bot.settle()
    queued = [c for c in fake_discord.contents() if c.startswith("Queued")]
    assert queued == [
        "Queued behind 1 request in this conversation; I will answer here when it is done.",
        "Queued behind 2 requests in this conversation; I will answer here when it is done.",
    ]
    answers = [c.split("\n")[0] for c in fake_discord.contents() if c.startswith("For ")]
    assert answers == ["For Ana.", "For Bo."]
    notes = [c for c in fake_discord.calls if c.json and "message_reference" in c.json]
    assert len(notes) >= 2  # each notice answers the message that waits


async def test_a_wait_past_its_bound_runs_nothing(
    make_discord: MakeDiscord, fake_discord: FakeDiscordApi
) -> None:
    """Busy past lock_timeout: "queued", then a plain "nothing was run"; nothing stored."""
    db = InMemoryDb()
    db.lock_timeout = 0.3
    bot = await make_discord(["never"], db=db, statebot_catch_up=0, **SCOPES)
    async with db.session_lock(SESSION, timeout=5):
        bot.gateway("MESSAGE_CREATE", _mention("add milk"))
        await fake_discord.wait_for(
            lambda f: any(c.startswith(QUEUE_TIMEOUT) for c in f.contents())
        )
    await bot.settle()
    assert any(c.startswith("Queued behind 1 request") for c in fake_discord.contents())
    assert bot.model.requests == []
    assert await db.aload(SESSION) is None
