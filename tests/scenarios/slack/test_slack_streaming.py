"""Streamed replies on Slack: post, then throttled chat.update edits, ending in the reply."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import aiohttp
from fakes.slack_api import FakeSlackApi
from fakes.streaming_model import TickingClock, WordStreamingModel
from slack_harness import SlackBot, settle, start_bot
from slack_payloads import ALICE, BOT_USER, app_mention, message

from bots.adapters.slack.options import SlackOptions
from bots.adapters.slack.settings import SlackSettings
from bots.adapters.slack.stream import THINKING
from bots.app.service import chat_service
from bots.ops.flags import MemoryFlags
from bots.settings import Settings
from core.db.sqlite import SqliteDb
from core.testing import tool_call
from tools.catalog import COMMAND_ALIASES, create_agents

ROOT = "1700000100.000100"
ANSWER = (
    "Here is the plan for **Q2**: review the roadmap, book the dentist, "
    "and ship the <!channel> release notes."
)
WORDS = len(ANSWER.split())
EDITS = ("chat.postMessage", "chat.update", "chat.delete")


async def _bot(
    fake: FakeSlackApi,
    tmp_path: Path,
    http: aiohttp.ClientSession,
    turns: list[Any],
    *,
    stream: bool,
    clock: TickingClock | None = None,
) -> SlackBot:
    model = WordStreamingModel(turns)
    db = SqliteDb(db_file=str(tmp_path / f"state-{stream}.db"))
    settings = Settings(redis_url=None, statebot_stream_replies=stream)
    service = chat_service(create_agents(model, db), settings=settings, aliases=COMMAND_ALIASES)
    options = SlackOptions.from_settings(settings, SlackSettings())
    if clock is not None:
        options = SlackOptions(
            stream_replies=options.stream_replies, stream_seconds=1.0, clock=clock
        )
    return await start_bot(fake, service, model, MemoryFlags(), http, options)


def _edits(fake: FakeSlackApi) -> list[tuple[str, str]]:
    return [(c.method, str(c.params.get("text", ""))) for c in fake.calls if c.method in EDITS]


async def test_streamed_reply_is_posted_then_updated_within_the_throttle(
    fake_slack: FakeSlackApi, tmp_path: Path
) -> None:
    """One post, then chat.update no more than once per second of the clock, ending in the reply."""
    clock = TickingClock(step=0.25)  # read once per streamed word: 4 words per second
    async with aiohttp.ClientSession() as http:
        bot = await _bot(fake_slack, tmp_path, http, [ANSWER], stream=True, clock=clock)
        await bot.event(app_mention(f"<@{BOT_USER}> plan my quarter"))
        await settle()
        await bot.server.stop()
    edits = _edits(fake_slack)
    assert edits[0][0] == "chat.postMessage"
    assert [m for m, _ in edits[1:]] == ["chat.update"] * (len(edits) - 1)
    assert len({c.params["ts"] for c in fake_slack.named("chat.update")}) == 1  # one message
    # every throttled update came at least a second (4 reads) after the previous one:
    # the words are streamed, 1 per read, so the shown texts grow by >= 4 words each
    shown = [len(text.split()) for _, text in edits[:-1]]
    assert shown[0] == 1
    assert all(b - a >= 4 for a, b in itertools.pairwise(shown))
    assert len(edits) <= WORDS // 4 + 2
    # texts only grow, every one a prefix of the next
    texts = [t for _, t in edits]
    assert all(b.startswith(a.rstrip()) for a, b in itertools.pairwise(texts))
    assert all(c.params.get("thread_ts") == ROOT for c in fake_slack.named("chat.postMessage"))


async def test_streamed_final_text_equals_the_unstreamed_reply(
    fake_slack: FakeSlackApi, tmp_path: Path
) -> None:
    """The last streamed edit shows exactly what the one-message reply posts (safe mrkdwn)."""
    async with aiohttp.ClientSession() as http:
        streamed = await _bot(
            fake_slack, tmp_path, http, [ANSWER], stream=True, clock=TickingClock(0.25)
        )
        await streamed.event(app_mention(f"<@{BOT_USER}> plan my quarter"))
        await settle()
        last_streamed = _edits(fake_slack)[-1][1]
        await streamed.server.stop()
        fake_slack.calls.clear()
        plain = await _bot(fake_slack, tmp_path, http, [ANSWER], stream=False)
        await plain.event(app_mention(f"<@{BOT_USER}> plan my quarter", event_id="Ev0OTHER"))
        await settle()
        await plain.server.stop()
    [(method, text)] = _edits(fake_slack)  # streaming off: one message, no edits
    assert method == "chat.postMessage"
    assert last_streamed == text
    assert "<!channel>" not in text  # the broadcast is neutralised in both


async def test_tools_show_the_assistant_status_in_a_dm_thread(
    fake_slack: FakeSlackApi, tmp_path: Path
) -> None:
    """In an assistant (DM) thread a running tool sets "is thinking…", cleared after it."""
    turns = [tool_call("add_task", title="Review roadmap", category="work"), "Added #1."]
    async with aiohttp.ClientSession() as http:
        bot = await _bot(fake_slack, tmp_path, http, turns, stream=True, clock=TickingClock(1.0))
        dm = message(
            "add the roadmap review",
            ts="1700000200.000200",
            thread_ts="1700000100.000100",
            channel="D0DIRECT01",
            channel_type="im",
            user=ALICE,
        )
        await bot.event(dm)
        await settle()
        await bot.server.stop()
    statuses = [c.params for c in fake_slack.named("assistant.threads.setStatus")]
    assert [s["status"] for s in statuses] == [THINKING, ""]
    assert all(s["thread_ts"] == "1700000100.000100" for s in statuses)
    assert _edits(fake_slack)[-1][1] == "Added #1."
