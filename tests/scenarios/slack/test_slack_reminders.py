"""Reminders on Slack: set in a thread or by slash command, fired later into that thread."""

from __future__ import annotations

import time
from datetime import datetime
from zoneinfo import ZoneInfo

from fakes.slack_api import FakeSlackApi
from slack_harness import MakeBot, SlackBot, settle
from slack_payloads import BOT_USER, CHANNEL, TEAM, app_mention, slash_command

from bots.app.build import build_scheduler
from core.schedule import Schedule, schedule_store
from core.testing import tool_call

ROOT = "1700000100.000100"
THREAD_KEY = f"slack:{TEAM}:{CHANNEL}:{ROOT}"
CHANNEL_KEY = f"slack:{TEAM}:{CHANNEL}"
LATER = 3 * 3600  # seconds past every reminder these tests set


async def _board(bot: SlackBot, session_id: str, status: str = "open") -> None:
    task = {"id": 1, "title": "Ship", "category": "work", "status": status}
    await bot.taskboard.aupdate_session_state({"tasks": [task], "next_task_id": 2}, session_id)


async def _schedules(bot: SlackBot, session_id: str) -> list[Schedule]:
    return await schedule_store(bot.taskboard.db).alist(session_id)  # type: ignore[arg-type]


async def _command(bot: SlackBot, fake: FakeSlackApi, text: str) -> str:
    """Run ``/taskboard text`` to the end; its answer."""
    await bot.command(slash_command("/taskboard", text, response_url=fake.response_url))
    await settle()
    return str(fake.response_urls[-1]["text"])


async def _fire_later(bot: SlackBot) -> int:
    """One scheduler poll, its clock three hours ahead (no waiting)."""
    scheduler = build_scheduler(bot.service, bot.taskboard.db, clock=lambda: time.time() + LATER)  # type: ignore[arg-type]
    return await scheduler.run_once()


async def test_reminder_set_in_a_thread_is_posted_into_that_thread(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """The model's remind call stores the thread and Ana's timezone; the firing posts there."""
    bot = await make_bot(
        [tool_call("remind", task_id=1, when="in 2 hours"), "Reminder set."],
        scopes={"taskboard": "thread"},  # the board of that thread
    )
    await _board(bot, THREAD_KEY)
    mention = app_mention(
        f"<@{BOT_USER}> remind me about #1 in 2 hours", thread_ts=ROOT, ts="1700000200.000200"
    )
    await bot.event(mention)
    await settle()
    [scheduled] = await _schedules(bot, THREAD_KEY)
    assert scheduled.target == {
        "platform": "slack",
        "workspace": TEAM,
        "channel": CHANNEL,
        "thread": ROOT,
    }
    assert scheduled.tz == "Europe/Madrid"  # from users.info, not the UTC default
    before = len(fake_slack.named("chat.postMessage"))
    assert await _fire_later(bot) == 1
    [posted] = fake_slack.named("chat.postMessage")[before:]
    assert posted.params["channel"] == CHANNEL and posted.params["thread_ts"] == ROOT
    assert posted.params["text"] == "⏰ Reminder: task #1 Ship (open)."
    assert await _schedules(bot, THREAD_KEY) == []
    assert "reminders" not in (await bot.state(ROOT))["tasks"][0]


async def test_reminder_reads_the_state_at_fire_time(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """A task finished meanwhile (here by an edit that bypassed the tools) is reported done."""
    bot = await make_bot(
        [tool_call("remind", task_id=1, when="in 1 hour"), "Set."], scopes={"taskboard": "thread"}
    )
    await _board(bot, THREAD_KEY)
    await bot.event(app_mention(f"<@{BOT_USER}> remind me", thread_ts=ROOT, ts="1700000200.000300"))
    await settle()
    await bot.taskboard.aupdate_session_state(
        {"tasks": [{"id": 1, "title": "Ship", "category": "work", "status": "done"}]}, THREAD_KEY
    )
    assert await _fire_later(bot) == 1
    posted = fake_slack.named("chat.postMessage")[-1].params
    assert posted["thread_ts"] == ROOT
    assert posted["text"] == "Reminder: task #1 (Ship) is already done."


async def test_remind_and_due_slash_commands(make_bot: MakeBot, fake_slack: FakeSlackApi) -> None:
    """/taskboard remind 1 in 2h and /taskboard due 1 friday; the reminder posts in the channel."""
    bot = await make_bot()
    await _board(bot, CHANNEL_KEY)
    texts = [
        await _command(bot, fake_slack, text)
        for text in ("remind 1 in 2h", "due 1 friday", "remind 1 whenever")
    ]
    assert texts[0].startswith("I will remind you about task #1 (Ship) on ")
    assert texts[1].startswith("Task #1 (Ship) is due Fri ")
    assert "could not read 'whenever'" in texts[2] and "Nothing was changed" in texts[2]
    assert len(await _schedules(bot, CHANNEL_KEY)) == 1
    assert await _fire_later(bot) == 1
    posted = fake_slack.named("chat.postMessage")[-1].params
    assert posted["channel"] == CHANNEL and not posted.get("thread_ts")
    assert posted["text"].startswith("⏰ Reminder: task #1 Ship (open, due Fri ")


async def test_done_cancels_and_other_platforms_are_left_alone(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """Done cancels the reminder; a Discord session's schedule is not claimed by Slack."""
    bot = await make_bot()
    await _board(bot, CHANNEL_KEY)
    await _command(bot, fake_slack, "remind 1 in 1 hour")
    done = await _command(bot, fake_slack, "status 1 done")
    assert done.endswith("Its reminder was cancelled.")
    assert await _schedules(bot, CHANNEL_KEY) == []
    discord_key = "discord:G1:C1:TH1"
    await _board(bot, discord_key)
    await bot.taskboard.arun_tool(
        "remind", {"task_id": 1, "when": "in 1 hour"}, session_id=discord_key, user_id="u"
    )
    posts = len(fake_slack.named("chat.postMessage"))
    assert await _fire_later(bot) == 0
    assert len(await _schedules(bot, discord_key)) == 1  # left for a Discord process
    assert len(fake_slack.named("chat.postMessage")) == posts


async def test_slash_command_times_are_read_in_the_users_timezone(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """/taskboard remind and due read the caller's clock (users.info), not the UTC default."""
    bot = await make_bot()
    await _board(bot, CHANNEL_KEY)
    await _command(bot, fake_slack, "remind 1 tomorrow 9am")
    [scheduled] = await _schedules(bot, CHANNEL_KEY)
    assert scheduled.tz == "Europe/Madrid"
    assert scheduled.target == {
        "platform": "slack",
        "workspace": TEAM,
        "channel": CHANNEL,
        "thread": None,
    }
    due_at = datetime.fromtimestamp(scheduled.due_at, ZoneInfo("Europe/Madrid"))
    assert (due_at.hour, due_at.minute) == (9, 0)  # 9am in Madrid, not 9am UTC
