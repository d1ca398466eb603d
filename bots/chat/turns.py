"""One turn pipeline for every kind of input: messages, slash commands, card clicks,
Approve / Reject decisions, scheduled runs and undo.

Each kind builds a :class:`Turn` (what to run, for whom, where it belongs, how to read
its output) and :func:`take_turn` runs it through the same steps, in this order:

1. bind the event's ids (platform, session, user, event) to every log line;
2. log what is run (``chat_message``, ``chat_command``, ``chat_click`` …);
3. time and count the run (``timed_run``: agent and kind);
4. run it (a run that waits for its session's lease says so through the turn's
   ``notice``: ``bots.chat.queued``); a run that answers by itself (an undo, a
   decision on a stale run) is the reply;
5. count the tool calls that failed (``count_tool_errors``);
6. a paused run becomes the Approve / Reject question of its asker;
7. otherwise the kind reads the output into its reply;
8. guard: every known failure becomes the truthful reply of ``bots.chat.errors``.

A scheduled turn is neither timed nor guarded: its failures propagate to the
scheduler, which retries with backoff and then drops the run with a logged error, so
no error text is ever posted as if it were an answer.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import structlog

from bots.chat.approvals import Approval
from bots.chat.errors import guarded
from bots.chat.queued import QueueNotice, announcing
from bots.chat.replies import Reply, media_links, media_of
from bots.ops.logging import bind_event
from bots.ops.metrics import count_tool_errors, timed_run
from core.run.output import RunOutput, content_as_text

log = structlog.get_logger("bots.service")

__all__ = ["Kind", "Turn", "ask_approval", "noted_reply", "plain_reply", "take_turn"]

Kind = Literal["message", "command", "click", "decision", "scheduled", "undo"]

#: kinds whose failures belong to their caller, not to a chat reply (the scheduler retries)
PROPAGATING: frozenset[Kind] = frozenset({"scheduled"})


def plain_reply(output: RunOutput) -> Reply:
    """A run's answer as text (a workflow's dict or pydantic model shows as JSON), with
    the images and files its tools returned (``ToolResult``) to post beside it."""
    text = "\n".join([content_as_text(output.content) or "Done.", *media_links(output)])
    return Reply(text, media=media_of(output))


def noted_reply(reply: Reply, note: str | None) -> Reply:
    """``reply`` with ``note`` (what was not used of the message) as its first line."""
    return reply if note is None else replace(reply, text=f"{note}\n\n{reply.text}")


def ask_approval(agent_id: str, output: Any, requester: str) -> Reply:
    """The reply for a paused run: the question, and the buttons that answer it."""
    approval = Approval.of(agent_id, output, requester)
    return Reply(approval.prompt, approval=approval)


def _no_usage() -> str:
    return ""


@dataclass(frozen=True, slots=True)
class Turn:
    """One run the chat layer makes, and everything the pipeline needs around it.

    ``run`` makes the run: a ``RunOutput`` goes on through the pipeline, a ``Reply``
    is the answer as it is (nothing ran that could pause or fail a tool call).
    """

    kind: Kind
    agent_id: str
    platform: str
    session_id: str | None
    user_id: str | None
    event_id: str
    run: Callable[[], Awaitable[RunOutput | Reply]]
    #: the log event naming what runs, and its fields
    announce: str
    details: Mapping[str, Any] = field(default_factory=dict)
    #: how this kind reads a finished run's output
    read: Callable[[RunOutput], Reply] = plain_reply
    #: whose question a paused run becomes (default: ``user_id``)
    asked_by: str | None = None
    #: what a "no model" reply lists as working offline
    offline_commands: str = ""
    #: the usage line a bad tool call is answered with
    usage: Callable[[], str] = _no_usage
    #: told when the run waits behind others for its session (None: nobody is told)
    notice: QueueNotice | None = None


async def take_turn(turn: Turn) -> Reply:
    """Run ``turn`` through the pipeline (see the module docstring); the reply to send."""
    with bind_event(
        platform=turn.platform,
        session_id=turn.session_id,
        user_id=turn.user_id,
        event_id=turn.event_id,
    ):
        log.info(turn.announce, **turn.details)

        async def run() -> Reply:
            async with announcing(turn.notice):
                result = await turn.run()
            if isinstance(result, Reply):
                return result
            count_tool_errors(result, agent=turn.agent_id)
            if result.is_paused:
                asker = turn.asked_by if turn.asked_by is not None else turn.user_id
                return ask_approval(turn.agent_id, result, asker or "")
            return turn.read(result)

        if turn.kind in PROPAGATING:
            return await run()
        return await guarded(
            timed_run(run, agent=turn.agent_id, kind=turn.kind),
            agent_id=turn.agent_id,
            offline_commands=turn.offline_commands,
            usage=turn.usage,
        )
