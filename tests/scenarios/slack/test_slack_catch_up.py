"""Slack thread catch-up: a first mention in a thread reads it (conversations.replies), once."""

from __future__ import annotations

from typing import Any

from fakes.slack_api import BOT_ID, FakeSlackApi
from slack_harness import MakeBot, settle
from slack_payloads import ALICE, BOB, BOT_USER, CHANNEL, app_mention

PARENT = "1700000200.000100"
THREAD = [  # as conversations.replies lists a thread: parent first, oldest first
    {"user": ALICE, "text": "billing is failing since 02:00", "ts": PARENT},
    {"user": BOB, "text": f"<@{ALICE}> which region? see <#C0GENERAL>", "ts": "1700000201.000100"},
    {"subtype": "channel_join", "user": "U0NEW0001", "text": "joined", "ts": "1700000202.000100"},
    {"bot_id": BOT_ID, "user": BOT_USER, "text": "Noted earlier.", "ts": "1700000203.000100"},
    {"user": ALICE, "text": "eu-west only", "ts": "1700000204.000100"},
]
MENTION_TS = "1700000210.000100"


def _mention(text: str, *, ts: str, user: str = BOB, event_id: str) -> dict[str, Any]:
    return app_mention(
        f"<@{BOT_USER}> {text}", ts=ts, thread_ts=PARENT, user=user, event_id=event_id
    )


def _posted(fake: FakeSlackApi, text: str) -> bool:
    return any(t.startswith(text) for t in fake.posted_texts())


def _user_messages(bot: Any, request: int = -1) -> list[str]:
    return [str(m.content) for m in bot.model.requests[request].messages if m.role == "user"]


async def test_first_mention_reads_the_thread_once(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """Names resolved, mentions readable, joins left out; not again, not after a restart."""
    fake_slack.threads.add(CHANNEL, [dict(m) for m in THREAD])
    bot = await make_bot(["Looking at eu-west.", "Still eu-west."], scopes={"taskboard": "thread"})
    await bot.event(_mention("what is wrong?", ts=MENTION_TS, event_id="Ev0CATCH01"))
    await settle()
    caught_up, question = _user_messages(bot)
    assert caught_up.splitlines() == [
        "Earlier messages in this thread, before you were asked (oldest first):",
        "Ana: billing is failing since 02:00",
        "Bo: @Ana which region? see #general",
        "You: Noted earlier.",
        "Ana: eu-west only",
    ]
    assert question == "Bo: what is wrong?"
    (call,) = fake_slack.named("conversations.replies")
    assert call.params["ts"] == PARENT and call.params["latest"] == MENTION_TS
    assert call.params["channel"] == CHANNEL
    assert _posted(fake_slack, "Looking at eu-west.")

    await bot.event(_mention("and now?", ts="1700000220.000100", event_id="Ev0CATCH02"))
    await settle()
    assert len(fake_slack.named("conversations.replies")) == 1  # the thread was seen
    assert not any("Earlier messages" in text for text in _user_messages(bot))

    restarted = await make_bot(["Again."], scopes={"taskboard": "thread"})  # same store
    await restarted.event(_mention("again?", ts="1700000230.000100", event_id="Ev0CATCH03"))
    await settle()
    assert len(fake_slack.named("conversations.replies")) == 1
    assert _posted(fake_slack, "Again.")


async def test_catch_up_of_a_long_thread_is_bounded(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """250 earlier messages: two pages read, the latest 20 kept, then cut to the characters."""
    long = [
        {"user": ALICE, "text": f"note {n:03d}", "ts": f"1700000{n:03d}.000100"} for n in range(250)
    ]
    parent = fake_slack.threads.add(CHANNEL, long)
    bot = await make_bot(
        ["ok"], scopes={"taskboard": "thread"}, statebot_catch_up=20, statebot_catch_up_chars=100
    )
    mention = app_mention(
        f"<@{BOT_USER}> sum up", ts="1700000900.000100", thread_ts=parent, event_id="Ev0LONG01"
    )
    await bot.event(mention)
    await settle()
    assert [c.params.get("cursor") for c in fake_slack.named("conversations.replies")] == [
        None,
        "200",
    ]
    lines = _user_messages(bot)[0].splitlines()
    assert lines[1:] == [f"Ana: note {n}" for n in range(243, 250)]  # 7 x 14 chars <= 100
    assert lines[0].endswith("; 13 older not shown):")


async def test_a_top_level_mention_and_a_refused_listing_run_without_catch_up(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """A message that starts its thread makes no call; a refused call still gets an answer."""
    bot = await make_bot(["Hi.", "Answered."], scopes={"taskboard": "thread"})
    await bot.event(app_mention(f"<@{BOT_USER}> hello", ts="1700000300.000100", event_id="Ev0TOP1"))
    await settle()
    assert fake_slack.named("conversations.replies") == []
    fake_slack.fail_with("conversations.replies", "missing_scope")
    fake_slack.threads.add(CHANNEL, [dict(m) for m in THREAD])
    await bot.event(_mention("status?", ts=MENTION_TS, event_id="Ev0REFUSED1"))
    await settle()
    assert len(fake_slack.named("conversations.replies")) == 1
    assert _posted(fake_slack, "Answered.")
    assert _user_messages(bot) == ["Bo: status?"]
