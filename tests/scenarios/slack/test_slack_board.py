"""The clickable board on Slack: buttons run tools, the message updates in place, a modal adds."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from fakes.slack_api import FakeSlackApi
from slack_harness import MakeBot, SlackBot, settle
from slack_payloads import ALICE, CHANNEL, TEAM, slash_command

from bots.adapters.slack.board import FORM_ACTION, FORM_VIEW, ITEM_ACTION
from bots.chat.clicks import CLICK_STALE

KEY = f"slack:{TEAM}:{CHANNEL}"
BOARD_TS = "1700000300.000100"


async def _board(bot: SlackBot, titles: list[str]) -> None:
    tasks = [
        {"id": i, "title": t, "category": "work", "status": "open"}
        for i, t in enumerate(titles, start=1)
    ]
    await bot.taskboard.aupdate_session_state(
        {"tasks": tasks, "next_task_id": len(tasks) + 1}, session_id=KEY
    )


async def _list(bot: SlackBot, fake: FakeSlackApi, agent: str = "/taskboard") -> dict[str, Any]:
    """The board message as /<agent> list posted it (with the ts Slack gave it)."""
    await bot.command(slash_command(agent, "list", response_url=fake.response_url))
    await settle()
    answer = fake.response_urls[-1]
    return {"ts": BOARD_TS, "text": answer["text"], "blocks": answer["blocks"]}


def _buttons(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for b in blocks if b["type"] == "actions" for e in b["elements"]]


def _press(message: dict[str, Any], label: str, nth: int = 0, user: str = ALICE) -> dict[str, Any]:
    """The block_actions payload of pressing the nth button labelled ``label``."""
    button = [b for b in _buttons(message["blocks"]) if b["text"]["text"] == label][nth]
    return {
        "type": "block_actions",
        "user": {"id": user, "username": "ana", "name": "ana", "team_id": TEAM},
        "api_app_id": "A0APP0001",
        "token": "verification-token",
        "container": {"type": "message", "message_ts": message["ts"], "channel_id": CHANNEL},
        "trigger_id": "1234.5678.trigger",
        "team": {"id": TEAM, "domain": "example"},
        "channel": {"id": CHANNEL, "name": "general"},
        "message": {**message, "type": "message"},
        "response_url": "https://hooks.slack.com/actions/T0/1/abc",
        "actions": [
            {
                "action_id": button["action_id"],
                "block_id": "b",
                "text": button["text"],
                "value": button["value"],
                "type": "button",
                "action_ts": "1700000400.000100",
            }
        ],
    }


async def _send(bot: SlackBot, payload: dict[str, Any]) -> int:
    status, _ = await bot.post(
        urlencode({"payload": json.dumps(payload)}), "application/x-www-form-urlencoded"
    )
    await settle()
    return status


def _blocks(params: dict[str, Any]) -> list[dict[str, Any]]:
    blocks = params["blocks"]
    return json.loads(blocks) if isinstance(blocks, str) else blocks  # type: ignore[no-any-return]


def _sections(blocks: list[dict[str, Any]]) -> list[str]:
    return [b["text"]["text"] for b in blocks if b["type"] == "section"]


async def test_done_click_changes_state_and_updates_the_board(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """Done on #1 runs update_task_status; the same message is redrawn with who did what."""
    bot = await make_bot()
    await _board(bot, ["Write report", "Call Bo"])
    board = await _list(bot, fake_slack)
    assert [b["action_id"] for b in _buttons(board["blocks"])][:3] == [ITEM_ACTION] * 3
    assert await _send(bot, _press(board, "Done")) == 200
    state = await bot.state(None, scope="channel")
    assert [t["status"] for t in state["tasks"]] == ["done", "open"]
    update = fake_slack.named("chat.update")[-1].params
    assert update["channel"] == CHANNEL and update["ts"] == BOARD_TS
    blocks = _blocks(update)
    assert _sections(blocks) == ["#2 Call Bo (work) · open", "#1 Write report (work) · done"]
    note = next(b for b in blocks if b["type"] == "context")["elements"][0]["text"]
    assert note == f"<@{ALICE}>: Task #1 (Write report): open → done. · 2 tasks"
    assert not fake_slack.named("chat.postEphemeral")


