"""/connect in chat: a per-user MCP server acts as the asking user, with their own token."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from cryptography.fernet import Fernet
from structlog.testing import capture_logs

from bots.app.service import chat_service
from bots.chat.service import ChatService
from bots.inbound import SlashCommand
from bots.settings import Settings
from core.agent import Agent
from core.db.cipher import StateCipher
from core.db.sqlite import SqliteDb
from core.governance.credentials import McpCredentials
from core.governance.erasure import erase_user
from core.models.scripted import ScriptedModel, tool_call
from core.schedule import Schedule
from core.tools.mcp import MCPTools
from tests.bots.conftest import message
from tests.core.mcp.conftest import user_server_url

__all__ = ["user_server_url"]  # the fixture: the per-user test server

pytestmark = pytest.mark.slow  # a server process

ALICE, BOB = "slack:T1:U1", "slack:T1:U2"  # the server knows tok-alice-1 and tok-bob-1
THREAD_SESSION = "slack:T1:C1:1700.1"


def dm(user_id: str, command: str, text: str, *, is_dm: bool = True) -> SlashCommand:
    """``/command text`` typed by the user ``user_id`` names, in a DM (or a channel)."""
    user = user_id.rsplit(":", 1)[-1]
    return SlashCommand(
        "slack", "T1", "D1" if is_dm else "C1", None, user, command, text, "Ev9", is_dm=is_dm
    )


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[SqliteDb]:
    """A store that seals state at rest with a key ring."""
    store = SqliteDb(
        db_file=tmp_path / "c.db", cipher=StateCipher([Fernet.generate_key().decode()])
    )
    yield store
    await store.aclose()


@pytest.fixture
async def setup(
    db: SqliteDb, user_server_url: str
) -> AsyncIterator[tuple[ChatService, ScriptedModel]]:
    """A service whose one agent has the per-user server ``people``."""
    model = ScriptedModel([tool_call("whoami"), "done"] * 6)
    tools = MCPTools(
        url=user_server_url, name="people", per_user=True, credentials=McpCredentials(db)
    )
    agent = Agent(name="helper", model=model, db=db, tools=[tools])
    settings = Settings(openai_api_key=None, openai_base_url=None, statebot_default_agent="helper")
    yield chat_service({"helper": agent}, settings=settings), model
    await tools.close()


def whoami_results(model: ScriptedModel) -> list[str]:
    return [m.content or "" for r in model.requests for m in r.messages if m.role == "tool"][-1:]


async def test_refused_until_connected_then_acting_as_each_user(
    setup: tuple[ChatService, ScriptedModel],
) -> None:
    """Before /connect the reply is the hint; a token pasted in a channel is refused and
    never stored or logged; in a DM it connects, and the run calls as that user only."""
    service, model = setup
    hint = await service.handle_message(message("who am I?"))
    assert hint is not None and "`/connect people`" in hint.text and model.requests == []

    with capture_logs() as logs:
        refused = await service.handle_command(
            dm(ALICE, "connect", "people tok-alice-1", is_dm=False)
        )
        assert refused.ephemeral and "direct message" in refused.text
        listing = await service.handle_command(dm(ALICE, "connect", ""))
        assert "people: not connected" in listing.text
        done = await service.handle_command(dm(ALICE, "connect", "people tok-alice-1"))
    assert done.ephemeral and done.text.startswith("Connected 'people'")
    assert "tok-alice-1" not in repr(logs)

    await service.handle_message(message("who am I?"))
    assert whoami_results(model) == ["alice (tok-alice-1)"]
    bob = await service.handle_message(message("who am I?", user="U2"))
    assert bob is not None and "`/connect people`" in bob.text  # never alice's token

    listed = await service.handle_command(dm(ALICE, "connect", ""))
    assert "people: connected" in listed.text and "tok-alice-1" not in listed.text
    revoked = await service.handle_command(dm(ALICE, "connect", "revoke people"))
    assert revoked.text.startswith("Revoked")
    again = await service.handle_message(message("who am I?"))
    assert again is not None and "`/connect people`" in again.text


async def test_a_scheduled_run_acts_only_as_the_user_who_created_it(
    setup: tuple[ChatService, ScriptedModel],
) -> None:
    """A schedule runs as its creator: alice's token for hers; bob's (not connected) gets
    the hint, even in the thread where alice is connected."""
    service, model = setup
    await service.handle_command(dm(ALICE, "connect", "people tok-alice-1"))
    target = {"platform": "slack", "workspace": "T1", "channel": "C1", "thread": "1700.1"}
    now = time.time()

    def schedule(user_id: str) -> Schedule:
        return Schedule("s-" + user_id[-2:], THREAD_SESSION, "who am I?", now, now,
                        owner_id="helper", user_id=user_id)  # fmt: skip

    by_bob = await service.handle_scheduled(schedule(BOB), target=target)
    assert "`/connect people`" in by_bob.text and model.requests == []
    await service.handle_scheduled(schedule(ALICE), target=target)
    assert whoami_results(model) == ["alice (tok-alice-1)"]


async def test_erasure_deletes_the_credential(
    setup: tuple[ChatService, ScriptedModel], db: SqliteDb
) -> None:
    """Erasing the user deletes their stored token (every copy); a second scan finds nothing."""
    service, _model = setup
    await service.handle_command(dm(ALICE, "connect", "people tok-alice-1"))
    credentials = McpCredentials(db)
    assert await credentials.atoken(ALICE, "people") == "tok-alice-1"
    report = await erase_user(db, ALICE)
    assert report.complete and "mcp-credential:people:" + ALICE in report.sessions_deleted
    assert await credentials.atoken(ALICE, "people") is None
    assert await db.ahistory("mcp-credential:people:" + ALICE) == []
    second = await erase_user(db, ALICE)
    assert second.complete and second.sessions_deleted == []
    hint = await service.handle_message(message("who am I?"))
    assert hint is not None and "`/connect people`" in hint.text


def test_per_user_servers_are_found_inside_teams(db: SqliteDb) -> None:
    """A team member's per-user server is offered by /connect too."""
    from bots.admin.connect import per_user_servers
    from core.team import Team

    credentials = McpCredentials(db)
    tools = MCPTools(url="http://127.0.0.1:9/mcp", name="people", per_user=True,
                     credentials=credentials)  # fmt: skip
    member = Agent(name="member", model=ScriptedModel(["x"]), tools=[tools])
    team = Team(name="crew", members=[member], model=ScriptedModel(["x"]))
    assert {n: s.credentials for n, s in per_user_servers([team]).items()} == {
        "people": credentials
    }
