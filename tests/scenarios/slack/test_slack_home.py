"""The App Home tab: opening it publishes the user's open tasks across channels."""

from __future__ import annotations

import json
from typing import Any

from fakes.slack_api import FakeSlackApi
from slack_harness import MakeBot, settle
from slack_payloads import ALICE, BOB, BOT_USER, CHANNEL, TEAM, app_mention, slash_command

from core.testing import tool_call

OTHER = "C0RANDOM1"


def home_opened(user: str, event_id: str = "Ev0HOME0001", tab: str = "home") -> dict[str, Any]:
    """An ``app_home_opened`` event_callback body as Slack sends it."""
    return {
        "token": "XXYYZZ",
        "team_id": TEAM,
        "api_app_id": "A0APP0001",
        "event": {
            "type": "app_home_opened",
            "user": user,
            "channel": "D0HOME0001",
            "tab": tab,
            "event_ts": "1700000500.000100",
        },
        "type": "event_callback",
        "event_id": event_id,
        "event_time": 1700000500,
        "authorizations": [
            {"enterprise_id": None, "team_id": TEAM, "user_id": "U0BOT0001", "is_bot": True}
        ],
    }


def _texts(params: dict[str, Any]) -> list[str]:
    view = params["view"]
    view = json.loads(view) if isinstance(view, str) else view
    assert view["type"] == "home"
    return [b["text"]["text"] for b in view["blocks"] if b["type"] == "section"]


async def test_home_tab_lists_my_open_tasks_across_channels(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """Ana's tasks in two channels are on her Home tab; done ones and Bo's are not."""
    bot = await make_bot()
    url = fake_slack.response_url
    for text, channel, user in [
        ('add "Ship it" work due="friday"', CHANNEL, ALICE),
        ('add "Old one"', CHANNEL, ALICE),
        ("status 2 done", CHANNEL, ALICE),
        ('add "Plan Q3"', OTHER, ALICE),
        ('add "Bo task"', OTHER, BOB),
    ]:
        await bot.command(
            slash_command("/taskboard", text, response_url=url, channel_id=channel, user_id=user)
        )
        await settle()
    assert await bot.event(home_opened(ALICE)) == 200
    await settle()
    [published] = fake_slack.named("views.publish")
    assert published.params["user_id"] == ALICE
    boards = _texts(published.params)
    assert len(boards) == 2  # one section per board, its tasks under it
    [other] = [b for b in boards if b.startswith(f"*<#{OTHER}>*")]
    assert "Plan Q3" in other
    [mine] = [b for b in boards if b.startswith(f"*<#{CHANNEL}>*")]
    assert "Ship it · open · due " in mine and "Old one" not in mine
    assert await bot.event(home_opened(BOB, event_id="Ev0HOME0002")) == 200
    await settle()
    assert _texts(fake_slack.named("views.publish")[-1].params) == [
        f"*<#{OTHER}>*\n• #2 Bo task · open"
    ]


async def test_home_tab_names_each_board_and_links_thread_boards(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """Thread boards (thread scope) are separate entries linked to their thread, never mixed."""
    bot = await make_bot(
        [
            tool_call("add_task", title="In first"),
            "ok",
            tool_call("add_task", title="In second"),
            "ok",
        ],
        scopes={"taskboard": "thread"},
    )
    for ts, text, event_id in [
        ("1700000301.000100", "add first", "Ev0T1"),
        ("1700000302.000100", "add second", "Ev0T2"),
    ]:
        await bot.event(app_mention(f"<@{BOT_USER}> {text}", ts=ts, event_id=event_id))
        await settle()
    assert await bot.event(home_opened(ALICE)) == 200
    await settle()
    boards = _texts(fake_slack.named("views.publish")[-1].params)
    assert len(boards) == 2
    for ts, title in [("1700000301.000100", "In first"), ("1700000302.000100", "In second")]:
        [board] = [b for b in boards if title in b]
        link = f"https://example.slack.com/archives/{CHANNEL}/p{ts.replace('.', '')}"
        assert board.startswith(f"*<{link}|A thread> in <#{CHANNEL}>*"), board
        assert board.count("#1 ") == 1
    asked = [c.params for c in fake_slack.named("chat.getPermalink")]
    assert {p["message_ts"] for p in asked} == {"1700000301.000100", "1700000302.000100"}


async def test_home_tab_without_tasks_says_so(make_bot: MakeBot, fake_slack: FakeSlackApi) -> None:
    """A user with no tasks gets a Home tab saying so; the messages tab publishes nothing."""
    bot = await make_bot()
    await bot.event(home_opened(ALICE, tab="messages"))
    await settle()
    assert not fake_slack.named("views.publish")
    await bot.event(home_opened(ALICE, event_id="Ev0HOME0003"))
    await settle()
    [text] = _texts(fake_slack.named("views.publish")[-1].params)
    assert text.startswith("Nothing on your plate")
