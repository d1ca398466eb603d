"""State governance on Slack: history names people, restore asks and confirms once, undo."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from fakes.slack_api import FakeSlackApi
from slack_harness import MakeBot, SlackBot, settle
from slack_payloads import ALICE, BOB, CHANNEL, TEAM, slash_command

from bots.inbound import SlashCommand

CHANNEL_SESSION = f"slack:{TEAM}:{CHANNEL}"
ADMIN = "U0ADMIN01"  # the admin the scenario conftest configures


async def _setup(bot: SlackBot, *commands: tuple[str, str]) -> None:
    """Changes made before the scenario (through the service, sparing the response_url)."""
    for user, text in commands:
        cmd = SlashCommand("slack", TEAM, CHANNEL, None, user, "taskboard", text, f"Ev-{text}")
        await bot.service.handle_command(cmd)


def _blocks(answer: dict[str, Any]) -> list[dict[str, Any]]:
    blocks = answer["blocks"]
    return json.loads(blocks) if isinstance(blocks, str) else list(blocks)


def _click(answer: dict[str, Any], label: str, user: str, response_url: str) -> dict[str, Any]:
    """The block_actions payload Slack sends for a button on an ephemeral message."""
    [button] = [
        e
        for b in _blocks(answer)
        if b["type"] == "actions"
        for e in b["elements"]
        if e["text"]["text"] == label
    ]
    return {
        "type": "block_actions",
        "user": {"id": user, "username": "x", "name": "x", "team_id": TEAM},
        "api_app_id": "A0APP0001",
        "token": "verification-token",
        "container": {
            "type": "message",
            "message_ts": "1700000300.000100",
            "channel_id": CHANNEL,
            "is_ephemeral": True,
        },
        "trigger_id": "1234.5678.efgh",
        "team": {"id": TEAM, "domain": "example"},
        "channel": {"id": CHANNEL, "name": "general"},
        "response_url": response_url,
        "actions": [
            {
                "action_id": button["action_id"],
                "block_id": "statebot_approval",
                "text": button["text"],
                "value": button["value"],
                "type": "button",
                "action_ts": "1700000301.000100",
            }
        ],
    }


async def _press(bot: SlackBot, payload: dict[str, Any]) -> None:
    raw = urlencode({"payload": json.dumps(payload)})
    status, _ = await bot.post(raw, "application/x-www-form-urlencoded")
    assert status == 200
    await settle()


async def test_history_names_two_users_as_slack_mentions(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """/state history shows who changed what, as <@U…> references, privately."""
    bot = await make_bot()
    await _setup(bot, (ALICE, "add Milk"), (BOB, "status 1 done"))
    url = fake_slack.response_url
    await bot.command(slash_command("/state", "history", user_id=ADMIN, response_url=url))
    await settle()
    answer = fake_slack.response_urls[-1]
    assert answer["response_type"] == "ephemeral"
    lines = answer["text"].splitlines()
    assert lines[1].startswith(f"• v2 <@{BOB}> used update_task_status")
    assert lines[2].startswith(f"• v1 <@{ALICE}> used add_task")


async def test_restore_confirm_applies_once_and_replaces_the_question(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """Confirm restores v1 (the question gives way to the outcome); a replayed click does not."""
    bot = await make_bot()
    await _setup(bot, (ALICE, "add One"), (ALICE, "add Two"))
    url = fake_slack.response_url
    await bot.command(slash_command("/state", "restore v1", user_id=ADMIN, response_url=url))
    await settle()
    question = fake_slack.response_urls[-1]
    assert question["response_type"] == "ephemeral"
    assert [e["text"]["text"] for e in _blocks(question)[1]["elements"]] == ["Confirm", "Cancel"]
    await _press(bot, _click(question, "Confirm", ADMIN, url))
    outcome = fake_slack.response_urls[-1]
    assert outcome["replace_original"] is True and outcome["text"].startswith("Restored")
    assert [t["title"] for t in (await bot.state(None))["tasks"]] == ["One"]
    await _press(bot, _click(question, "Confirm", ADMIN, url))
    assert fake_slack.response_urls[-1]["text"].startswith("Already done")
    assert [t["title"] for t in (await bot.state(None))["tasks"]] == ["One"]


async def test_restore_cancel_and_a_non_admin_click_change_nothing(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """A non-admin's Confirm is refused, an admin's Cancel does nothing: both say so."""
    bot = await make_bot()
    await _setup(bot, (ALICE, "add One"), (ALICE, "add Two"))
    url = fake_slack.response_url
    await bot.command(slash_command("/state", "restore v1", user_id=ADMIN, response_url=url))
    await settle()
    question = fake_slack.response_urls[-1]
    await _press(bot, _click(question, "Confirm", BOB, url))
    assert "Only an admin" in fake_slack.response_urls[-1]["text"]
    await _press(bot, _click(question, "Cancel", ADMIN, url))
    assert fake_slack.response_urls[-1]["text"].startswith("Cancelled by")
    assert [t["title"] for t in (await bot.state(None))["tasks"]] == ["One", "Two"]


async def test_undo_command_takes_back_the_callers_change(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """/taskboard undo by Bob reverts Bob's change, in the channel, with his name."""
    bot = await make_bot()
    await _setup(bot, (ALICE, "add Milk"), (BOB, "status 1 done"))
    url = fake_slack.response_url
    await bot.command(slash_command("/taskboard", "undo", user_id=BOB, response_url=url))
    await settle()
    answer = fake_slack.response_urls[-1]
    assert answer["response_type"] == "in_channel"
    assert answer["text"].startswith(f"Undone <@{BOB}>'s change v2")
    assert [t["status"] for t in (await bot.state(None))["tasks"]] == ["open"]


async def test_erase_asks_with_the_users_name_and_confirm_erases(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """/state erase <@U…> asks (the user shown as a mention); Confirm erases their session."""
    bot = await make_bot()
    await _setup(bot, (BOB, "add Secret"))
    url = fake_slack.response_url
    text = f"erase <@{BOB}>"
    await bot.command(slash_command("/state", text, user_id=ADMIN, response_url=url))
    await settle()
    question = fake_slack.response_urls[-1]
    section = _blocks(question)[0]["text"]
    assert section["type"] == "mrkdwn" and f"<@{BOB}>" in section["text"]
    await _press(bot, _click(question, "Confirm", ADMIN, url))
    outcome = fake_slack.response_urls[-1]["text"]
    assert outcome.startswith(f"Erased `slack:{TEAM}:{BOB}`") and "1 own session deleted" in outcome
    assert await bot.taskboard.db.aload(CHANNEL_SESSION) is None  # type: ignore[union-attr]
