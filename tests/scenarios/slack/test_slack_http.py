"""Slack over HTTP: signed deliveries to the running bolt app, replies at the fake API."""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Callable

import pytest
from fakes.slack_api import FakeSlackApi
from slack_harness import SECRET, MakeBot, settle
from slack_payloads import BOT_USER, CHANNEL, app_mention, message
from structlog.testing import capture_logs

from bots.adapters.slack.flags import RedisFlags
from core.testing import tool_call

TS = "1700000100.000100"


def _replies(fake: FakeSlackApi) -> list[str]:
    return [str(c.params["text"]) for c in fake.named("chat.postMessage")]


async def test_valid_mention_is_acked_and_answered_in_thread(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """A signed app_mention gets 200, a working reaction, and a reply in its thread."""
    bot = await make_bot([tool_call("add_task", title="Buy milk"), "Added #1 Buy milk."])
    assert await bot.event(app_mention(f"<@{BOT_USER}> taskboard add milk")) == 200
    await fake_slack.wait_for(lambda f: f.named("reactions.remove"))
    post = fake_slack.named("chat.postMessage")[0].params
    assert (post["channel"], post["thread_ts"], post["text"]) == (CHANNEL, TS, "Added #1 Buy milk.")
    assert fake_slack.named("reactions.add")[0].params["name"] == "hourglass_flowing_sand"
    auth = fake_slack.named("chat.postMessage")[0].headers["Authorization"]
    assert auth == "Bearer xoxb-test-token"
    state = await bot.state(None, scope="channel")
    assert [t["title"] for t in state["tasks"]] == ["Buy milk"]


async def test_ack_does_not_wait_for_the_agent(make_bot: MakeBot, fake_slack: FakeSlackApi) -> None:
    """Slack gets its 200 while the work is still blocked; the reply follows afterwards."""
    bot = await make_bot(["Hello!"])
    gate = fake_slack.hold("reactions.add")
    assert await bot.event(app_mention(f"<@{BOT_USER}> hi")) == 200
    await fake_slack.wait_for(lambda f: f.named("reactions.add"))
    assert fake_slack.named("chat.postMessage") == [] and bot.model.requests == []
    gate.set()
    await fake_slack.wait_for(lambda f: f.named("chat.postMessage"))
    assert _replies(fake_slack) == ["Hello!"]


async def test_bad_signature_is_refused_with_401(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """A body signed with the wrong secret is answered 401 and never reaches an agent."""
    bot = await make_bot()
    from slack_payloads import encode_event

    status, _ = await bot.post(*encode_event(app_mention("hi")), secret="not-the-secret")
    assert status == 401
    await settle()
    assert fake_slack.named("chat.postMessage") == []
    assert bot.model.requests == []


async def test_stale_timestamp_is_refused_with_401(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """A correctly signed request older than five minutes (a replay) is answered 401."""
    bot = await make_bot()
    from slack_payloads import encode_event

    stale = int(time.time()) - 10 * 60
    status, _ = await bot.post(*encode_event(app_mention("hi")), timestamp=stale)
    assert status == 401
    await settle()
    assert fake_slack.named("chat.postMessage") == []


async def test_unsigned_request_is_refused_with_401(make_bot: MakeBot) -> None:
    """A request without the Slack signature headers is answered 401."""
    bot = await make_bot()
    async with bot.http.post(bot.url, json=app_mention("hi")) as resp:
        assert resp.status == 401


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (b'{"type": "event_callback", "text": "caf\xe9"}', "application/json"),  # Latin-1
        (bytes(range(256)), "application/x-www-form-urlencoded"),
        (b"token=x&text=hi", "application/x-www-form-urlencoded; charset=no-such-codec"),
    ],
)
async def test_a_body_that_is_not_utf8_is_refused_with_400(
    make_bot: MakeBot, fake_slack: FakeSlackApi, body: bytes, content_type: str
) -> None:
    """A signed request whose body is not UTF-8 text is answered 400, not 500, and runs
    nothing (it was a 500 with a UnicodeDecodeError traceback)."""
    bot = await make_bot()
    stamp = str(int(time.time()))
    digest = hmac.new(SECRET.encode(), f"v0:{stamp}:".encode() + body, hashlib.sha256)
    headers = {
        "Content-Type": content_type,
        "X-Slack-Request-Timestamp": stamp,
        "X-Slack-Signature": f"v0={digest.hexdigest()}",
    }
    async with bot.http.post(bot.url, data=body, headers=headers) as resp:
        assert (resp.status, await resp.text()) == (400, "the request body is not UTF-8 text")
    await settle()
    assert fake_slack.calls == [] and bot.model.requests == []


async def test_retried_delivery_answers_once(make_bot: MakeBot, fake_slack: FakeSlackApi) -> None:
    """The same event_id redelivered (X-Slack-Retry-Num) gives one reply and one change."""
    bot = await make_bot([tool_call("add_task", title="Buy milk"), "Added #1."])
    body = app_mention(f"<@{BOT_USER}> add milk")
    with capture_logs() as logs:
        assert await bot.event(body) == 200
        assert await bot.event(body, retry_num=1) == 200
        assert await bot.event(body, retry_num=2) == 200
        await settle()
    assert _replies(fake_slack) == ["Added #1."]
    assert len((await bot.state(None, scope="channel"))["tasks"]) == 1
    assert sum(e["event"] == "slack_duplicate_delivery" for e in logs) == 2


async def test_mention_and_message_event_for_one_ts_answer_once(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """app_mention and message events for the same message (two event ids) answer once."""
    bot = await make_bot([tool_call("add_task", title="Milk"), "Added #1."])
    text = f"<@{BOT_USER}> add milk"
    await bot.event(app_mention(text, event_id="Ev0A"))
    await bot.event(message(text, ts=TS, event_id="Ev0B"))
    await settle()
    assert _replies(fake_slack) == ["Added #1."]
    assert len((await bot.state(None, scope="channel"))["tasks"]) == 1


async def test_retry_across_two_instances_sharing_redis(
    make_bot: MakeBot, fake_slack: FakeSlackApi, redis_flags: Callable[[], RedisFlags]
) -> None:
    """Two app processes on one Redis: a delivery and its retry, one to each, answer once."""
    script = [tool_call("add_task", title="Buy milk"), "Added #1."]
    one = await make_bot(list(script), flags=redis_flags())
    two = await make_bot(list(script), flags=redis_flags())
    body = app_mention(f"<@{BOT_USER}> add milk")
    assert await one.event(body) == 200
    assert await two.event(body, retry_num=1) == 200
    await settle()
    assert _replies(fake_slack) == ["Added #1."]
    assert len((await one.state(None, scope="channel"))["tasks"]) == 1
    assert one.model.remaining + two.model.remaining == len(script)


async def test_message_not_for_the_bot_is_ignored(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """A channel message without a mention, outside the bot's threads, gets no answer."""
    bot = await make_bot()
    assert await bot.event(message("lunch?", ts="1700000900.000100")) == 200
    await settle()
    assert fake_slack.named("chat.postMessage") == []
    assert bot.model.requests == []


async def test_rate_limited_post_is_retried(make_bot: MakeBot, fake_slack: FakeSlackApi) -> None:
    """A 429 with Retry-After from chat.postMessage is waited out and the reply arrives."""
    bot = await make_bot(["Nothing to do."])
    fake_slack.fail_once("chat.postMessage", 429, retry_after=0)
    await bot.event(app_mention(f"<@{BOT_USER}> hello"))
    await fake_slack.wait_for(lambda f: len(f.named("chat.postMessage")) == 2)
    await settle()
    posts = fake_slack.named("chat.postMessage")
    assert [p.params["text"] for p in posts] == ["Nothing to do.", "Nothing to do."]
    assert bot.model.remaining == 0


async def test_long_reply_is_chunked_in_thread(make_bot: MakeBot, fake_slack: FakeSlackApi) -> None:
    """A reply longer than Slack's limit arrives as several in-thread messages, in order."""
    paragraphs = [f"Paragraph {i}: " + "word " * 150 for i in range(12)]
    long_text = "\n\n".join(p.strip() for p in paragraphs)
    bot = await make_bot([long_text])
    await bot.event(app_mention(f"<@{BOT_USER}> tell me everything"))
    await settle()
    parts = _replies(fake_slack)
    assert len(parts) >= 3
    assert all(len(p) <= 3000 for p in parts)
    assert {c.params["thread_ts"] for c in fake_slack.named("chat.postMessage")} == {TS}
    assert "\n\n".join(parts) == long_text


async def test_model_failure_gives_friendly_reply_and_keeps_state(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """A failing model yields a short apology in the thread; the board is unchanged."""
    from core.models.base import ModelError

    bot = await make_bot(
        [tool_call("add_task", title="Keep me"), "Added #1.", ModelError("upstream 502")]
    )
    await bot.event(app_mention(f"<@{BOT_USER}> add keep me"))
    await settle()
    before = await bot.state(None, scope="channel")
    reply_ts = "1700000200.000200"
    await bot.event(
        message(f"<@{BOT_USER}> and more", ts=reply_ts, thread_ts=TS, event_id="Ev0FAIL")
    )
    await settle()
    replies = _replies(fake_slack)
    assert len(replies) == 2
    assert (
        replies[1].startswith("Sorry, the model did not answer")
        and "Changes made before that are saved" in replies[1]
    )
    assert {c.params["thread_ts"] for c in fake_slack.named("chat.postMessage")} == {TS}
    assert await bot.state(None, scope="channel") == before


async def test_oversize_message_gets_clear_error(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """A mention longer than the configured limit is refused with a reply; no model call."""
    bot = await make_bot(statebot_max_message_chars=100)
    await bot.event(app_mention(f"<@{BOT_USER}> " + "x" * 500))
    await settle()
    assert "too long" in _replies(fake_slack)[0]
    assert bot.model.requests == []


async def test_direct_message_is_answered_without_thread(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """A DM needs no mention; the answer is a plain DM and the DM is one session."""
    from slack_payloads import DM_CHANNEL

    bot = await make_bot([tool_call("add_task", title="Private"), "Added #1."])
    dm = message("add private", ts="1700000500.000100", channel=DM_CHANNEL, channel_type="im")
    await bot.event(dm)
    await settle()
    post = fake_slack.named("chat.postMessage")[0].params
    assert post["channel"] == DM_CHANNEL and "thread_ts" not in post
    state = await bot.taskboard.aget_session_state(f"slack:T0TEAM001:{DM_CHANNEL}")
    assert [t["title"] for t in state["tasks"]] == ["Private"]


async def test_thread_the_bot_never_joined_is_ignored(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """A reply without mention in someone else's thread gets no answer."""
    bot = await make_bot()
    await bot.event(message("hm", ts="1700000600.000200", thread_ts="1700000600.000100"))
    await settle()
    assert fake_slack.named("chat.postMessage") == []
    assert bot.model.requests == []