async def test_delete_asks_first_and_a_stale_click_is_refused(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """Delete carries a confirmation; a click on a task deleted meanwhile changes nothing."""
    bot = await make_bot()
    await _board(bot, ["Write report", "Call Bo"])
    board = await _list(bot, fake_slack)
    delete = next(b for b in _buttons(board["blocks"]) if b["text"]["text"] == "Delete")
    assert delete["confirm"]["text"]["text"] == "Delete task #1 (Write report) for good?"
    assert await _send(bot, _press(board, "Delete")) == 200
    assert [t["id"] for t in (await bot.state(None, scope="channel"))["tasks"]] == [2]
    before = await bot.state(None, scope="channel")
    assert await _send(bot, _press(board, "Done")) == 200  # the old board still shows #1
    assert await bot.state(None, scope="channel") == before
    [refusal] = fake_slack.named("chat.postEphemeral")
    assert refusal.params["user"] == ALICE
    assert refusal.params["text"].startswith(CLICK_STALE)
    assert "There is no task #1" in refusal.params["text"]
    redrawn = _blocks(fake_slack.named("chat.update")[-1].params)
    assert _sections(redrawn) == ["#2 Call Bo (work) · open"]


async def test_add_task_modal_opens_and_its_submission_adds(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """Add task opens a modal (views.open); submitting it adds the task and redraws the board."""
    bot = await make_bot()
    await _board(bot, ["Write report"])
    board = await _list(bot, fake_slack)
    [add] = [b for b in _buttons(board["blocks"]) if b["action_id"] == FORM_ACTION]
    assert await _send(bot, _press(board, "Add task")) == 200
    [opened] = fake_slack.named("views.open")
    assert opened.params["trigger_id"] == "1234.5678.trigger"
    view = opened.params["view"]
    view = json.loads(view) if isinstance(view, str) else view
    assert view["callback_id"] == FORM_VIEW
    assert [b["block_id"] for b in view["blocks"]] == ["title", "category", "due"]
    submission = {
        "type": "view_submission",
        "team": {"id": TEAM, "domain": "example"},
        "user": {"id": ALICE, "username": "ana", "name": "ana", "team_id": TEAM},
        "api_app_id": "A0APP0001",
        "token": "verification-token",
        "trigger_id": "2222.3333.trigger",
        "view": {
            **view,
            "id": "V0FORM001",
            "state": {
                "values": {
                    "title": {"title": {"type": "plain_text_input", "value": "Plan Q3"}},
                    "category": {"category": {"type": "plain_text_input", "value": None}},
                    "due": {"due": {"type": "plain_text_input", "value": "friday"}},
                }
            },
        },
    }
    assert await _send(bot, submission) == 200
    tasks = (await bot.state(None, scope="channel"))["tasks"]
    assert [(t["title"], t["category"], "due" in t) for t in tasks] == [
        ("Write report", "work", False),
        ("Plan Q3", "general", True),
    ]
    update = fake_slack.named("chat.update")[-1].params
    assert update["ts"] == BOARD_TS
    assert _sections(_blocks(update))[1].startswith("#2 Plan Q3 (general) · open")
    assert add["value"]  # the button carried what the form runs


async def test_shopping_list_check_off(make_bot: MakeBot, fake_slack: FakeSlackApi) -> None:
    """Got it on an item removes it and redraws the list; a second press is stale."""
    bot = await make_bot()
    shopping = bot.service.agents["shopping"]
    await shopping.aupdate_session_state({"shopping_list": ["Milk", "Eggs"]}, session_id=KEY)
    board = await _list(bot, fake_slack, "/shopping")
    assert [b["text"]["text"] for b in _buttons(board["blocks"])] == [
        "Got it",
        "Got it",
        "Add item",
    ]
    assert await _send(bot, _press(board, "Got it")) == 200
    assert (await shopping.aget_session_state(KEY))["shopping_list"] == ["Eggs"]
    assert _sections(_blocks(fake_slack.named("chat.update")[-1].params)) == ["Eggs"]
    assert await _send(bot, _press(board, "Got it")) == 200
    assert fake_slack.named("chat.postEphemeral")[-1].params["text"].startswith(CLICK_STALE)


async def test_deleting_the_last_task_redraws_the_board_as_empty(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """Delete on the only task redraws the message as "No tasks" with the add button kept."""
    bot = await make_bot()
    await _board(bot, ["Write report"])
    board = await _list(bot, fake_slack)
    assert await _send(bot, _press(board, "Delete")) == 200
    assert (await bot.state(None, scope="channel"))["tasks"] == []
    update = fake_slack.named("chat.update")[-1].params
    assert update["ts"] == BOARD_TS
    blocks = _blocks(update)
    assert _sections(blocks) == []
    note = next(b for b in blocks if b["type"] == "context")["elements"][0]["text"]
    assert note == f"<@{ALICE}>: Removed task #1: Write report. · No tasks"
    assert [b["text"]["text"] for b in _buttons(blocks)] == ["Add task"]
    assert "#1 Write report" not in json.dumps(blocks)
