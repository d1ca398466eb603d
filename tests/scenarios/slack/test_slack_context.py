"""Slack turns reach the model with the thread's history and people's names from users.info."""

from __future__ import annotations

from fakes.slack_api import FakeSlackApi
from slack_harness import MakeBot, settle
from slack_payloads import BOB, BOT_USER, app_mention, message

ROOT = "1700000100.000100"


async def test_follow_up_sees_thread_and_names(make_bot: MakeBot, fake_slack: FakeSlackApi) -> None:
    """Ana's question and the answer precede Bo's follow-up, each named; users.info cached."""
    bot = await make_bot(["Hi Ana.", "Ana said hello."])
    await bot.event(app_mention(f"<@{BOT_USER}> hello, ask <@{BOB}>"))
    await settle()
    await bot.event(
        message(
            "what did she say?", ts="1700000101.000100", thread_ts=ROOT, user=BOB, event_id="Ev02"
        )
    )
    await settle()
    turns = [(m.role, m.content) for m in bot.model.requests[-1].messages if m.role != "system"]
    alice_key = "slack:T0TEAM001:U0ALICE01"
    assert turns == [
        ("user", f"{alice_key}: Ana: hello, ask @Bo"),
        ("assistant", "Hi Ana."),
        ("user", "Bo: what did she say?"),
    ]
    # Ana once, Bo once (as a mention, then cached as an author)
    assert sorted(c.params["user"] for c in fake_slack.named("users.info")) == [
        "U0ALICE01",
        BOB,
    ]
