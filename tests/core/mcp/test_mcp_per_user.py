"""Per-user MCP servers: each run acts as its user, with that user's own token."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from cryptography.fernet import Fernet

from core.agent import Agent
from core.db.cipher import StateCipher
from core.db.sqlite import SqliteDb
from core.exceptions import CredentialsUnavailableError
from core.governance.credentials import McpCredentials
from core.models.scripted import ScriptedModel, tool_call
from core.run.output import RunStatus
from core.tools.mcp import MCPTools

pytestmark = pytest.mark.slow  # a server process

ALICE, BOB = "console:local:alice", "console:local:bob"
KEY = Fernet.generate_key().decode()


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[SqliteDb]:
    """A store that seals state at rest (the key ring)."""
    store = SqliteDb(db_file=tmp_path / "s.db", cipher=StateCipher([KEY]))
    yield store
    await store.aclose()


def tool_results(model: ScriptedModel, request: int) -> list[str]:
    return [m.content or "" for m in model.requests[request].messages if m.role == "tool"]


async def ask_whoami(agent: Agent, model: ScriptedModel, user_id: str) -> str:
    """One run by ``user_id`` whose model calls ``whoami``; what the tool answered."""
    before = len(model.requests)
    await agent.arun("who am I?", session_id="shared-thread", user_id=user_id)
    return tool_results(model, before + 1)[0]


async def test_refused_until_connected_then_each_user_with_their_own_token(
    db: SqliteDb, user_server_url: str
) -> None:
    """A user who has not connected gets the /connect hint (the model is never called);
    once connected, calls carry their token, never another user's."""
    credentials = McpCredentials(db)
    model = ScriptedModel([tool_call("whoami"), "ok"] * 3)
    tools = MCPTools(url=user_server_url, name="people", per_user=True, credentials=credentials)
    agent = Agent(model=model, tools=[tools], db=db)
    try:
        refused = await agent.arun("who am I?", session_id="shared-thread", user_id=ALICE)
        assert refused.status is RunStatus.error
        assert "`/connect people`" in str(refused.content)
        assert model.requests == []  # answered with the hint, not by the model

        await credentials.aconnect(ALICE, "people", "tok-alice-1", method="token")
        assert await ask_whoami(agent, model, ALICE) == "alice (tok-alice-1)"
        bob_refused = await agent.arun("who am I?", session_id="shared-thread", user_id=BOB)
        assert "`/connect people`" in str(bob_refused.content)

        await credentials.aconnect(BOB, "people", "tok-bob-1", method="token")
        assert await ask_whoami(agent, model, BOB) == "bob (tok-bob-1)"
        assert await ask_whoami(agent, model, ALICE) == "alice (tok-alice-1)"
        assert sorted(tools.users.users if tools.users else []) == [ALICE, BOB]
    finally:
        await tools.close()


async def test_a_new_token_replaces_the_old_and_a_revoke_ends_the_connection(
    db: SqliteDb, user_server_url: str
) -> None:
    """Reconnecting switches the user's connection to the new token at their next run; a
    revoked user is refused again; a token the server refuses is the call's error."""
    credentials = McpCredentials(db)
    model = ScriptedModel([tool_call("whoami"), "ok"] * 3)
    tools = MCPTools(
        url=user_server_url, name="people", per_user=True, credentials=credentials,
        connect_timeout=5,
    )  # fmt: skip
    agent = Agent(model=model, tools=[tools], db=db)
    try:
        await credentials.aconnect(ALICE, "people", "tok-alice-1", method="token")
        assert await ask_whoami(agent, model, ALICE) == "alice (tok-alice-1)"
        await credentials.aconnect(ALICE, "people", "tok-alice-2", method="token")
        assert await ask_whoami(agent, model, ALICE) == "alice (tok-alice-2)"
        assert await credentials.arevoke(ALICE, "people") is True
        again = await agent.arun("who am I?", session_id="shared-thread", user_id=ALICE)
        assert "`/connect people`" in str(again.content)
        assert tools.users is not None and tools.users.users == []

        await credentials.aconnect(BOB, "people", "tok-stolen", method="token")
        answer = await ask_whoami(agent, model, BOB)
        assert answer.startswith("Error: MCP server 'people': not connected")
        assert "the server refused your credential (HTTP 401)" in answer
    finally:
        await tools.close()


