"""MCP servers of the deployment: ``STATEBOT_MCP_SERVERS``, JSON or the path of a JSON file.

The JSON names each server once, in the shape MCP clients share (an optional
``mcpServers`` wrapper), plus which agents get it::

    {"github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
                "env": {"GITHUB_TOKEN": "..."}, "agents": ["taskboard"]},
     "docs":   {"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ..."},
                "include_tools": ["search"]}}

A server has ``command`` (stdio; ``args``, ``env``) or ``url`` (streamable HTTP;
``headers``), never both; ``agents`` defaults to every agent (``["*"]``);
``include_tools``, ``exclude_tools``, ``tool_name_prefix`` and ``timeout_seconds`` are
:class:`core.tools.mcp.MCPTools`'s; ``per_user: true`` (url servers only) makes it act
as the asking user, with the token they gave ``/connect``. Anything else is refused
with one line naming the server and the field. Env and header values may be secrets:
they are never shown (``statebot config`` prints each server's name, transport,
target and agents).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import pydantic
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic_settings import NoDecode

from core.redaction import redact_text

__all__ = ["McpServer", "McpSettings", "parse_mcp_servers"]

_VARIABLE = "STATEBOT_MCP_SERVERS"


class McpServer(BaseModel):
    """One MCP server and the agents that get its tools."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
    command: str | None = None
    args: tuple[str, ...] = ()
    env: dict[str, str] = Field(default_factory=dict)
    url: str | None = Field(default=None, pattern=r"^https?://")
    headers: dict[str, str] = Field(default_factory=dict)
    agents: tuple[str, ...] = ("*",)
    include_tools: tuple[str, ...] | None = None
    exclude_tools: tuple[str, ...] | None = None
    tool_name_prefix: str | None = None
    timeout_seconds: float | None = Field(default=None, gt=0)
    #: act as the asking user: each user connects with their own token (/connect)
    per_user: bool = False
    #: a per-user server people connect by OAuth 2.1 (the callback: STATEBOT_WEB_URL's)
    oauth: bool = False

    @model_validator(mode="after")
    def _one_transport(self) -> McpServer:
        if (self.command is None) == (self.url is None):
            raise ValueError("give either command (stdio) or url (streamable HTTP)")
        if self.command is None and (self.args or self.env):
            raise ValueError("args and env are for a command (stdio) server")
        if self.url is None and self.headers:
            raise ValueError("headers are for a url (streamable HTTP) server")
        if self.per_user and self.url is None:
            raise ValueError("per_user needs a url (streamable HTTP) server")
        if self.oauth and not self.per_user:
            raise ValueError("oauth is for per_user servers")
        if self.per_user and any(h.lower() == "authorization" for h in self.headers):
            raise ValueError("per_user sends each user's own Authorization header; remove it")
        if not self.agents:
            raise ValueError('agents is empty: name agents, or ["*"] for every agent')
        return self

    @property
    def every_agent(self) -> bool:
        """Whether every agent of the app gets this server."""
        return "*" in self.agents

    def __str__(self) -> str:
        """What ``statebot config`` shows: no env or header values (secrets)."""
        target = f"url {redact_text(self.url)}" if self.url else f"command {self.command}"
        who = "; per user" if self.per_user else ""
        return f"{self.name} ({target}; agents {'/'.join(self.agents)}{who})"


def parse_mcp_servers(value: Any) -> tuple[McpServer, ...]:
    """The servers ``value`` names (JSON text, a file path, or parsed data).

    ValueError with one line saying what is wrong, naming the variable and the server.
    """
    if isinstance(value, tuple) and all(isinstance(v, McpServer) for v in value):
        return value
    if isinstance(value, str):
        value = _load(value)
    if value is None:
        return ()
    if isinstance(value, dict) and set(value) == {"mcpServers"}:
        value = value["mcpServers"]
    if not isinstance(value, dict):
        raise ValueError(f"{_VARIABLE}: expected a JSON object of server name to settings")
    servers = []
    for name, entry in value.items():
        if not isinstance(entry, dict):
            raise ValueError(f"{_VARIABLE}: server {name!r}: expected an object of settings")
        try:
            servers.append(McpServer.model_validate({**entry, "name": name}))
        except pydantic.ValidationError as exc:
            raise ValueError(f"{_VARIABLE}: server {name!r}: {_first_problem(exc)}") from None
    return tuple(servers)


def _load(text: str) -> Any:
    """JSON text, or the JSON in the file it names; blank is no servers."""
    text = text.strip()
    if not text:
        return None
    if not text.startswith(("{", "[")):
        path = Path(text).expanduser()
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            reason = exc.strerror or type(exc).__name__
            raise ValueError(f"{_VARIABLE}: cannot read the file {str(path)!r}: {reason}") from None
        where = f"the file {str(path)!r}"
    else:
        where = "the value"
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"{_VARIABLE}: {where} is not valid JSON: {exc.msg} at line {exc.lineno} "
            f"column {exc.colno}"
        ) from None


def _first_problem(exc: pydantic.ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"])
    message = str(error["msg"]).removeprefix("Value error, ")
    if error["type"] == "extra_forbidden":
        message = "unknown setting"
    return f"{where}: {message}" if where else message


class McpSettings(BaseModel):
    """The deployment's MCP servers."""

    statebot_mcp_servers: Annotated[tuple[McpServer, ...], NoDecode] = Field(
        default=(),
        description=(
            "MCP servers whose tools agents get: JSON, or the path of a JSON file, naming "
            "each server with `command`/`args`/`env` or `url`/`headers`, and `agents` "
            "(default every agent); docs/mcp.md"
        ),
    )

    @field_validator("statebot_mcp_servers", mode="before")
    @classmethod
    def _servers(cls, value: Any) -> tuple[McpServer, ...]:
        return parse_mcp_servers(value)
