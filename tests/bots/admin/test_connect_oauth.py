"""/connect by OAuth 2.1: the link in chat, the authorization server, the web app's
callback, then runs acting as the authorized person."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx2
import pytest
from aiohttp.test_utils import TestClient, TestServer
from cryptography.fernet import Fernet

from bots.app.build import build_app
from bots.chat.service import ConfigError
from bots.inbound import SlashCommand
from bots.settings import Settings
from bots.web import create_app
from core.agent import Agent
from core.db.cipher import StateCipher
from core.db.sqlite import SqliteDb
from core.governance.credentials import McpCredentials
from core.models.scripted import ScriptedModel, tool_call
from tests.bots.conftest import message
from tests.bots.web.test_http import config_for
from tests.core.mcp.conftest import oauth_server_url

__all__ = ["oauth_server_url"]  # the fixture: the local authorization + MCP server

pytestmark = pytest.mark.slow  # a server process

OFFLINE = {"openai_api_key": None, "openai_base_url": None, "redis_url": None}
ALICE = "slack:T1:U1"


def connect(text: str) -> SlashCommand:
    return SlashCommand("slack", "T1", "D1", None, "U1", "connect", text, "Ev5", is_dm=True)


async def test_link_callback_and_runs_as_the_authorized_person(
    tmp_path: Path, oauth_server_url: str
) -> None:
    """/connect people answers with the authorization link; the browser comes back to the
    console's callback; the token is stored sealed and the next run acts as that person."""
    db = SqliteDb(db_file=tmp_path / "o.db", cipher=StateCipher([Fernet.generate_key().decode()]))
    web = TestServer(create_app(db, config_for(tmp_path)))
    await web.start_server()
    client = TestClient(web)
    await client.start_server()
    servers = {"people": {"url": oauth_server_url, "per_user": True, "oauth": True}}
    settings = Settings(
        **OFFLINE,
        statebot_mcp_servers=json.dumps(servers),
        statebot_default_agent="helper",
        statebot_web_url=str(web.make_url("")).rstrip("/"),
    )
    model = ScriptedModel([tool_call("whoami"), "done"])
    agent = Agent(name="helper", model=model, db=db)
    app = build_app(settings, db=db, agents={"helper": agent})
    try:
        hint = await app.service.handle_message(message("who am I?"))
        assert hint is not None and "`/connect people`" in hint.text
        reply = await app.service.handle_command(connect("people"))
        assert reply.ephemeral and reply.text.startswith("Open this link to connect 'people'")
        link = reply.text.rsplit(" ", 1)[-1]
        async with httpx2.AsyncClient() as browser:
            answer = await browser.get(link, follow_redirects=False)
        callback = answer.headers["location"]
        assert callback.startswith(str(web.make_url("/mcp/oauth/callback")))
        page = await client.get(callback.removeprefix(str(web.make_url("")).rstrip("/")))
        assert page.status == 200 and "Connected" in await page.text()
        credentials = McpCredentials(db)
        for _ in range(200):
            if await credentials.atoken(ALICE, "people"):
                break
            await asyncio.sleep(0.05)
        listed = await app.service.handle_command(connect(""))
        assert "people: connected" in listed.text and "(oauth)" in listed.text
        await app.service.handle_message(message("who am I?"))
        results = [m.content for m in model.requests[1].messages if m.role == "tool"]
        assert results == ["carol (oauth)"]
        again = await client.get(callback.removeprefix(str(web.make_url("")).rstrip("/")))
        assert again.status == 400 and "expired" in await again.text()
    finally:
        assert app.mcp is not None
        await app.mcp.aclose()
        await client.close()
        await db.aclose()


def test_oauth_servers_need_the_console_url(tmp_path: Path) -> None:
    """Without STATEBOT_WEB_URL there is nowhere to come back to: one line at start."""
    db = SqliteDb(db_file=tmp_path / "o.db", cipher=StateCipher([Fernet.generate_key().decode()]))
    servers = {"people": {"url": "http://127.0.0.1:9/mcp", "per_user": True, "oauth": True}}
    settings = Settings(**OFFLINE, statebot_mcp_servers=json.dumps(servers))
    agent = Agent(name="helper", model=ScriptedModel(["x"]), db=db)
    with pytest.raises(ConfigError, match="set STATEBOT_WEB_URL"):
        build_app(settings, db=db, agents={"helper": agent})