async def test_a_direct_call_opens_the_users_connection_or_gives_the_hint(
    db: SqliteDb, user_server_url: str
) -> None:
    """A direct tool call (a slash command) by a connected user opens their connection
    and acts as them; by a user who has not connected, the call's error is the hint."""
    credentials = McpCredentials(db)
    tools = MCPTools(url=user_server_url, name="people", per_user=True, credentials=credentials)
    agent = Agent(model=ScriptedModel([tool_call("whoami"), "ok"]), tools=[tools], db=db)
    try:
        await agent.arun("list", session_id="s", user_id=ALICE)  # the hint; no listing yet
        await credentials.aconnect(ALICE, "people", "tok-alice-1", method="token")
        await agent.arun("who?", session_id="s", user_id=ALICE)  # lists the tools
        await tools.users.close() if tools.users else None  # as after a restart
        direct = await agent.arun_tool("whoami", {}, session_id="s", user_id=ALICE)
        assert direct.tools[0].result == "alice (tok-alice-1)"
        refused = await agent.arun_tool("whoami", {}, session_id="s", user_id=BOB)
        assert "`/connect people`" in str(refused.tools[0].result)
    finally:
        await tools.close()


async def test_connections_are_bounded_least_recently_used_first(
    db: SqliteDb, user_server_url: str
) -> None:
    """Past max_users the least recently used user's connection is closed; their next run
    opens it again, with their own token."""
    credentials = McpCredentials(db)
    model = ScriptedModel([tool_call("whoami"), "ok"] * 3)
    tools = MCPTools(url=user_server_url, name="people", per_user=True, credentials=credentials)
    assert tools.users is not None
    tools.users.max_users = 1
    agent = Agent(model=model, tools=[tools], db=db)
    try:
        await credentials.aconnect(ALICE, "people", "tok-alice-1", method="token")
        await credentials.aconnect(BOB, "people", "tok-bob-1", method="token")
        assert await ask_whoami(agent, model, ALICE) == "alice (tok-alice-1)"
        assert await ask_whoami(agent, model, BOB) == "bob (tok-bob-1)"
        assert tools.users.users == [BOB]
        assert await ask_whoami(agent, model, ALICE) == "alice (tok-alice-1)"
        assert tools.users.users == [ALICE]
    finally:
        await tools.close()


async def test_credentials_are_sealed_and_no_version_keeps_a_replaced_token(
    db: SqliteDb,
) -> None:
    """The stored rows never show a token; a replaced token leaves no stored version."""
    credentials = McpCredentials(db)
    await credentials.aconnect(ALICE, "people", "tok-alice-1", method="token")
    await credentials.aconnect(ALICE, "people", "tok-alice-2", method="token")
    assert await credentials.atoken(ALICE, "people") == "tok-alice-2"
    listed = await credentials.alist(ALICE, ["people", "other"])
    assert [(c.server, c.method) for c in listed] == [("people", "token")]
    engine = sa.create_engine(f"sqlite:///{db.db_file}")
    with engine.connect() as conn:
        rows = [str(r) for t in ("sessions", "session_history") for r in conn.execute(
            sa.text(f"SELECT * FROM {t}")
        )]  # fmt: skip
    engine.dispose()
    blob = "\n".join(rows)
    assert "tok-alice" not in blob and "$sb1:" in blob
    history = await db.ahistory("mcp-credential:people:" + ALICE)
    assert [e.version for e in history] == [1]  # the first token's version is gone


async def test_a_store_without_a_key_ring_keeps_no_credentials(tmp_path: Path) -> None:
    """Without encryption at rest, connecting is refused with one line saying why."""
    store = SqliteDb(db_file=tmp_path / "plain.db")
    try:
        with pytest.raises(CredentialsUnavailableError, match="STATEBOT_STATE_KEYS"):
            await McpCredentials(store).aconnect(ALICE, "people", "tok", method="token")
        assert await store.alist_sessions() == []
    finally:
        await store.aclose()


def test_per_user_needs_http_and_credentials(db: SqliteDb) -> None:
    """A per-user stdio server, or one without a credential source, is refused."""
    with pytest.raises(ValueError, match="streamable-HTTP"):
        MCPTools("python server.py", per_user=True, credentials=McpCredentials(db))
    with pytest.raises(ValueError, match="credentials="):
        MCPTools(url="http://127.0.0.1:1/mcp", per_user=True)
