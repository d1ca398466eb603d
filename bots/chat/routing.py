"""Routing: which agent a message is for, and the text that agent gets.

    "taskboard add milk"  -> ("taskboard", "add milk")
    "add milk"            -> (channel default, "add milk")

The adapters have already removed the bot's own mention (the one place that decides
addressing); any other mention is part of what the person said and stays.

A first word that names no agent is part of the text: the channel's default agent
(``STATEBOT_CHANNEL_AGENTS``, else ``STATEBOT_DEFAULT_AGENT``) gets the whole text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

_FIRST_WORD = re.compile(r"^\s*(\S+)(?:\s+|$)")


class AgentNames(Protocol):
    """What routing needs from the registry (``bots.chat.registry.AgentRegistry``)."""

    def id_of(self, name: str) -> str | None:
        """The registered id ``name`` refers to, in any case, or None."""
        ...


@dataclass(frozen=True, slots=True)
class Route:
    """The agent picked for a message and the text it gets."""

    agent_id: str
    text: str
    explicit: bool  # the user named the agent


def default_agent_for(
    channel: str, *, default_agent: str, channel_agents: Mapping[str, str]
) -> str:
    """The agent that answers in ``channel`` when none is named."""
    return channel_agents.get(channel, default_agent)


def route(
    text: str,
    *,
    channel: str,
    agents: AgentNames,
    default_agent: str,
    channel_agents: Mapping[str, str] | None = None,
) -> Route:
    """Pick the agent for ``text`` (the bot's mention already removed by the adapter)."""
    body = text.strip()
    match = _FIRST_WORD.match(body)
    if match:
        named = agents.id_of(match.group(1).rstrip(",:"))
        if named is not None:
            return Route(agent_id=named, text=body[match.end() :].strip(), explicit=True)
    agent_id = default_agent_for(
        channel, default_agent=default_agent, channel_agents=channel_agents or {}
    )
    return Route(agent_id=agent_id, text=body, explicit=False)
