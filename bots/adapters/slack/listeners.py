"""The bolt wiring: middleware (refuse while closing, dedupe) and lazy listeners.

Every listener acknowledges at once and does its work in a lazy listener, so Slack
gets its answer well inside 3 seconds while the agent takes as long as it needs.
Each step is a small callable: dedupe deliveries, decide whether a message is for
us (:mod:`bots.adapters.slack.addressing`, the one place), claim it, run it, send the reply.
A reply that cannot be delivered is logged with its session and event ids and the
user is told (a short note, else a warning reaction); Redis down gets the
"storage unavailable" reply instead of an HTTP 500.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import structlog
from redis.exceptions import RedisError
from slack_bolt.app.async_app import AsyncApp
from slack_bolt.context.ack.async_ack import AsyncAck
from slack_bolt.context.respond.async_respond import AsyncRespond
from slack_bolt.response import BoltResponse
from slack_sdk.web.async_client import AsyncWebClient

from bots.adapters.slack.addressing import THREAD_TTL, addressed, thread_key
from bots.adapters.slack.board import board_blocks, register_board
from bots.adapters.slack.catch_up import slack_thread
from bots.adapters.slack.files import (
    FILES_UNDELIVERED,
    FilesUndelivered,
    slack_fetch,
    upload_media,
    with_file_info,
)
from bots.adapters.slack.home import register_home
from bots.adapters.slack.interactions import approval_blocks, register_interactions
from bots.adapters.slack.names import ClientFor, SlackNames, one_client
from bots.adapters.slack.options import SlackOptions
from bots.adapters.slack.parse import parse_command, parse_event
from bots.adapters.slack.queued import SlackQueued
from bots.adapters.slack.reply import send_reply
from bots.adapters.slack.scheduled import slack_delivery
from bots.adapters.slack.send import FAILED_REACTION, DeliveryError, SlackSender
from bots.adapters.slack.shutdown import Shutdown
from bots.adapters.slack.stream import finish_stream, slack_stream
from bots.chat.errors import STORE_DOWN, UNEXPECTED
from bots.chat.replies import Reply
from bots.chat.streaming import PagedStream
from bots.inbound import InboundMessage
from bots.ops.flags import Flags
from bots.ops.metrics import delivery_failed

if TYPE_CHECKING:
    from bots.chat.service import ChatService

log = structlog.get_logger(__name__)

# Slack retries a delivery for at most ~1 hour; a day covers it with room to spare.
DEDUPE_TTL = 24 * 3600
SORRY = UNEXPECTED  # the outcome is unknown, so the reply does not claim one
UNDELIVERED = (
    "I could not post my reply here (`{error}`). Your message was handled, "
    "so please check the result before resending."
)
INTERRUPTED = (
    "I was restarted before I could finish; your request may or may not have been "
    "applied, so please check before resending."
)
# Slack lets a response_url be used five times
RESPONSE_URL_USES = 5
TRUNCATED = "(The reply was longer than Slack lets me post here; {count} more part(s) not shown.)"
# what a Redis outage raises: the client's own errors, or the socket's
FLAGS_DOWN = (RedisError, OSError)

Next = Callable[[], Awaitable[None]]


def dedupe_deliveries(flags: Flags) -> Callable[..., Awaitable[BoltResponse | None]]:
    """Global middleware: answer a redelivered event (same ``event_id``) with a bare ack.

    With Redis down the delivery cannot be checked; it goes on to the listener, which
    answers "storage unavailable" rather than leaving Slack with an HTTP 500.
    Bolt injects middleware arguments by positional parameter name, hence ``next``.
    """

    async def middleware(body: dict[str, Any], next: Next) -> BoltResponse | None:
        event_id = body.get("event_id") if body.get("type") == "event_callback" else None
        try:
            fresh = not event_id or await flags.claim(f"slack:event:{event_id}", DEDUPE_TTL)
        except FLAGS_DOWN as exc:
            log.error("slack_flags_unavailable", event_id=event_id, error=repr(exc))
            fresh = True
        if not fresh:
            log.info("slack_duplicate_delivery", platform="slack", event_id=event_id)
            return BoltResponse(status=200, body="")
        await next()
        return None

    return middleware


async def ack_now(ack: AsyncAck) -> None:
    """Acknowledge with an empty body; the lazy listener answers later."""
    await ack()


def message_listener(
    service: ChatService, flags: Flags, options: SlackOptions
) -> Callable[..., Awaitable[None]]:
    """Lazy listener answering mentions, DMs and replies in the bot's threads, once each.

    Bolt injects arguments by positional parameter name, hence a plain function.
    """

    async def answer_message(
        body: dict[str, Any], client: AsyncWebClient, context: dict[str, Any]
    ) -> None:
        msg = parse_event(body, context.get("bot_user_id"))
        if msg is None:
            return
        event = body["event"]
        bound = log.bind(
            platform="slack",
            event_id=msg.event_id,
            session_id=msg.keys.session_id,
            user=msg.user,
        )
        sender = SlackSender(client, retry_seconds=options.retry_seconds)
        reply_thread = msg.reply_thread  # decided by the parser
        try:
            decided = await addressed(flags, event, msg, options.skip_others_mentions)
            # app_mention and message arrive for the same ts; only the first claim answers
            claim = f"slack:msg:{msg.workspace}:{msg.channel}:{event['ts']}"
            if decided is None or not await flags.claim(claim, DEDUPE_TTL):
                return
        except FLAGS_DOWN as exc:
            # without Redis nothing can run; answer once (the app_mention, or a DM)
            bound.error("slack_flags_unavailable", error=repr(exc))
            if event.get("type") == "app_mention" or msg.is_dm:
                await _deliver(bound, sender, flags, msg, Reply(STORE_DOWN), reply_thread, event)
            return
        # the reaction stays until the reply is out, so users see the bot is not done yet
        try:
            async with sender.working(msg.channel, event["ts"]):
                sink = slack_stream(sender, msg, reply_thread, options)  # None: streaming off
                fetch = slack_fetch(client)  # url_private with this workspace's bot token
                decided = await with_file_info(sender, decided)
                notice = SlackQueued(sender, msg.channel, event["ts"])  # shown if it waits
                earlier = slack_thread(client, event, context)  # read if the thread is new
                work = service.handle_message(
                    decided, sink=sink, fetch=fetch, notice=notice, earlier=earlier
                )
                reply = await _safely(bound, work)
                if reply is not None:
                    await _deliver(bound, sender, flags, msg, reply, reply_thread, event, sink)
                await notice.clear()
        except asyncio.CancelledError:
            bound.warning("slack_run_interrupted")
            await _deliver(bound, sender, flags, msg, Reply(INTERRUPTED), reply_thread, event)
            raise

    return answer_message


async def _deliver(
    bound: Any,
    sender: SlackSender,
    flags: Flags,
    msg: InboundMessage,
    reply: Reply,
    thread: str | None,
    event: dict[str, Any],
    sink: PagedStream | None = None,
) -> None:
    """Send the reply; if Slack will not take it, say so (note, else warning reaction)."""
    try:
        if await finish_stream(sink, reply):  # a streamed reply ends in its messages
            await upload_media(sender, msg.channel, thread, reply.media)
        else:
            await _send(sender, msg, reply, thread)
    except DeliveryError as exc:
        bound.error("slack_reply_failed", method=exc.method, error=exc.error, cause=exc.cause)
        template = FILES_UNDELIVERED if isinstance(exc, FilesUndelivered) else UNDELIVERED
        await _tell_undelivered(bound, sender, msg, reply, thread, event, exc.error, template)
        return
    except Exception as exc:  # never let a reply vanish into bolt's own error log
        bound.exception("slack_reply_failed", method="send", error=type(exc).__name__)
        await _tell_undelivered(bound, sender, msg, reply, thread, event, type(exc).__name__)
        return
    if thread is not None and not reply.ephemeral:
        try:
            await flags.mark(thread_key(msg), THREAD_TTL)
        except FLAGS_DOWN as exc:
            bound.warning("slack_thread_mark_failed", error=repr(exc))


async def _tell_undelivered(
    bound: Any,
    sender: SlackSender,
    msg: InboundMessage,
    reply: Reply,
    thread: str | None,
    event: dict[str, Any],
    error: str,
    template: str = UNDELIVERED,
) -> None:
    """Say the reply (or its files) was not posted: a short note, else the warning reaction."""
    delivery_failed("slack")
    note = template.format(error=error)
    try:
        await _send(sender, msg, Reply(note, ephemeral=reply.ephemeral), thread)
    except Exception as exc:  # the note failed too (any way): the reaction is the last word
        bound.error("slack_undelivered_note_failed", error=repr(exc))
        await sender.react("reactions_add", msg.channel, event["ts"], FAILED_REACTION)


async def _send(sender: SlackSender, msg: InboundMessage, reply: Reply, thread: str | None) -> None:
    """Post the reply where the message was: ephemeral, top level of a DM, or in thread."""
    await send_reply(sender, msg.channel, msg.user, reply, thread)


def command_listener(service: ChatService, options: SlackOptions) -> Callable[..., Awaitable[None]]:
    """Lazy listener running ``/<agent> …`` and ``/state …``, answering via response_url."""

    async def run_command(
        body: dict[str, Any], respond: AsyncRespond, client: AsyncWebClient
    ) -> None:
        cmd = parse_command(body)
        bound = log.bind(
            platform="slack", event_id=cmd.event_id, session_id=cmd.keys.session_id, user=cmd.user
        )
        bound.info("slack_command", command=cmd.command)
        reply = await _safely(bound, service.handle_command(cmd)) or Reply(SORRY, ephemeral=True)
        sender = SlackSender(client, retry_seconds=options.retry_seconds)
        try:
            await answer_command(bound, sender, respond, cmd.channel, cmd.user, reply)
            if not reply.ephemeral:  # a tool's files; Slack has no private ones
                await upload_media(sender, cmd.channel, None, reply.media)
        except Exception as exc:  # the response_url or Slack unreachable: say so, privately
            bound.exception("slack_reply_failed", method="respond", error=type(exc).__name__)
            delivery_failed("slack")
            if isinstance(exc, FilesUndelivered):  # the answer is out; its files are not
                note = FILES_UNDELIVERED.format(error=exc.error)
            else:
                note = UNDELIVERED.format(error=type(exc).__name__)
            try:
                await sender.ephemeral(cmd.channel, cmd.user, note, None)
            except DeliveryError as again:
                bound.error("slack_undelivered_note_failed", error=again.error)

    return run_command


async def answer_command(
    bound: Any,
    sender: SlackSender,
    respond: AsyncRespond,
    channel: str,
    user: str,
    reply: Reply,
) -> None:
    """Answer through the response_url (five uses), else post to the channel directly."""
    if reply.approval is not None:  # the question with its buttons (an admin's: privately)
        blocks = approval_blocks(reply.text, reply.approval)
        kind = "ephemeral" if reply.ephemeral else "in_channel"
        await respond(text=reply.text, blocks=blocks, response_type=kind)
        return
    parts = sender.parts(reply.text)
    response_type = "ephemeral" if reply.ephemeral else "in_channel"
    rendered = board_blocks(reply.card) if reply.card is not None else None
    if rendered is not None:  # one use; the text is what notifications show
        first = (parts or [""])[0]
        answer = await respond(text=first, blocks=rendered, response_type=response_type)
        if answer.status_code != 200:
            bound.error("slack_response_url_failed", status=answer.status_code, body=answer.body)
        return
    if len(parts) > RESPONSE_URL_USES:
        try:
            if reply.ephemeral:
                await sender.ephemeral(channel, user, reply.text, None)
            else:
                await sender.post(channel, reply.text)
            return
        except DeliveryError as exc:  # e.g. not_in_channel: the response_url still works
            bound.warning("slack_command_post_failed", error=exc.error)
        cut = len(parts) - (RESPONSE_URL_USES - 1)
        parts = [*parts[: RESPONSE_URL_USES - 1], TRUNCATED.format(count=cut)]
    for part in parts:
        answer = await respond(text=part, response_type=response_type, replace_original=False)
        if answer.status_code != 200:
            bound.error("slack_response_url_failed", status=answer.status_code, body=answer.body)
            return


async def _safely(bound: Any, work: Awaitable[Reply | None]) -> Reply | None:
    """Run the service; an unexpected error becomes a short apology, never silence."""
    try:
        return await work
    except Exception:
        bound.exception("slack_handler_failed")
        return Reply(SORRY)


def register(
    app: AsyncApp,
    service: ChatService,
    flags: Flags,
    options: SlackOptions | None = None,
    shutdown: Shutdown | None = None,
    client_for: ClientFor | None = None,
) -> None:
    """Attach the middleware and listeners to ``app``.

    ``client_for`` gives the Web API client of a workspace (the OAuth install flow:
    each workspace its own token); by default ``app.client`` serves every workspace.
    """
    options = options or SlackOptions()
    if shutdown is not None:
        app.middleware(shutdown.middleware())
    app.middleware(dedupe_deliveries(flags))
    # the model reads "Ana", not U024BE7LH
    service.use_names("slack", SlackNames(client_for or one_client(app.client)))
    answer = message_listener(service, flags, options)
    app.event("app_mention")(ack=ack_now, lazy=[answer])
    app.event("message")(ack=ack_now, lazy=[answer])
    app.command(re.compile(r"^/\S+$"))(ack=ack_now, lazy=[command_listener(service, options)])
    register_interactions(app, service)
    register_board(app, service)
    register_home(app, service, client_for or one_client(app.client))
    # scheduled runs (reminders) post their replies through send_reply too
    service.deliveries.register(
        "slack", slack_delivery(client_for or one_client(app.client), options)
    )
