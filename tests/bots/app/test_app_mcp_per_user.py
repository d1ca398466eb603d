"""A per-user server in STATEBOT_MCP_SERVERS: checked at start, wired to /connect."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cryptography.fernet import Fernet

from bots.app.build import build_app
from bots.chat.service import ConfigError
from bots.inbound import SlashCommand
from bots.settings import Settings
from bots.settings.mcp import parse_mcp_servers
from core.agent import Agent
from core.db.cipher import StateCipher
from core.db.sqlite import SqliteDb
from core.models.scripted import ScriptedModel

OFFLINE = {"openai_api_key": None, "openai_base_url": None, "redis_url": None}
PEOPLE = {"people": {"url": "http://127.0.0.1:9/mcp", "per_user": True}}


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"command": "x", "per_user": True}, "per_user needs a url (streamable HTTP) server"),
        (
            {"url": "http://h/mcp", "per_user": True, "headers": {"Authorization": "Bearer t"}},
            "per_user sends each user's own Authorization header",
        ),
    ],
)
def test_bad_per_user_entries_are_one_line(entry: dict[str, object], message: str) -> None:
    """A per-user stdio server, or one with a shared Authorization header, is refused."""
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_mcp_servers(json.dumps({"a": entry}))


def test_a_store_that_seals_nothing_stops_the_start(tmp_path: Path) -> None:
    """Without STATEBOT_STATE_KEYS a per-user server cannot keep tokens: one line at start."""
    settings = Settings(**OFFLINE, statebot_mcp_servers=json.dumps(PEOPLE))
    agent = Agent(name="helper", model=ScriptedModel(["x"]))
    with pytest.raises(ConfigError, match=r"server 'people' is per_user.*STATEBOT_STATE_KEYS"):
        build_app(settings, db=SqliteDb(db_file=tmp_path / "p.db"), agents={"helper": agent})


async def test_configured_per_user_server_is_offered_to_connect(tmp_path: Path) -> None:
    """With a sealing store, /connect lists the configured server and stores a DM token."""
    settings = Settings(
        **OFFLINE, statebot_mcp_servers=json.dumps(PEOPLE), statebot_default_agent="helper"
    )
    db = SqliteDb(db_file=tmp_path / "p.db", cipher=StateCipher([Fernet.generate_key().decode()]))
    agent = Agent(name="helper", model=ScriptedModel(["x"]), db=db)
    app = build_app(settings, db=db, agents={"helper": agent})
    try:
        listing = await app.service.handle_command(
            SlashCommand("slack", "T1", "D1", None, "U1", "connect", "", "Ev1", is_dm=True)
        )
        assert "people: not connected" in listing.text
        done = await app.service.handle_command(
            SlashCommand(
                "slack", "T1", "D1", None, "U1", "connect", "people t0k", "Ev2", is_dm=True
            )
        )
        assert done.text.startswith("Connected 'people'")
        assert "per user" in str(settings.statebot_mcp_servers[0])
    finally:
        assert app.mcp is not None
        await app.mcp.aclose()
        await db.aclose()
