"""The turns of a message and of a slash command: what each runs and how it reads the output.

Both go through the one turn pipeline (``bots.chat.turns``); only the run and the
reading differ. A message asks the agent's model (streamed into a sink when one is
given and the agent can stream); a command calls one tool directly and answers with
its text, and a card when the tool lists something.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

from bots.chat import help
from bots.chat.attachments import Received
from bots.chat.cards import placed, tool_card
from bots.chat.catch_up import CatchUp
from bots.chat.commands import ParsedCommand, ToolLike, usage
from bots.chat.context import ChatContext
from bots.chat.queued import QueueNotice
from bots.chat.registry import ChatAgent
from bots.chat.replies import Reply, media_of
from bots.chat.streaming import StreamSink, can_stream, stream_answer
from bots.chat.turns import Turn
from bots.inbound import InboundMessage, SlashCommand
from bots.keys import SessionKeys
from core.run.catch_up import catching_up
from core.run.output import RunOutput

__all__ = ["command_turn", "message_turn"]


def message_turn(
    agent_id: str,
    agent: ChatAgent,
    text: str,
    msg: InboundMessage,
    keys: SessionKeys,
    *,
    context: ChatContext,
    sink: StreamSink | None = None,
    notice: QueueNotice | None = None,
    catch_up: CatchUp | None = None,
    received: Received | None = None,
) -> Turn:
    """Free text to the agent's model, as ``Ana: text`` with mentions made readable.

    With ``catch_up``, a run that creates the session first reads the thread's
    earlier messages (``bots.chat.catch_up``); ``notice`` hears if the run is queued.
    ``received``: the message's attachments that can be used (``bots.chat.attachments``),
    given to the run as ``images=`` / ``files=`` (the service heads the reply with the
    note on the others).
    """
    received = received or Received()
    images, files = list(received.images) or None, list(received.files) or None

    async def run() -> RunOutput:
        question = await context.readable(msg, text)
        metadata = await context.run_metadata(msg)
        with contextlib.ExitStack() as scope:
            if catch_up is not None:  # fetched only if the session turns out new
                scope.enter_context(catching_up(lambda: context.earlier(catch_up)))
            if sink is not None and can_stream(agent):  # text shows as it is written
                return await stream_answer(
                    agent,
                    question,
                    sink,
                    session_id=keys.session_id,
                    user_id=keys.user_id,
                    metadata=metadata,
                    images=images,
                    files=files,
                )
            return await agent.arun(  # stream=False: not a workflow's own stream= default
                question,
                stream=False,
                session_id=keys.session_id,
                user_id=keys.user_id,
                metadata=metadata,
                images=images,
                files=files,
            )

    return Turn(
        kind="message",
        agent_id=agent_id,
        platform=msg.platform,
        session_id=keys.session_id,
        user_id=keys.user_id,
        event_id=msg.event_id,
        run=run,
        announce="chat_message",
        details={"agent": agent_id, "length": len(text), "attached": len(msg.attachments)},
        offline_commands=help.offline_commands(agent_id, agent),
        notice=notice,
    )


def command_turn(
    agent_id: str,
    agent: ChatAgent,
    parsed: ParsedCommand,
    tools: Mapping[str, ToolLike],
    cmd: SlashCommand,
    keys: SessionKeys,
    *,
    context: ChatContext,
) -> Turn:
    """One tool called directly, with the same hooks, validation and saving as the model's."""

    async def run() -> RunOutput:
        metadata: dict[str, Any] = await context.run_metadata(cmd)  # "due 3 friday": whose
        return await agent.arun_tool(
            parsed.tool,
            parsed.arguments,
            session_id=keys.session_id,
            user_id=keys.user_id,
            metadata=metadata,
        )

    def read(output: RunOutput) -> Reply:
        card = tool_card(tools[parsed.tool], parsed.arguments, output.session_state)
        card = placed(card, agent_id, keys.session_id)
        text = output.get_content_as_string() or "Done."
        return Reply(text, card=card, media=media_of(output))

    return Turn(
        kind="command",
        agent_id=agent_id,
        platform=cmd.platform,
        session_id=keys.session_id,
        user_id=keys.user_id,
        event_id=cmd.event_id,
        run=run,
        announce="chat_command",
        details={"agent": agent_id, "tool": parsed.tool},
        read=read,
        offline_commands=help.offline_commands(agent_id, agent),
        usage=lambda: f"usage: /{agent_id} {usage(tools[parsed.tool])}",
    )
