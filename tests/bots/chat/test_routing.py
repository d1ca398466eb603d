"""Routing: @bot [agent] text, channel defaults, mention stripping."""

from __future__ import annotations

from bots.chat.registry import AgentRegistry
from bots.chat.routing import route
from core.agent import Agent

AGENTS = AgentRegistry({name: Agent(id=name) for name in ("taskboard", "shopping")})


def _route(text: str, channel: str = "C9", channel_agents: dict[str, str] | None = None):
    return route(
        text,
        channel=channel,
        agents=AGENTS,
        default_agent="taskboard",
        channel_agents=channel_agents or {"C456": "shopping"},
    )


def test_other_peoples_mentions_stay_in_the_text() -> None:
    """Only the adapter removes the bot's mention; `<@W333>` is part of what was said."""
    picked = _route("<@W333> please help")
    assert picked.text == "<@W333> please help" and not picked.explicit


def test_named_agent_gets_the_rest_of_the_text() -> None:
    """`@bot shopping add milk` goes to shopping with `add milk`."""
    picked = _route("shopping add milk")
    assert (picked.agent_id, picked.text, picked.explicit) == ("shopping", "add milk", True)


def test_agent_name_is_case_insensitive_and_may_end_with_colon() -> None:
    """`Shopping: add milk` names the shopping agent."""
    picked = _route("Shopping: add milk")
    assert (picked.agent_id, picked.text) == ("shopping", "add milk")


def test_first_word_not_an_agent_goes_to_default_with_whole_text() -> None:
    """A first word that names no agent stays in the text for the default agent."""
    picked = _route("add a task to review the roadmap")
    assert picked.agent_id == "taskboard"
    assert picked.text == "add a task to review the roadmap"
    assert picked.explicit is False


def test_channel_default_agent_overrides_global_default() -> None:
    """STATEBOT_CHANNEL_AGENTS picks the agent of a channel."""
    assert _route("add milk", channel="C456").agent_id == "shopping"
    assert _route("add milk", channel="C123").agent_id == "taskboard"


def test_named_agent_wins_over_channel_default() -> None:
    """Naming an agent overrides the channel's default."""
    assert _route("taskboard list", channel="C456").agent_id == "taskboard"


def test_only_agent_name_leaves_empty_text() -> None:
    """`@bot shopping` alone routes to shopping with no text."""
    picked = _route("shopping")
    assert (picked.agent_id, picked.text) == ("shopping", "")


def test_agent_word_inside_the_text_does_not_route() -> None:
    """Only the first word can name an agent."""
    picked = _route("please ask shopping")
    assert (picked.agent_id, picked.text) == ("taskboard", "please ask shopping")


def test_named_agent_comes_back_with_its_registered_spelling() -> None:
    """`@bot shopping` finds an agent registered as `Shopping` and routes under that id."""
    picked = route(
        "shopping add milk",
        channel="C9",
        agents=AgentRegistry({"Shopping": Agent(id="s")}),
        default_agent="Shopping",
    )
    assert (picked.agent_id, picked.text, picked.explicit) == ("Shopping", "add milk", True)
