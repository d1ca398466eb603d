"""A platform added without editing Statebot: ``fakechat``, defined in this module (its
traits, settings, payload parser, command and ``serve``) and registered with
``bots.adapters.registry.register``. It is served by ``bots.serve`` and ``statebot
fakechat``, its messages go through the same ``ChatService`` pipeline as the built-in
platforms, and every shared decision (reply placement, chunking, DMs, mentions,
retention, the settings listing) follows its traits. Files outside this module touched
to add it: none (a built-in platform adds one line, in the registry)."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import click
import pytest
from click.testing import CliRunner
from pydantic import Field, SecretStr

from bots import serve
from bots.adapters import registry
from bots.app.option import app_option
from bots.app.retention import scope_of
from bots.app.service import chat_service
from bots.chat.chunking import chunk_text
from bots.chat.names import user_reference
from bots.chat.registry import ChatAgent
from bots.chat.replies import Reply
from bots.chat.targets import target_from_session, target_of
from bots.cli.main import main
from bots.inbound import InboundMessage
from bots.platforms import PlatformTraits
from bots.settings import EnvSettings, Settings
from core.db.in_memory import InMemoryDb
from core.models.scripted import ScriptedModel, tool_call
from tools.catalog import create_agents

NAME = "fakechat"

TRAITS = PlatformTraits(
    name=NAME,
    message_limit=40,
    reply_placement="thread",
    is_dm_channel=lambda workspace, channel: channel.startswith("private-"),
    user_id_pattern=re.compile(r"\d+"),
    mention_markup="[user:{user}]",
)


class FakeChatSettings(EnvSettings):
    """The platform's own settings, read from the environment and .env like every other."""

    fakechat_token: SecretStr | None = Field(default=None, description="fakechat bot token")


#: captured payloads of the platform: a mention in a group, then a private chat
GROUP = {
    "update_id": 101,
    "chat": {"id": "group-7", "type": "group", "space": "w1"},
    "from": {"id": 42},
    "text": "@statebot add milk to the board",
    "entities": [{"type": "mention", "user": "statebot"}],
}
PRIVATE = {
    "update_id": 102,
    "chat": {"id": "private-42", "type": "private", "space": "w1"},
    "from": {"id": 42},
    "text": "what is on the board?",
    "entities": [],
}


def parse(payload: Mapping[str, Any]) -> InboundMessage:
    """A payload -> the frozen inbound record (pure, as every adapter's parse is)."""
    chat = payload["chat"]
    private = chat["type"] == "private"
    mentioned = any(e.get("user") == "statebot" for e in payload["entities"])
    return InboundMessage(
        platform=NAME,
        workspace=chat["space"],
        channel=chat["id"],
        thread=str(payload["update_id"]),  # a message starts its own thread
        user=str(payload["from"]["id"]),
        text=payload["text"].removeprefix("@statebot ").strip(),
        event_id=str(payload["update_id"]),
        is_dm=private,
        bot_mentioned=mentioned,
        addressed=private or mentioned,  # the adapter decides: a DM needs no mention
        reply_thread=None if private else str(payload["update_id"]),  # DMs: the top level
    )


@dataclass
class FakeChat:
    """The adapter; ``outbox`` is what it posted (its send seam)."""

    name: str = NAME
    traits: PlatformTraits = TRAITS
    settings_class: type[FakeChatSettings] = FakeChatSettings
    serve_options: frozenset[str] = frozenset({"payloads"})
    outbox: list[dict[str, Any]] = field(default_factory=list)

    def command(self) -> click.Command:
        """``statebot fakechat --app M:A``: serve JSON payloads read from stdin."""

        @click.command(NAME)
        @app_option
        def fakechat(agents: Mapping[str, ChatAgent] | None) -> None:
            """Serve fakechat payloads from stdin."""
            if agents is None:
                raise click.UsageError("--app is required")
            payloads = [json.loads(line) for line in sys.stdin if line.strip()]
            self.serve(agents, settings=Settings(), payloads=payloads)
            for post in self.outbox:
                click.echo(post["text"])

        return fakechat

    def serve(
        self, agents: Mapping[str, ChatAgent], *, settings: Settings, **options: Any
    ) -> None:
        """Handle every payload through the one ChatService pipeline, post the replies."""
        asyncio.run(self._handle(chat_service(agents, settings=settings), options["payloads"]))

    async def _handle(self, service: Any, payloads: list[Mapping[str, Any]]) -> None:
        for payload in payloads:
            msg = parse(payload)
            reply: Reply | None = await service.handle_message(msg)
            if reply is not None:
                self.outbox.extend(_placed(msg, reply))


