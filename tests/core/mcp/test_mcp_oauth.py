"""Connecting a per-user server by OAuth 2.1 against a local authorization server."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest
from cryptography.fernet import Fernet

from core.agent import Agent
from core.db.cipher import StateCipher
from core.db.sqlite import SqliteDb
from core.governance.credentials import McpCredentials
from core.models.scripted import ScriptedModel, tool_call
from core.tools.mcp import MCPTools
from core.tools.mcp.oauth import abandon, complete

pytestmark = pytest.mark.slow  # a server process

ALICE = "slack:T1:UALICE"
CALLBACK = "https://bot.example.com/admin/mcp/oauth/callback"


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[SqliteDb]:
    store = SqliteDb(
        db_file=tmp_path / "o.db", cipher=StateCipher([Fernet.generate_key().decode()])
    )
    yield store
    await store.aclose()


async def play_browser(link: str) -> tuple[str, str]:
    """What a person's browser does: open the link, follow the authorization server to
    the redirect; the (state, code) it brings back to the callback."""
    async with httpx2.AsyncClient() as browser:
        answer = await browser.get(link, follow_redirects=False)
    assert answer.status_code in (302, 303, 307), answer.text
    location = answer.headers["location"]
    assert location.startswith(CALLBACK)
    query = parse_qs(urlsplit(location).query)
    return query["state"][0], query["code"][0]


async def test_authorize_then_runs_act_as_the_authorized_person(
    db: SqliteDb, oauth_server_url: str
) -> None:
    """begin() gives the authorization URL; the redirect's code completes the flow; the
    tokens are stored sealed for the user (method oauth) and runs call with them."""
    credentials = McpCredentials(db)
    tools = MCPTools(
        url=oauth_server_url, name="people", per_user=True, credentials=credentials,
        oauth_redirect_url=CALLBACK,
    )  # fmt: skip
    assert tools.oauth is not None
    model = ScriptedModel([tool_call("whoami"), "ok"])
    agent = Agent(model=model, tools=[tools], db=db)
    try:
        link = await tools.oauth.begin(ALICE)
        assert link.startswith(oauth_server_url.removesuffix("/mcp") + "/authorize?")
        assert "code_challenge=" in link and "redirect_uri=" in link
        state, code = await play_browser(link)
        assert complete("not-the-state", code) is False
        assert complete(state, code) is True
        for _ in range(200):  # the flow exchanges the code and stores the tokens
            if await credentials.atoken(ALICE, "people"):
                break
            await asyncio.sleep(0.05)
        stored = await credentials.aget(ALICE, "people")
        assert stored is not None and stored["method"] == "oauth"
        assert stored["token"].startswith("at-") and stored["oauth"]["refresh_token"]
        assert complete(state, code) is False  # a flow completes once
        await agent.arun("who am I?", session_id="s", user_id=ALICE)
        results = [m.content for m in model.requests[1].messages if m.role == "tool"]
        assert results == ["carol (oauth)"]
    finally:
        await tools.close()


def test_oauth_needs_a_per_user_server(db: SqliteDb) -> None:
    """An OAuth redirect on a shared server is refused."""
    with pytest.raises(ValueError, match="per_user=True"):
        MCPTools(url="http://127.0.0.1:9/mcp", oauth_redirect_url=CALLBACK)


async def test_a_refused_authorization_stores_nothing(db: SqliteDb, oauth_server_url: str) -> None:
    """The person refuses at the authorization server: the flow ends, nothing is stored,
    and the link's state no longer completes anything."""
    credentials = McpCredentials(db)
    tools = MCPTools(
        url=oauth_server_url, name="people", per_user=True, credentials=credentials,
        oauth_redirect_url=CALLBACK,
    )  # fmt: skip
    assert tools.oauth is not None
    try:
        link = await tools.oauth.begin(ALICE)
        state = parse_qs(urlsplit(link).query)["state"][0]
        assert abandon(state, "the authorization was refused (access_denied)") is True
        for _ in range(100):
            if not tools.oauth.under_way:
                break
            await asyncio.sleep(0.05)
        assert await credentials.aget(ALICE, "people") is None
        assert complete(state, "any-code") is False
    finally:
        await tools.close()
