"""Slack Socket Mode end to end: a real websocket on loopback, served by the fake API.

``apps.connections.open`` at the fake hands slack_sdk's aiohttp SocketModeClient a
``ws://127.0.0.1`` URL on the same server; the fake pushes envelopes the way Slack
does and records the client's acknowledgements, so bolt's AsyncSocketModeHandler
runs unmodified.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from fakes.slack_api import FakeSlackApi
from slack_bolt.adapter.socket_mode.aiohttp import AsyncSocketModeHandler
from slack_harness import settle
from slack_payloads import BOT_USER, CHANNEL, app_mention

from bots.adapters.slack.flags import MemoryFlags
from bots.adapters.slack.send import web_client
from bots.adapters.slack.server import build_slack_app, socket_mode_handler
from bots.app.service import chat_service
from bots.chat.service import ChatService
from bots.settings import Settings
from core.db.in_memory import InMemoryDb
from core.testing import ScriptedModel, tool_call
from tools.catalog import COMMAND_ALIASES, create_agents

TS = "1700000100.000100"


@pytest.fixture
async def socket_bot(
    fake_slack: FakeSlackApi,
) -> AsyncIterator[tuple[AsyncSocketModeHandler, ChatService]]:
    """A connected Socket Mode handler for a taskboard service (no signing secret)."""
    model = ScriptedModel([tool_call("add_task", title="Socket task"), "Added #1."])
    service = chat_service(
        create_agents(model, InMemoryDb()), settings=Settings(), aliases=COMMAND_ALIASES
    )
    app = build_slack_app(
        service=service,
        client=web_client("xoxb-test-token", fake_slack.base_url),
        flags=MemoryFlags(),
        signing_secret=None,
    )
    handler = socket_mode_handler(app, "xapp-1-test")
    await handler.connect_async()
    yield handler, service
    await settle()
    await handler.close_async()


async def test_socket_mode_envelope_is_acked_and_answered(
    socket_bot: tuple[AsyncSocketModeHandler, ChatService], fake_slack: FakeSlackApi
) -> None:
    """An events_api envelope is acknowledged by envelope_id, then answered in thread."""
    _, service = socket_bot
    opened = fake_slack.named("apps.connections.open")
    assert opened and opened[0].headers["Authorization"] == "Bearer xapp-1-test"
    ack = await fake_slack.send_envelope(
        {
            "envelope_id": "57d6a792-4d35-4d0b-b6aa-3361493e1caf",
            "payload": app_mention(f"<@{BOT_USER}> add the socket task"),
            "type": "events_api",
            "accepts_response_payload": False,
            "retry_attempt": 0,
            "retry_reason": "",
        }
    )
    assert ack == {"envelope_id": "57d6a792-4d35-4d0b-b6aa-3361493e1caf"}
    await fake_slack.wait_for(lambda f: f.named("chat.postMessage"))
    post = fake_slack.named("chat.postMessage")[0].params
    assert (post["channel"], post["thread_ts"], post["text"]) == (CHANNEL, TS, "Added #1.")
    state = await service.agents["taskboard"].aget_session_state(f"slack:T0TEAM001:{CHANNEL}")
    assert [t["title"] for t in state["tasks"]] == ["Socket task"]
