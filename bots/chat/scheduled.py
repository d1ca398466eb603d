"""A due schedule run on its session, as a message or a command would run.

An input starting with the command prefix (``/task_reminder 3``) is a direct command,
run without the model like a slash command; anything else is a message to the agent.
Failures propagate: the scheduler retries with backoff, then drops the run with a
logged error, so no error text is posted as if it were an answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import structlog

from bots.chat.commands import parse_command
from bots.chat.context import scheduled_origin
from bots.chat.decisions import ask_approval
from bots.chat.registry import ChatAgent, tools_of
from bots.chat.replies import Reply
from bots.ops.logging import bind_event
from bots.ops.metrics import count_tool_errors
from core.run.output import content_as_text
from core.schedule import TARGET_KEY, Schedule

log = structlog.get_logger("bots.service")

__all__ = ["run_scheduled"]


async def run_scheduled(
    agent_id: str,
    agent: ChatAgent,
    schedule: Schedule,
    *,
    aliases: Mapping[str, str],
    target: dict[str, Any],
    note: str | None,
    command_prefix: str,
) -> Reply:
    """Run ``schedule`` with ``agent`` (its owner); the reply to post at its target."""
    session_id, user_id = schedule.session_id, schedule.user_id
    with bind_event(
        platform=str(target.get("platform") or ""),
        session_id=session_id,
        user_id=user_id,
        event_id=f"schedule:{schedule.schedule_id}",
    ):
        log.info("scheduled_run", agent=agent_id, attempt=schedule.attempts)
        text = schedule.input.strip()
        metadata = {TARGET_KEY: target} | scheduled_origin(schedule, target)
        if text.startswith(command_prefix):
            tools = tools_of(agent)
            parsed = parse_command(text[1:], tools, aliases)
            output = await agent.arun_tool(
                parsed.tool,
                parsed.arguments,
                session_id=session_id,
                user_id=user_id,
                metadata=metadata,
            )
        else:
            question = text if note is None else f"{text} {note}"
            output = await agent.arun(
                question, session_id=session_id, user_id=user_id, metadata=metadata
            )
        count_tool_errors(output, agent=agent_id)
        if output.is_paused:
            return ask_approval(agent_id, output, user_id or "")
        return Reply(content_as_text(output.content) or "Done.")
