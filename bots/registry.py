"""The agent registry as the chat layer sees it.

The registry is a dict ``agent_id -> entry``. An entry is anything with ``id``,
``name``, ``description``, ``db``, ``functions`` (tools runnable directly; may be
empty), ``arun(text, session_id=, user_id=)`` and ``arun_tool(name, arguments,
session_id=, user_id=)``: an Agent, and later a Team or a Workflow the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bots.commands import ToolLike
from bots.keys import SCOPES, Scope


def scope_of(agent_id: str, agent: Any, configured: Mapping[str, str]) -> Scope:
    """An entry's session scope: settings, else its own ``session_scope``, else thread."""
    scope = configured.get(agent_id) or getattr(agent, "session_scope", None) or "thread"
    if scope not in SCOPES:
        raise ValueError(f"agent {agent_id!r}: unknown session scope {scope!r}")
    return scope


def tools_of(agent: Any) -> Mapping[str, ToolLike]:
    """An entry's directly runnable tools ({} when it has none)."""
    functions = getattr(agent, "functions", None)
    return functions if isinstance(functions, Mapping) else {}
