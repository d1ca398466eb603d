"""A platform whose text mentions people its own way (``@[user:42]``, ``#[channel:9]``),
registered from this module: the model reads its mentions as names, ``/state erase``
recognises them and an approval names its clicker that way, through its traits alone;
Slack's markup means nothing there."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from bots.admin.parse import StateUsageError, parse_state
from bots.app.service import chat_service
from bots.chat.approvals import Decision
from bots.inbound import InboundMessage, SlashCommand
from bots.platforms import PlatformTraits, register_traits, unregister_traits
from bots.settings import Settings
from core.agent import Agent
from core.db.in_memory import InMemoryDb
from core.models.scripted import ScriptedModel, tool_call
from core.tools import tool
from tests.bots.conftest import ServiceFactory

NAME = "bracketchat"

TRAITS = PlatformTraits(
    name=NAME,
    message_limit=None,
    reply_placement="thread",
    user_id_pattern=re.compile(r"\d+"),
    mention_markup="@[user:{user}]",
    user_mention=re.compile(r"@\[user:(?P<id>\d+)\]"),
    channel_mention=re.compile(r"#\[channel:(?P<id>\d+)\]"),
)


@pytest.fixture(autouse=True)
def bracketchat() -> Iterator[PlatformTraits]:
    """The platform's traits, known for one test."""
    register_traits(TRAITS)
    yield TRAITS
    unregister_traits(NAME)


class Directory:
    """The platform's names: users 7 and 42, channel 9."""

    async def user_name(self, workspace: str, user: str) -> str | None:
        return {"7": "Bo", "42": "Ana"}.get(user)

    async def channel_name(self, workspace: str, channel: str) -> str | None:
        return {"9": "general"}.get(channel)


def _message(text: str) -> InboundMessage:
    return InboundMessage(
        NAME, "w1", "room-1", "m1", "42", text, "e1", bot_mentioned=True, addressed=True
    )


async def test_the_model_reads_its_mentions_as_names(make_service: ServiceFactory) -> None:
    """``@[user:7]`` -> ``@Bo``, ``#[channel:9]`` -> ``#general``; an unknown id stays an id;
    Slack's ``<@U1>`` is plain text on this platform."""
    service = make_service(["Done."])
    service.use_names(NAME, Directory())
    text = "ask @[user:7] and @[user:5] in #[channel:9], not <@U1> in <#C1>"
    await service.handle_message(_message(text))
    model = service.agents["taskboard"].model
    assert isinstance(model, ScriptedModel)
    asked = [m.content for m in model.requests[-1].messages if m.role == "user"][-1]
    assert asked == "Ana: ask @Bo and @5 in #general, not <@U1> in <#C1>"


def test_state_erase_recognises_its_mention() -> None:
    """The grammar reads the command's platform's syntax, and only that."""
    assert parse_state("erase @[user:42]", platform=NAME).user == "42"
    for other in ("erase <@U0BOB0001>", "erase <@42>", "erase @42"):
        with pytest.raises(StateUsageError, match="nothing was erased"):
            parse_state(other, platform=NAME)


async def test_state_erase_asks_about_the_mentioned_user(make_service: ServiceFactory) -> None:
    """``/state erase @[user:7]`` from an admin of the platform asks to erase its user 7."""
    service = make_service(statebot_admin_ids=frozenset({f"{NAME}:w1:42"}))
    cmd = SlashCommand(NAME, "w1", "room-1", None, "42", "state", "erase @[user:7]", "e2")
    reply = await service.handle_command(cmd)
    assert reply.approval is not None and reply.approval.action == ("erase", f"{NAME}:w1:7")
    assert "@[user:7]" in reply.text


@tool(requires_confirmation=True)
def clear_board(session_state: dict[str, Any]) -> str:
    """Delete every task."""
    session_state["tasks"] = []
    return "cleared"


async def test_an_approval_names_the_clicker_its_way() -> None:
    """ "Approved by …" mentions the clicker in the platform's markup, not Slack's."""
    agent = Agent(
        model=ScriptedModel([tool_call("clear_board"), "Cleared."]),
        db=InMemoryDb(),
        tools=[clear_board],
        id="board",
    )
    settings = Settings(statebot_default_agent="board", openai_api_key=None, openai_base_url=None)
    service = chat_service({"board": agent}, settings=settings)
    asked = await service.handle_message(_message("clear the board"))
    assert asked is not None and asked.approval is not None
    done = await service.handle_decision(Decision(NAME, "w1", "42", True, asked.approval))
    assert done.text == "Approved by @[user:42].\nCleared."
