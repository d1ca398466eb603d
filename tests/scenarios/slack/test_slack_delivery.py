"""Reliable Slack delivery: bounded retries, never a silent drop, response_url's 5 uses."""

from __future__ import annotations

import logging
import socket

import pytest
from fakes.slack_api import FakeSlackApi
from slack_harness import MakeBot, settle
from slack_payloads import BOT_USER, CHANNEL, app_mention, slash_command
from structlog.testing import capture_logs

from bots.adapters.slack.listeners import RESPONSE_URL_USES, UNDELIVERED
from bots.adapters.slack.send import (
    CONNECTION_FAILED,
    FAILED_REACTION,
    UPLOAD_NOTE,
    WORKING_REACTION,
)
from bots.chat.errors import STORE_DOWN
from bots.ops.flags import RedisFlags

ROOT = "1700000100.000100"


def _reactions(fake: FakeSlackApi, method: str) -> list[str]:
    return [str(c.params["name"]) for c in fake.named(method)]


async def test_four_rate_limits_then_the_reply_is_posted(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """Four 429s on chat.postMessage are waited out (Retry-After) within the budget."""
    bot = await make_bot(["Here you go."], statebot_slack_retry_seconds=5)
    for _ in range(4):
        fake_slack.fail_once("chat.postMessage", 429, retry_after=0)
    await bot.event(app_mention(f"<@{BOT_USER}> hi"))
    await settle()
    posts = fake_slack.named("chat.postMessage")
    assert len(posts) == 5 and posts[-1].params["text"] == "Here you go."


async def test_retries_stop_at_the_budget_and_the_user_is_told(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """A 429 whose Retry-After exceeds the budget fails; a note says the reply was not posted."""
    bot = await make_bot(["Here you go."], statebot_slack_retry_seconds=0.5)
    fake_slack.fail_once("chat.postMessage", 429, retry_after=30)
    with capture_logs() as logs:
        await bot.event(app_mention(f"<@{BOT_USER}> hi"))
        await settle()
    texts = [c.params["text"] for c in fake_slack.named("chat.postMessage")]
    assert texts == ["Here you go.", UNDELIVERED.format(error="ratelimited")]
    failed = [e for e in logs if e["event"] == "slack_reply_failed"]
    assert failed and failed[0]["log_level"] == "error"
    assert failed[0]["session_id"] == f"slack:T0TEAM001:{CHANNEL}:{ROOT}"
    assert failed[0]["event_id"] == "Ev0MENTION01"


async def test_undeliverable_reply_leaves_a_warning_reaction(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """When neither reply nor note can be posted, a warning reaction replaces the hourglass."""
    bot = await make_bot(["Here you go."])
    fake_slack.fail_with("chat.postMessage", "is_archived", times=2)
    await bot.event(app_mention(f"<@{BOT_USER}> hi"))
    await settle()
    assert _reactions(fake_slack, "reactions.add") == [WORKING_REACTION, FAILED_REACTION]
    assert _reactions(fake_slack, "reactions.remove") == [WORKING_REACTION]


async def test_msg_too_long_is_uploaded_as_a_file(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """ok:false msg_too_long sends the reply through files upload v2 in the thread."""
    bot = await make_bot(["A very long answer."])
    fake_slack.fail_with("chat.postMessage", "msg_too_long")
    await bot.event(app_mention(f"<@{BOT_USER}> hi"))
    await settle()
    assert list(fake_slack.uploads.values()) == [b"A very long answer."]
    (done,) = fake_slack.named("files.completeUploadExternal")
    assert done.params["channel_id"] == CHANNEL and done.params["thread_ts"] == ROOT
    assert done.params["initial_comment"] == UPLOAD_NOTE


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_upload_fallback_that_cannot_connect_is_told_and_logged(
    make_bot: MakeBot, fake_slack: FakeSlackApi, caplog: pytest.LogCaptureFixture
) -> None:
    """A too-long reply whose upload URL is unreachable: logged with the ids, the user told."""
    bot = await make_bot(["A very long answer."])
    fake_slack.fail_with("chat.postMessage", "msg_too_long")
    fake_slack.upload_base = f"http://127.0.0.1:{_closed_port()}"
    with capture_logs() as logs, caplog.at_level(logging.ERROR):
        await bot.event(app_mention(f"<@{BOT_USER}> hi"))
        await settle()
    assert not fake_slack.uploads
    [failed] = [e for e in logs if e["event"] == "slack_reply_failed"]
    assert failed["method"] == "files_upload_v2"
    assert failed["session_id"] == f"slack:T0TEAM001:{CHANNEL}:{ROOT}"
    assert failed["event_id"] == "Ev0MENTION01"
    texts = [c.params["text"] for c in fake_slack.named("chat.postMessage")]
    assert texts[-1] == UNDELIVERED.format(error=failed["error"])
    assert failed["error"] == CONNECTION_FAILED and "Cannot connect" in failed["cause"]
    assert not [r for r in caplog.records if "Failed to run an internal function" in r.message]


async def test_slash_answer_with_an_unreachable_response_url_is_told_privately(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """A response_url that cannot be reached: logged with the event id, an ephemeral note."""
    bot = await make_bot()
    url = f"http://127.0.0.1:{_closed_port()}/respond"
    with capture_logs() as logs:
        await bot.command(slash_command("/taskboard", "list", response_url=url))
        await settle()
    [failed] = [e for e in logs if e["event"] == "slack_reply_failed"]
    assert failed["event_id"] and failed["session_id"] == f"slack:T0TEAM001:{CHANNEL}"
    [note] = fake_slack.named("chat.postEphemeral")
    assert note.params["text"].startswith("I could not post my reply here")


async def test_long_slash_answer_respects_response_url_limit(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """A list longer than five parts is posted with chat.postMessage, not 10 response_url posts."""
    bot = await make_bot()
    url = fake_slack.response_url
    agent = bot.taskboard
    key = f"slack:T0TEAM001:{CHANNEL}"
    tasks = [
        {"id": i, "title": f"task {i} " + "x" * 200, "category": "work", "status": "open"}
        for i in range(1, 121)
    ]
    await agent.aupdate_session_state({"tasks": tasks, "next_id": 121}, session_id=key)
    await bot.command(slash_command("/taskboard", "list", response_url=url))
    await settle()
    assert len(fake_slack.response_urls) <= RESPONSE_URL_USES
    posted = "\n".join(c.params["text"] for c in fake_slack.named("chat.postMessage"))
    assert "task 1 " in posted and "task 120 " in posted


async def test_redis_down_mention_gets_storage_unavailable(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """With Redis unreachable a mention is acked 200 and answered 'storage unavailable'."""
    flags = RedisFlags.from_url("redis://127.0.0.1:1/0")
    bot = await make_bot(["never used"], flags=flags)
    try:
        status = await bot.event(app_mention(f"<@{BOT_USER}> hi"))
        await settle()
    finally:
        await flags.aclose()
    assert status == 200
    assert [c.params["text"] for c in fake_slack.named("chat.postMessage")] == [STORE_DOWN]
    assert bot.model.requests == []
