"""A due schedule run on its session, as a message or a command would run.

An input starting with the command prefix (``/task_reminder 3``) is a direct command,
run without the model like a slash command; anything else is a message to the agent.
The run goes through the one turn pipeline (``bots.chat.turns``) as a ``scheduled``
turn, whose failures propagate: the scheduler retries with backoff, then drops the run
with a logged error, so no error text is posted as if it were an answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bots.chat.commands import parse_command
from bots.chat.context import scheduled_origin
from bots.chat.registry import ChatAgent, tools_of
from bots.chat.replies import Reply
from bots.chat.turns import Turn, take_turn
from core.run.output import RunOutput
from core.schedule import TARGET_KEY, Schedule

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
    text = schedule.input.strip()

    async def run() -> RunOutput:
        metadata = {TARGET_KEY: target} | scheduled_origin(schedule, target)
        if text.startswith(command_prefix):
            tools = tools_of(agent, internal=True)  # a schedule may run an internal tool
            parsed = parse_command(text[1:], tools, aliases, internal=True)
            return await agent.arun_tool(
                parsed.tool,
                parsed.arguments,
                session_id=session_id,
                user_id=user_id,
                metadata=metadata,
            )
        question = text if note is None else f"{text} {note}"
        # stream=False: a workflow's own stream= default must not turn the answer into events
        return await agent.arun(
            question, stream=False, session_id=session_id, user_id=user_id, metadata=metadata
        )

    return await take_turn(
        Turn(
            kind="scheduled",
            agent_id=agent_id,
            platform=str(target.get("platform") or ""),
            session_id=session_id,
            user_id=user_id,
            event_id=f"schedule:{schedule.schedule_id}",
            run=run,
            announce="scheduled_run",
            details={"agent": agent_id, "attempt": schedule.attempts},
        )
    )
