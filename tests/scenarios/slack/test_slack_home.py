"""The App Home tab: opening it publishes the user's open tasks across channels."""

from __future__ import annotations

import json
from typing import Any

from fakes.slack_api import FakeSlackApi
from slack_harness import MakeBot, settle
from slack_payloads import ALICE, BOB, CHANNEL, TEAM, slash_command

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
    lines = sorted(_texts(published.params))
    assert len(lines) == 2
    assert any(line.endswith(f"in <#{OTHER}>") and "Plan Q3" in line for line in lines)
    assert any(
        "Ship it · open · due " in line and line.endswith(f"in <#{CHANNEL}>") for line in lines
    )
    assert await bot.event(home_opened(BOB, event_id="Ev0HOME0002")) == 200
    await settle()
    assert _texts(fake_slack.named("views.publish")[-1].params) == [
        f"#2 Bo task · open · in <#{OTHER}>"
    ]


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