def _placed(msg: InboundMessage, reply: Reply) -> list[dict[str, Any]]:
    """Where and how the reply is posted: the shared target, cut at the platform's limit."""
    where = target_of(msg)
    return [{**where, "text": part} for part in chunk_text(reply.text, TRAITS.message_limit or 0)]


@pytest.fixture
def fakechat() -> Iterator[FakeChat]:
    """The platform, registered for one test."""
    adapter = FakeChat()
    registry.register(adapter)
    yield adapter
    registry.unregister(NAME)


ANSWER = "Added milk to the board; it now holds one open task for the group."


def _agents(db: InMemoryDb, turns: list[Any]) -> dict[str, ChatAgent]:
    return dict(create_agents(ScriptedModel(turns), db))


def _settings() -> Settings:
    return Settings(openai_api_key="sk-test", redis_url=None)


def test_bots_serve_runs_it_through_the_one_pipeline(fakechat: FakeChat) -> None:
    """serve(platform="fakechat") reaches the adapter; the run is keyed, saved and answered
    like a Slack message, and the reply is cut at the platform's 40 characters."""
    db = InMemoryDb()
    agents = _agents(db, [tool_call("add_task", title="Buy milk"), ANSWER])
    serve(agents, platform=NAME, settings=_settings(), payloads=[GROUP])
    session = asyncio.run(db.aload("fakechat:w1:group-7"))  # the Taskboard: the channel's
    assert session is not None and [t["title"] for t in session.state["tasks"]] == ["Buy milk"]
    texts = [post["text"] for post in fakechat.outbox]
    assert all(len(text) <= 40 for text in texts) and len(texts) > 1
    assert " ".join(texts) == ANSWER
    assert {post["thread"] for post in fakechat.outbox} == {"101"}  # in the message's thread


def test_a_private_chat_needs_no_mention_and_is_answered_at_the_top(fakechat: FakeChat) -> None:
    """The DM rule: is_dm from the parser, answered at the top level, its own session."""
    db = InMemoryDb()
    serve(_agents(db, ["Nothing yet."]), platform=NAME, settings=_settings(), payloads=[PRIVATE])
    assert fakechat.outbox == [
        {
            "platform": NAME,
            "workspace": "w1",
            "channel": "private-42",
            "thread": None,
            "text": "Nothing yet.",
        }
    ]


def test_shared_decisions_follow_its_traits(fakechat: FakeChat) -> None:
    """Mentions, scheduled-reply targets and retention read the traits, not a name."""
    assert user_reference("fakechat:w1:42", platform=NAME, workspace="w1") == "[user:42]"
    assert user_reference("fakechat:w2:42", platform=NAME, workspace="w1") == "`fakechat:w2:42`"
    assert target_from_session("fakechat:w1:private-42:9") == {
        "platform": NAME,
        "workspace": "w1",
        "channel": "private-42",
        "thread": None,
    }
    assert target_from_session("fakechat:w1:group-7:9")["thread"] == "9"  # type: ignore[index]
    assert scope_of("fakechat:w1:private-42:9") == "dm"
    assert scope_of("fakechat:w1:group-7:9") == "thread"


def test_unregistered_its_sessions_get_the_neutral_answers() -> None:
    """Without its traits nothing is guessed: no DM channel, the user key as code."""
    assert scope_of("fakechat:w1:private-42:9") == "thread"
    assert user_reference("fakechat:w1:42", platform=NAME, workspace="w1") == "`fakechat:w1:42`"


def test_statebot_serves_it_and_lists_its_settings(
    fakechat: FakeChat, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`statebot fakechat` is its command; `statebot config` shows FAKECHAT_TOKEN's source."""
    monkeypatch.setenv("FAKECHAT_TOKEN", "fc-secret")
    runner = CliRunner()
    assert NAME in runner.invoke(main, ["--help"]).output
    help_text = runner.invoke(main, [NAME, "--help"])
    assert help_text.exit_code == 0 and "Serve fakechat payloads" in help_text.output
    config = runner.invoke(main, ["config"])
    assert config.exit_code == 0, config.output
    row = next(line for line in config.output.splitlines() if line.startswith("FAKECHAT_TOKEN"))
    assert "set (hidden)" in row and "(environment)" in row and "fc-secret" not in config.output


def test_options_of_other_platforms_are_refused(fakechat: FakeChat) -> None:
    """serve() names the platform an option belongs to, before anything is built."""
    with pytest.raises(ValueError, match="socket= applies to platform='slack' only"):
        serve({}, platform=NAME, socket=True)
