"""A reminder set in a channel's reply chain fires into that chain, through the SDK."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from bots.adapters.teams.server import Endpoint, assemble
from bots.adapters.teams.settings import TeamsSettings
from bots.app.build import build_scheduler
from bots.app.service import chat_service
from bots.keys import escape
from bots.ops.flags import MemoryFlags
from bots.settings import Settings
from core.agent import Agent
from core.db.sqlite import SqliteDb
from core.schedule import schedule_store
from core.testing import ScriptedModel, tool_call
from tests.bots.adapters.teams.fake_connector import FakeConnector, route_jwks
from tests.bots.adapters.teams.harness import LocalTokens, Running
from tests.bots.adapters.teams.payloads import APP_ID, CHANNEL, ROOT, TENANT, channel_mention
from tools.catalog import create_agents

THREAD_SESSION = f"teams:{TENANT}:{escape(CHANNEL)}:{ROOT}"


@pytest.fixture
async def fake(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeConnector]:
    async with FakeConnector(APP_ID) as connector:
        route_jwks(monkeypatch, connector.keys_url)
        yield connector


async def _ready() -> dict[str, Any]:
    return {"reachable": True}


async def test_a_reminder_fires_into_the_reply_chain_it_was_set_in(
    fake: FakeConnector, tmp_path: Any
) -> None:
    db = SqliteDb(db_file=str(tmp_path / "state.db"))
    model = ScriptedModel([tool_call("remind", task_id=1, when="in 2 hours"), "Set."])
    settings = Settings(
        openai_api_key="sk-test", redis_url=None, statebot_agent_scopes={"taskboard": "thread"}
    )
    service = chat_service(create_agents(model, db), settings=settings)
    teams = TeamsSettings(teams_app_id=APP_ID, teams_app_password="s", teams_service_url=fake.url)
    _bot, web = assemble(service, teams, tokens=LocalTokens, flags=MemoryFlags(), probe=_ready)
    agent = service.agents["taskboard"]
    assert isinstance(agent, Agent)
    task = {"id": 1, "title": "Ship", "category": "work", "status": "open"}
    await agent.aupdate_session_state({"tasks": [task], "next_task_id": 2}, THREAD_SESSION)
    try:
        async with Endpoint(web, host="127.0.0.1", port=0) as endpoint:
            running = Running(fake, endpoint.port, asyncio.create_task(asyncio.sleep(0)))
            await running.post(channel_mention(text="<at>Statebot</at> remind me in 2 hours"))
            await running.replies(1)
            [scheduled] = await schedule_store(db).alist(THREAD_SESSION)
            assert scheduled.target["thread"] == ROOT
            scheduler = build_scheduler(service, db, clock=lambda: time.time() + 3 * 3600)
            assert await scheduler.run_once() == 1
            posted = fake.posts()[-1]
            assert posted.path == f"/v3/conversations/{CHANNEL};messageid={ROOT}/activities"
            assert posted.body["text"] == "⏰ Reminder: task #1 Ship (open)."
    finally:
        await db.aclose()
