"""Answer one addressed Discord message: claim it, run it, post the reply, never raise.

Every failure ends in something the user sees or, when even that is impossible, an
error log with the session and event ids:

| what fails | what happens |
|---|---|
| the dedupe claim (Redis down) | the storage-unavailable reply; nothing is run |
| another process claimed the message | nothing (that process answers) |
| shutdown has begun | a "restarting, please resend" reply; nothing is run |
| the typing indicator (403 …) | ignored, the run goes on |
| the run | the service's friendly reply (``bots.chat.errors``) |
| posting the reply or its files (403; 5xx/429 after retries) | a ⚠️ reaction, an error log |
| the reaction too | an error log |
"""

from __future__ import annotations

import asyncio

import discord
import structlog
from redis.exceptions import RedisError

from bots.adapters.discord.catch_up import discord_history
from bots.adapters.discord.components import ApprovalStore, send_approval
from bots.adapters.discord.files import discord_fetch, send_media
from bots.adapters.discord.queued import DiscordQueued
from bots.adapters.discord.stream import discord_stream, finish_stream
from bots.adapters.discord.traits import MESSAGE_LIMIT
from bots.chat.chunking import chunk_text
from bots.chat.errors import STORE_DOWN, UNEXPECTED
from bots.chat.replies import Reply
from bots.chat.service import ChatService
from bots.chat.streaming import PagedStream, StreamOptions
from bots.inbound import InboundMessage
from bots.ops.drain import Drain
from bots.ops.flags import Flags
from bots.ops.metrics import delivery_failed

log = structlog.get_logger(__name__)

DEDUPE_TTL = 600  # seconds a message id stays claimed; far beyond any redelivery
WARNING_EMOJI = "\N{WARNING SIGN}\N{VARIATION SELECTOR-16}"
RESTARTING = "I am restarting, so I did not run this. Please send it again in a minute."
INTERRUPTED = (
    "I had to stop while working on this because I am restarting; part of it may have "
    "been applied, so please check before resending."
)


async def answer_message(
    message: discord.Message,
    msg: InboundMessage,
    *,
    service: ChatService,
    flags: Flags,
    drain: Drain,
    stream: StreamOptions | None = None,
    approvals: ApprovalStore | None = None,
    bot_id: int | None = None,
) -> None:
    """Claim ``msg`` across processes, run it and post the reply; log what cannot be sent.

    With ``stream`` enabled the answer is shown as it is written (``bots.adapters.discord.stream``).
    """
    ids = {"platform": "discord", "event_id": msg.event_id, "session_id": msg.keys.session_id}
    try:
        claimed = await flags.claim(f"discord:message:{msg.event_id}", DEDUPE_TTL)
    except (RedisError, OSError) as exc:
        log.error("discord_dedupe_unavailable", error=repr(exc), **ids)
        await send_reply(message, Reply(STORE_DOWN), ids)
        return
    if not claimed:
        log.info("discord_duplicate_delivery", **ids)
        return
    if drain.closing:
        await send_reply(message, Reply(RESTARTING), ids)
        return
    with drain.track():
        sink = discord_stream(message.channel, stream) if stream is not None else None
        try:
            reply = await _run_typing(message, service, msg, ids, sink, bot_id)
        except asyncio.CancelledError:
            await send_reply(message, Reply(INTERRUPTED), ids)
            raise
        if reply is None:
            return
        if await finish_stream(sink, reply):  # the text is out; the media follow it
            await _send_media(message, reply, ids)
        else:
            await send_reply(message, reply, ids, approvals)


async def _run_typing(
    message: discord.Message,
    service: ChatService,
    msg: InboundMessage,
    ids: dict[str, str],
    sink: PagedStream | None = None,
    bot_id: int | None = None,
) -> Reply | None:
    """Run the message with a typing indicator when Discord allows one; say when it
    waits behind others, and let a first mention read the conversation before it."""
    typing = None
    try:
        typing = message.channel.typing()
        await typing.__aenter__()
    except discord.HTTPException as exc:  # no permission to type: answer anyway
        log.warning("discord_typing_failed", status=exc.status, code=exc.code, **ids)
        typing = None
    try:
        earlier = discord_history(message, bot_id) if bot_id is not None else None
        notice = DiscordQueued(message)
        return await service.handle_message(
            msg, sink=sink, notice=notice, earlier=earlier, fetch=discord_fetch(message)
        )
    except Exception:
        log.exception("discord_handler_failed", **ids)
        return Reply(UNEXPECTED)
    finally:
        if typing is not None:
            await typing.__aexit__(None, None, None)


async def send_reply(
    message: discord.Message,
    reply: Reply,
    ids: dict[str, str],
    approvals: ApprovalStore | None = None,
) -> bool:
    """Post ``reply`` in chunks where ``message`` came from; True when all of it was sent.

    A reply asking for approval goes with its buttons (``bots.adapters.discord.components``).
    """
    if reply.approval is not None and approvals is not None:
        try:
            await send_approval(message.channel, reply, approvals)
        except discord.HTTPException as exc:
            log.error(
                "discord_send_failed", status=exc.status, code=exc.code, error=exc.text, **ids
            )
            delivery_failed("discord")
            await _warn(message, ids)
            return False
        return True
    parts = chunk_text(reply.text, MESSAGE_LIMIT) or ["Done."]
    for index, part in enumerate(parts):
        try:
            await message.channel.send(part)
        except discord.HTTPException as exc:
            log.error(
                "discord_send_failed",
                status=exc.status,
                code=exc.code,
                error=exc.text,
                sent_parts=index,
                parts=len(parts),
                **ids,
            )
            delivery_failed("discord")
            await _warn(message, ids)
            return False
    return await _send_media(message, reply, ids)


async def _send_media(message: discord.Message, reply: Reply, ids: dict[str, str]) -> bool:
    """Post a tool's images and files after the text; a failure is told like the text's."""
    if not reply.media:
        return True
    try:
        await send_media(message.channel, reply.media)
    except discord.HTTPException as exc:
        log.error("discord_send_failed", status=exc.status, code=exc.code, error=exc.text, **ids)
        delivery_failed("discord")
        await _warn(message, ids)
        return False
    return True


async def _warn(message: discord.Message, ids: dict[str, str]) -> None:
    """Mark the user's message so a reply that could not be posted is not a silent drop."""
    try:
        await message.add_reaction(WARNING_EMOJI)
    except discord.HTTPException as exc:
        log.error("discord_warning_reaction_failed", status=exc.status, code=exc.code, **ids)
