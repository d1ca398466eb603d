"""Addressing in followed threads: a message for another person is not answered."""

from __future__ import annotations

from fakes.slack_api import FakeSlackApi
from slack_harness import MakeBot, SlackBot, settle
from slack_payloads import BOT_USER, app_mention, message

ROOT = "1700000100.000100"


async def _follow_thread(bot: SlackBot, fake: FakeSlackApi) -> None:
    await bot.event(app_mention(f"<@{BOT_USER}> hello"))
    await settle()
    assert len(fake.named("chat.postMessage")) == 1


async def test_message_to_someone_else_in_followed_thread_is_left_alone(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """`<@W333> can you double-check this?` in the bot's thread gets no reply and no run."""
    bot = await make_bot(["Hi!", "should not be used"])
    await _follow_thread(bot, fake_slack)
    await bot.event(
        message(
            "<@W333> can you double-check this?",
            ts="1700000101.000100",
            thread_ts=ROOT,
            event_id="Ev02",
        )
    )
    await settle()
    assert len(fake_slack.named("chat.postMessage")) == 1
    assert bot.model.remaining == 1


async def test_mentioning_the_bot_and_others_is_answered_with_their_mention_kept(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """A follow-up naming the bot and a colleague is answered; only the bot's mention goes."""
    bot = await make_bot(["Hi!", "Sure."])
    await _follow_thread(bot, fake_slack)
    text = f"<@{BOT_USER}> ask <@W333> to review"
    await bot.event(app_mention(text, ts="1700000101.000100", thread_ts=ROOT, event_id="Ev02"))
    await settle()
    assert fake_slack.named("chat.postMessage")[-1].params["text"] == "Sure."
    # the bot's mention is gone, W333's stays (however the history layer renders it)
    seen = str(bot.model.requests[-1].messages[-1].content).lower()
    assert "w333" in seen and "to review" in seen and BOT_USER.lower() not in seen


async def test_skipping_others_mentions_can_be_turned_off(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """STATEBOT_SLACK_SKIP_OTHERS_MENTIONS=false answers every message in followed threads."""
    bot = await make_bot(["Hi!", "Checked."], statebot_slack_skip_others_mentions=False)
    await _follow_thread(bot, fake_slack)
    await bot.event(
        message("<@W333> double-check?", ts="1700000101.000100", thread_ts=ROOT, event_id="Ev02")
    )
    await settle()
    assert fake_slack.named("chat.postMessage")[-1].params["text"] == "Checked."
