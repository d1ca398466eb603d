"""The bolt wiring: a dedupe middleware, event and slash-command listeners.

Every listener acknowledges at once and does its work in a lazy listener, so Slack
gets its answer well inside 3 seconds while the agent takes as long as it needs.
Each step is a small callable: dedupe deliveries, decide whether a message is for
us, claim it, run it, send the reply.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import structlog
from slack_bolt.app.async_app import AsyncApp
from slack_bolt.context.ack.async_ack import AsyncAck
from slack_bolt.context.respond.async_respond import AsyncRespond
from slack_bolt.response import BoltResponse
from slack_sdk.web.async_client import AsyncWebClient

from bots.chunking import SLACK_LIMIT, chunk_text
from bots.errors import UNEXPECTED
from bots.inbound import InboundMessage
from bots.replies import Reply
from bots.slack.flags import Flags
from bots.slack.parse import parse_command, parse_event
from bots.slack.send import SlackSender

if TYPE_CHECKING:
    from bots.service import ChatService

log = structlog.get_logger(__name__)

# Slack retries a delivery for at most ~1 hour; a day covers it with room to spare.
DEDUPE_TTL = 24 * 3600
# The bot keeps following a thread it spoke in for a week of inactivity.
THREAD_TTL = 7 * 24 * 3600
SORRY = UNEXPECTED  # the outcome is unknown, so the reply does not claim one

Next = Callable[[], Awaitable[None]]


def thread_key(msg: InboundMessage) -> str:
    """The flag naming a thread the bot has replied in."""
    return f"slack:thread:{msg.workspace}:{msg.channel}:{msg.thread}"


def dedupe_deliveries(flags: Flags) -> Callable[..., Awaitable[BoltResponse | None]]:
    """Global middleware: answer a redelivered event (same ``event_id``) with a bare ack.

    Bolt injects middleware arguments by positional parameter name, hence ``next``.
    """

    async def middleware(body: dict[str, Any], next: Next) -> BoltResponse | None:
        event_id = body.get("event_id") if body.get("type") == "event_callback" else None
        if event_id and not await flags.claim(f"slack:event:{event_id}", DEDUPE_TTL):
            log.info("slack_duplicate_delivery", platform="slack", event_id=event_id)
            return BoltResponse(status=200, body="")
        await next()
        return None

    return middleware


async def ack_now(ack: AsyncAck) -> None:
    """Acknowledge with an empty body; the lazy listener answers later."""
    await ack()


def message_listener(service: ChatService, flags: Flags) -> Callable[..., Awaitable[None]]:
    """Lazy listener answering mentions, DMs and replies in the bot's threads, once each.

    Bolt injects arguments by positional parameter name, hence a plain function.
    """

    async def answer_message(
        body: dict[str, Any], client: AsyncWebClient, context: dict[str, Any]
    ) -> None:
        msg = parse_event(body, context.get("bot_user_id"))
        if msg is None or not await _addressed_to_bot(flags, body, msg):
            return
        # a reply in a thread the bot follows is addressed to it, mention or not
        msg = dataclasses.replace(msg, bot_mentioned=True)
        event = body["event"]
        # app_mention and message arrive for the same ts; only the first claim answers
        claim = f"slack:msg:{msg.workspace}:{msg.channel}:{event['ts']}"
        if not await flags.claim(claim, DEDUPE_TTL):
            return
        bound = log.bind(platform="slack", event_id=msg.event_id, user=msg.user)
        sender = SlackSender(client)
        reply_thread = event.get("thread_ts") or (None if msg.is_dm else event["ts"])
        # the reaction stays until the reply is out, so users see the bot is not done yet
        async with sender.working(msg.channel, event["ts"]):
            reply = await _safely(bound, service.handle_message(msg))
            if reply is not None:
                await _send(sender, flags, msg, reply, reply_thread)

    return answer_message


async def _send(
    sender: SlackSender, flags: Flags, msg: InboundMessage, reply: Reply, thread: str | None
) -> None:
    """Post the reply where the message was: ephemeral, top level of a DM, or in thread."""
    if reply.ephemeral:
        await sender.ephemeral(msg.channel, msg.user, reply.text, thread)
    elif thread is None:
        await sender.post(msg.channel, reply.text)
    else:
        await sender.reply_in_thread(msg.channel, thread, reply.text)
        await flags.mark(thread_key(msg), THREAD_TTL)


async def _addressed_to_bot(flags: Flags, body: dict[str, Any], msg: InboundMessage) -> bool:
    """Mentions and DMs always; other messages only in a thread the bot spoke in."""
    if body["event"].get("type") == "app_mention" or msg.is_dm or msg.bot_mentioned:
        return True
    in_thread = body["event"].get("thread_ts") is not None
    return in_thread and await flags.has(thread_key(msg))


def command_listener(service: ChatService) -> Callable[..., Awaitable[None]]:
    """Lazy listener running ``/<agent> …`` and ``/state …``, answering via response_url."""

    async def run_command(body: dict[str, Any], respond: AsyncRespond) -> None:
        cmd = parse_command(body)
        bound = log.bind(platform="slack", event_id=cmd.event_id, user=cmd.user)
        bound.info("slack_command", command=cmd.command)
        reply = await _safely(bound, service.handle_command(cmd)) or Reply(SORRY, ephemeral=True)
        response_type = "ephemeral" if reply.ephemeral else "in_channel"
        for part in chunk_text(reply.text, SLACK_LIMIT):
            await respond(text=part, response_type=response_type, replace_original=False)

    return run_command


async def _safely(bound: Any, work: Awaitable[Reply | None]) -> Reply | None:
    """Run the service; an unexpected error becomes a short apology, never silence."""
    try:
        return await work
    except Exception:
        bound.exception("slack_handler_failed")
        return Reply(SORRY)


def register(app: AsyncApp, service: ChatService, flags: Flags) -> None:
    """Attach the middleware and listeners to ``app``."""
    app.middleware(dedupe_deliveries(flags))
    answer = message_listener(service, flags)
    app.event("app_mention")(ack=ack_now, lazy=[answer])
    app.event("message")(ack=ack_now, lazy=[answer])
    app.command(re.compile(r"^/\S+$"))(ack=ack_now, lazy=[command_listener(service)])
