"""Streamed replies on Discord: one message sent, then edited (throttled), ending in the reply."""

from __future__ import annotations

import itertools

from discord_harness import MakeDiscord
from discord_payloads import BOT_ID, CHANNEL, bot_mention, message_create
from fakes.discord_api import FakeDiscordApi
from fakes.streaming_model import TickingClock, WordStreamingModel

from bots.adapters.discord.traits import MESSAGE_LIMIT as DISCORD_LIMIT
from bots.chat.streaming import StreamOptions
from core.testing import tool_call

ANSWER = "Your board has three open tasks: review the roadmap, book the dentist, and water plants."
WORDS = len(ANSWER.split())


def _shown(fake: FakeDiscordApi) -> list[tuple[str, str]]:
    """(method, content) of every message sent to or edited in the channel."""
    return [
        (c.method, c.json["content"])
        for c in fake.calls
        if c.path.startswith(f"channels/{CHANNEL}/messages") and c.method in ("POST", "PATCH")
    ]


async def test_streamed_reply_is_sent_then_edited_within_the_throttle(
    make_discord: MakeDiscord, fake_discord: FakeDiscordApi
) -> None:
    """One send, then edits of that message at most once per second, ending in the reply."""
    bot = await make_discord(model=WordStreamingModel([ANSWER]), statebot_stream_replies=True)
    bot.client.stream = StreamOptions(True, 1.0, TickingClock(step=0.25))  # 4 words a second
    bot.gateway("MESSAGE_CREATE", message_create(f"<@{BOT_ID}> status?", mentions=[bot_mention()]))
    await bot.settle()
    shown = _shown(fake_discord)
    assert shown[0][0] == "POST" and {m for m, _ in shown[1:]} == {"PATCH"}
    assert len({c.path for c in fake_discord.calls if c.method == "PATCH"}) == 1  # one message
    words = [len(text.split()) for _, text in shown[:-1]]
    assert words[0] == 1
    assert all(b - a >= 4 for a, b in itertools.pairwise(words))  # >= 1 s between edits
    assert shown[-1][1] == ANSWER
    assert len(shown) <= WORDS // 4 + 2


async def test_streaming_off_sends_one_message_with_the_same_text(
    make_discord: MakeDiscord, fake_discord: FakeDiscordApi
) -> None:
    """With STATEBOT_STREAM_REPLIES off the same answer is one message, no edits."""
    bot = await make_discord(model=WordStreamingModel([ANSWER]))
    assert not bot.client.stream.enabled  # the default
    bot.gateway("MESSAGE_CREATE", message_create(f"<@{BOT_ID}> status?", mentions=[bot_mention()]))
    await bot.settle()
    assert _shown(fake_discord) == [("POST", ANSWER)]


async def test_long_streamed_answer_continues_in_a_new_message(
    make_discord: MakeDiscord, fake_discord: FakeDiscordApi
) -> None:
    """Past 2,000 characters the stream goes on in a second message; none exceeds the limit."""
    long_answer = " ".join(f"word{i:04d}" for i in range(400))  # ~3,600 characters
    bot = await make_discord(model=WordStreamingModel([long_answer]), statebot_stream_replies=True)
    bot.client.stream = StreamOptions(True, 1.0, TickingClock(step=0.01))
    bot.gateway("MESSAGE_CREATE", message_create(f"<@{BOT_ID}> list", mentions=[bot_mention()]))
    await bot.settle()
    shown = _shown(fake_discord)
    assert [m for m, _ in shown].count("POST") == 2
    assert all(len(text) <= DISCORD_LIMIT for _, text in shown)
    # the last edit of each message (both were edited after the cut) reads as the answer
    last: dict[int, str] = {}
    for call in fake_discord.calls:
        if call.method == "PATCH":
            last[int(call.path.rsplit("/", 1)[1])] = call.json["content"]
    assert len(last) == 2
    assert " ".join(last[k] for k in sorted(last)).split() == long_answer.split()


async def test_tool_calls_trigger_typing_while_streaming(
    make_discord: MakeDiscord, fake_discord: FakeDiscordApi
) -> None:
    """A tool starting re-triggers the typing indicator; the reply ends as the model's text."""
    turns = [tool_call("add_task", title="Buy milk"), "Added #1."]
    bot = await make_discord(model=WordStreamingModel(turns), statebot_stream_replies=True)
    bot.gateway("MESSAGE_CREATE", message_create(f"<@{BOT_ID}> add", mentions=[bot_mention()]))
    await bot.settle()
    assert len(fake_discord.sent(f"channels/{CHANNEL}/typing")) >= 2  # the run's, the tool's
    assert _shown(fake_discord)[-1][1] == "Added #1."
