"""The agent registry as the chat layer sees it.

``AgentRegistry`` maps agent ids to what a chat message can address: an Agent, a
Team or a Workflow (``ChatAgent``). Each has ``id``, ``name``, ``description``,
``db``, ``functions`` (tools runnable directly; may be empty), ``arun(text,
session_id=, user_id=)`` and ``arun_tool(name, arguments, session_id=, user_id=)``.

Every lookup by name ignores case, here and nowhere else: ``/TaskBoard``,
``@bot TASKBOARD …`` and ``/agent taskboard`` all find the entry registered as
``taskboard``, and ``id_of`` gives back the registered spelling, which keys sessions
and settings. Ids that differ only in case are refused, since no lookup could tell
them apart.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any, TypeAlias

from bots.chat.commands import ToolLike, public
from bots.keys import SCOPES, Scope
from core.agent import Agent
from core.team import Team
from core.workflow.workflow import Workflow

#: anything a chat message can be routed to
ChatAgent: TypeAlias = Agent | Team | Workflow


class AgentRegistry(Mapping[str, ChatAgent]):
    """Agents by id, in registration order; lookups ignore case."""

    __slots__ = ("_agents", "_ids")

    def __init__(self, agents: Mapping[str, ChatAgent]) -> None:
        self._agents = dict(agents)
        self._ids: dict[str, str] = {}
        for agent_id in self._agents:
            known = self._ids.setdefault(agent_id.casefold(), agent_id)
            if known != agent_id:
                raise ValueError(
                    f"agent ids {known!r} and {agent_id!r} differ only in case; rename one"
                )

    def id_of(self, name: str) -> str | None:
        """The registered id ``name`` refers to (any case), or None."""
        return self._ids.get(name.casefold())

    def __getitem__(self, name: str) -> ChatAgent:
        agent_id = self.id_of(name)
        if agent_id is None:
            raise KeyError(name)
        return self._agents[agent_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._agents)

    def __len__(self) -> int:
        return len(self._agents)

    def __repr__(self) -> str:
        return f"AgentRegistry({list(self._agents)})"


def scope_of(agent_id: str, agent: ChatAgent, configured: Mapping[str, str]) -> Scope:
    """An entry's session scope: settings, else its own ``session_scope``, else thread."""
    scope = configured.get(agent_id) or getattr(agent, "session_scope", None) or "thread"
    if scope not in SCOPES:
        raise ValueError(f"agent {agent_id!r}: unknown session scope {scope!r}")
    return scope


def tools_of(agent: ChatAgent, *, internal: bool = False) -> Mapping[str, ToolLike]:
    """An entry's tools people may run as commands ({} when it has none).

    ``internal``: every directly runnable tool, the internal ones too (scheduled runs).
    """
    functions = getattr(agent, "functions", None)
    if not isinstance(functions, Mapping):
        return {}
    return functions if internal else public(functions)


def turn_history_on(agents: Iterable[Any], runs: int) -> None:
    """Chat turns see the session's last ``runs`` runs (STATEBOT_HISTORY_RUNS; 0: none).

    Decided here, once for every entry point; workflows have no history setting.
    """
    for agent in agents:
        if hasattr(agent, "add_history_to_context"):
            agent.add_history_to_context = runs > 0
            agent.num_history_runs = runs
