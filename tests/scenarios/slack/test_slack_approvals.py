"""Approve / Reject on Slack: buttons posted, the click resumes the run in another instance."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import aiohttp
from fakes.slack_api import FakeSlackApi
from slack_harness import SlackBot, settle, start_bot
from slack_payloads import ALICE, BOB, BOT_USER, CHANNEL, TEAM, app_mention

from bots.adapters.slack.flags import MemoryFlags
from bots.app.service import chat_service
from bots.chat.approvals import ALREADY, NOT_YOURS
from bots.settings import Settings
from core.agent import Agent
from core.db.sqlite import SqliteDb
from core.testing import ScriptedModel, tool_call
from core.tools import tool

ROOT = "1700000100.000100"


@tool(requires_confirmation=True)
def clear_board(session_state: dict[str, Any], keep: int = 0) -> str:
    """Delete every task but the first ``keep``."""
    session_state["tasks"] = session_state.get("tasks", [])[:keep]
    return f"cleared, kept {keep}"


async def _bot(
    fake: FakeSlackApi, db_file: Path, http: aiohttp.ClientSession, turns: list[Any]
) -> SlackBot:
    model = ScriptedModel(turns)
    agent = Agent(
        model=model,
        db=SqliteDb(db_file=str(db_file)),
        tools=[clear_board],
        id="board",
        session_state={"tasks": ["a", "b"]},
    )
    settings = Settings(statebot_default_agent="board", redis_url=None)
    service = chat_service({"board": agent}, settings=settings)
    return await start_bot(fake, service, model, MemoryFlags(), http)


def block_actions(message: dict[str, Any], action_id: str, user: str) -> dict[str, Any]:
    """A block_actions payload as Slack documents it (interactivity request)."""
    [button] = [
        e
        for b in message["blocks"]
        if b["type"] == "actions"
        for e in b["elements"]
        if e["action_id"] == action_id
    ]
    return {
        "type": "block_actions",
        "user": {"id": user, "username": "ana", "name": "ana", "team_id": TEAM},
        "api_app_id": "A0APP0001",
        "token": "verification-token",
        "container": {"type": "message", "message_ts": message["ts"], "channel_id": CHANNEL},
        "trigger_id": "1234.5678.abcd",
        "team": {"id": TEAM, "domain": "example"},
        "channel": {"id": CHANNEL, "name": "general"},
        "message": {**message, "type": "message", "thread_ts": ROOT},
        "response_url": "https://hooks.slack.com/actions/T0/1/abc",
        "actions": [
            {
                "action_id": action_id,
                "block_id": "statebot_approval",
                "text": button["text"],
                "value": button["value"],
                "type": "button",
                "action_ts": "1700000200.000100",
            }
        ],
    }


async def click(bot: SlackBot, payload: dict[str, Any]) -> int:
    """Deliver an interactivity payload (form-encoded ``payload=``); the ack's status."""
    status, _ = await bot.post(
        urlencode({"payload": json.dumps(payload)}), "application/x-www-form-urlencoded"
    )
    return status


async def test_approval_round_trip_across_two_instances(
    fake_slack: FakeSlackApi, tmp_path: Path
) -> None:
    """Buttons name the call; Bob may not decide; Ana's click on instance B runs it; twice: no."""
    async with aiohttp.ClientSession() as http:
        first = await _bot(fake_slack, tmp_path / "s.db", http, [tool_call("clear_board", keep=1)])
        second = await _bot(fake_slack, tmp_path / "s.db", http, ["Cleared; #1 kept."])
        try:
            await first.event(app_mention(f"<@{BOT_USER}> clear the board"))
            await settle()
            [asked] = [c.params for c in fake_slack.named("chat.postMessage")]
            blocks = (
                json.loads(asked["blocks"]) if isinstance(asked["blocks"], str) else asked["blocks"]
            )
            assert asked["text"] == 'Approve clear_board({"keep": 1})?'
            assert [e["action_id"] for e in blocks[1]["elements"]] == [
                "statebot_approve",
                "statebot_reject",
            ]
            message = {"ts": "1700000000.000001", "blocks": blocks, "text": asked["text"]}
            assert await click(second, block_actions(message, "statebot_approve", BOB)) == 200
            await settle()
            assert fake_slack.named("chat.postEphemeral")[-1].params["text"] == NOT_YOURS
            assert await click(second, block_actions(message, "statebot_approve", ALICE)) == 200
            await settle()
            update = fake_slack.named("chat.update")[-1].params
            assert update["text"] == f"Approved by <@{ALICE}>."
            assert fake_slack.named("chat.postMessage")[-1].params["text"] == "Cleared; #1 kept."
            state = await second.service.agents["board"].aget_session_state(
                f"slack:{TEAM}:{CHANNEL}:{ROOT}"
            )
            assert state == {"tasks": ["a"]}
            assert await click(first, block_actions(message, "statebot_reject", ALICE)) == 200
            await settle()
            assert fake_slack.named("chat.postEphemeral")[-1].params["text"] == ALREADY
        finally:
            for bot in (first, second):
                await bot.server.stop()
