"""Routing: which agent a message is for, and the text that agent gets.

    "<@U0BOT> taskboard add milk"  -> ("taskboard", "add milk")
    "<@U0BOT> add milk"            -> (channel default, "add milk")

A first word that names no agent is part of the text: the channel's default agent
(``STATEBOT_CHANNEL_AGENTS``, else ``STATEBOT_DEFAULT_AGENT``) gets the whole text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

# Slack "<@U123>" / "<@U123|name>", Discord "<@123>" / "<@!123>"
_LEADING_MENTION = re.compile(r"^\s*<@!?[A-Za-z0-9_.-]+(?:\|[^>]*)?>[\s,:]*")
_FIRST_WORD = re.compile(r"^\s*(\S+)(?:\s+|$)")


class AgentNames(Protocol):
    """What routing needs from the registry (``bots.registry.AgentRegistry``)."""

    def id_of(self, name: str) -> str | None:
        """The registered id ``name`` refers to, in any case, or None."""
        ...


@dataclass(frozen=True, slots=True)
class Route:
    """The agent picked for a message and the text it gets."""

    agent_id: str
    text: str
    explicit: bool  # the user named the agent


def strip_mention(text: str) -> str:
    """Drop one leading mention token (the bot's) and the space after it."""
    return _LEADING_MENTION.sub("", text, count=1).strip()


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
    """Pick the agent for ``text`` (mention already present or not)."""
    body = strip_mention(text)
    match = _FIRST_WORD.match(body)
    if match:
        named = agents.id_of(match.group(1).rstrip(",:"))
        if named is not None:
            return Route(agent_id=named, text=body[match.end() :].strip(), explicit=True)
    agent_id = default_agent_for(
        channel, default_agent=default_agent, channel_agents=channel_agents or {}
    )
    return Route(agent_id=agent_id, text=body, explicit=False)
