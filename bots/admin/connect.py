"""``/connect``: a person's own connections to per-user MCP servers (docs/mcp.md).

    /connect                      your connections, and the servers you can connect
    /connect <server>             a link to authorize it (OAuth servers), else how to
                                  connect it
    /connect <server> <token>     store your token for it (in a direct message only)
    /connect revoke <server>      delete your stored token

The servers are the per-user ``MCPTools`` the app's agents hold (in code or
``STATEBOT_MCP_SERVERS`` with ``per_user``); each keeps its users' tokens in the store,
sealed with the key ring (``core.governance.credentials``). A token is accepted only in
a direct message, so it is never posted where others read; the command is not a run,
so it reaches no run history or audit entry, and logs name the server, never the token.
Every reply is ephemeral.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass

import structlog

from bots.chat.replies import Reply
from bots.inbound import SlashCommand
from core.agent import Agent
from core.exceptions import CredentialsUnavailableError
from core.governance.credentials import McpCredentials
from core.tools.mcp import MCPTools
from core.tools.mcp.oauth import FLOW_SECONDS, OAuthFlows

__all__ = ["USAGE", "connect_command", "per_user_servers"]

log = structlog.get_logger("bots.connect")

USAGE = (
    "Usage: `/connect` (your connections), `/connect <server> <token>` in a direct "
    "message with me, `/connect revoke <server>`."
)
NONE_CONFIGURED = "No server here acts as you: there is nothing to connect."
NOT_SEALED = (
    "Nothing was started: this store cannot keep tokens encrypted (set STATEBOT_STATE_KEYS)."
)
IN_DM_ONLY = (
    "Nothing was stored: send tokens only in a direct message with me, never in a "
    "channel. If others could see that token, revoke it at the service and make a new one."
)


@dataclass(frozen=True, slots=True)
class PerUserServer:
    """A per-user server: where its users' tokens live, and its OAuth flows (or None)."""

    credentials: McpCredentials
    oauth: OAuthFlows | None = None


def per_user_servers(agents: Iterable[object]) -> dict[str, PerUserServer]:
    """The per-user MCP servers the agents hold, by name."""
    found: dict[str, PerUserServer] = {}
    for agent in agents:
        if not isinstance(agent, Agent):  # a team's or workflow's agents hold toolkits
            found |= {
                name: held
                for name, held in per_user_servers(_inner(agent)).items()
                if name not in found
            }
            continue
        for toolkit in agent.live_toolkits:
            users = getattr(toolkit, "users", None) if isinstance(toolkit, MCPTools) else None
            if users is not None and isinstance(users.credentials, McpCredentials):
                assert isinstance(toolkit, MCPTools)
                found.setdefault(toolkit.name, PerUserServer(users.credentials, toolkit.oauth))
    return found


def _inner(owner: object) -> list[object]:
    """The agents a team (``members``) or workflow (its steps' ``agent``) runs."""
    members, steps = getattr(owner, "members", None), getattr(owner, "steps", None)
    inner: list[object] = list(members) if isinstance(members, list) else []
    for step in steps if isinstance(steps, list) else []:
        inner += [getattr(step, "agent", None), getattr(step, "team", None)]
    return [item for item in inner if item is not None]


async def connect_command(cmd: SlashCommand, servers: dict[str, PerUserServer]) -> Reply:
    """Answer one ``/connect`` command of ``cmd.keys.user_id``."""
    user_id = cmd.keys.user_id
    words = cmd.text.split()
    if not servers:
        return Reply(NONE_CONFIGURED, ephemeral=True)
    if not words:
        return Reply(await _listing(user_id, servers), ephemeral=True)
    if words[0].lower() == "revoke" and len(words) == 2:
        server = words[1]
        if server not in servers:
            return Reply(_unknown(server, servers), ephemeral=True)
        removed = await servers[server].credentials.arevoke(user_id, server)
        log.info("connect_command", action="revoke", server=server, user_id=user_id, found=removed)
        if not removed:
            return Reply(f"You had no connection to {server!r}; nothing to revoke.", ephemeral=True)
        return Reply(
            f"Revoked: your token for {server!r} is deleted. Runs can no longer act as you "
            "there (the token itself stays valid at the service until you revoke it there).",
            ephemeral=True,
        )
    server = words[0]
    if server not in servers:
        return Reply(_unknown(server, servers), ephemeral=True)
    if len(words) == 1 and servers[server].oauth is not None:
        return await _authorize(user_id, server, servers[server])
    if len(words) == 1:
        return Reply(
            f"To connect {server!r}, make a personal access token at that service and send "
            f"`/connect {server} <token>` in a direct message with me. It is stored "
            "encrypted and used only for runs you start (or schedule).",
            ephemeral=True,
        )
    if len(words) != 2:
        return Reply(f"A token is one word. {USAGE}", ephemeral=True)
    if not cmd.is_dm:
        log.info("connect_command", action="refused_outside_dm", server=server, user_id=user_id)
        return Reply(IN_DM_ONLY, ephemeral=True)
    try:
        await servers[server].credentials.aconnect(user_id, server, words[1], method="token")
    except CredentialsUnavailableError as exc:
        return Reply(f"Nothing was stored: {exc}.", ephemeral=True)
    log.info("connect_command", action="connect", server=server, user_id=user_id)
    return Reply(
        f"Connected {server!r}: runs you start now act as you there. "
        f"`/connect revoke {server}` deletes the token.",
        ephemeral=True,
    )


async def _authorize(user_id: str, server: str, found: PerUserServer) -> Reply:
    """Begin an OAuth authorization: the link only this person sees."""
    assert found.oauth is not None
    if not found.credentials.sealed:
        return Reply(NOT_SEALED, ephemeral=True)
    try:
        link = await found.oauth.begin(user_id)
    except RuntimeError as exc:
        log.warning("connect_command", action="authorize_failed", server=server, error=str(exc))
        return Reply(f"Could not start connecting {server!r}: {exc}", ephemeral=True)
    log.info("connect_command", action="authorize", server=server, user_id=user_id)
    minutes = int(FLOW_SECONDS // 60)
    return Reply(
        f"Open this link to connect {server!r} as you (it is for you only, and works for "
        f"{minutes} minutes): {link}",
        ephemeral=True,
    )


async def _listing(user_id: str, servers: dict[str, PerUserServer]) -> str:
    lines = ["Servers that act as you:"]
    for server, held in sorted(servers.items()):
        found = await held.credentials.alist(user_id, [server])
        if found:
            when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(found[0].connected_at))
            lines.append(f"• {server}: connected {when} ({found[0].method})")
        else:
            lines.append(f"• {server}: not connected")
    lines.append(USAGE)
    return "\n".join(lines)


def _unknown(server: str, servers: dict[str, PerUserServer]) -> str:
    return f"No per-user server is named {server!r} (servers: {', '.join(sorted(servers))})."
