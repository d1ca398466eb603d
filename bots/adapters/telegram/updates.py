"""One update handled: claimed once, run through the ChatService, answered; never raises.

| what fails | what happens |
|---|---|
| the dedupe claim (Redis down) | the storage-unavailable reply; nothing is run |
| another process claimed the update (a webhook redelivery) | nothing |
| shutdown has begun | "restarting, please resend" (an alert for a click); nothing is run |
| the typing indicator | ignored, the run goes on |
| the run | the service's friendly reply (``bots.chat.errors``) |
| the run is cut short by shutdown | "I had to stop …, please check before resending" |
| posting the reply (403, 400; 429 after the limiter's retries) | an error log, a metric |
"""

from __future__ import annotations

import asyncio

import structlog
from redis.exceptions import RedisError
from telegram import Bot, Update
from telegram.constants import ChatAction
from telegram.error import TelegramError

from bots.adapters.telegram.parse import BotIdentity, Press, parse_press, parse_update
from bots.adapters.telegram.presses import handle_press
from bots.adapters.telegram.send import Where, send_reply
from bots.adapters.telegram.stream import finish_stream, telegram_stream
from bots.chat.admin_seam import BUILTIN_COMMANDS
from bots.chat.button_store import ButtonStore
from bots.chat.errors import STORE_DOWN, UNEXPECTED
from bots.chat.replies import Reply
from bots.chat.service import ChatService
from bots.chat.streaming import PagedStream, StreamOptions
from bots.inbound import InboundMessage, SlashCommand
from bots.ops.drain import Drain
from bots.ops.flags import Flags
from bots.ops.metrics import delivery_failed

log = structlog.get_logger(__name__)

__all__ = ["INTERRUPTED", "RESTARTING", "UpdateHandler"]

DEDUPE_TTL = 86_400  # Telegram redelivers a webhook update for up to a day
RESTARTING = "I am restarting, so I did not run this. Please send it again in a minute."
INTERRUPTED = (
    "I had to stop while working on this because I am restarting; part of it may have "
    "been applied, so please check before resending."
)


class UpdateHandler:
    """Routes each update (message, command, click) to the service and posts the answer."""

    __slots__ = ("bot", "buttons", "commands", "drain", "flags", "identity", "service", "stream")

    def __init__(
        self,
        bot: Bot,
        identity: BotIdentity,
        service: ChatService,
        *,
        flags: Flags,
        buttons: ButtonStore,
        drain: Drain,
    ) -> None:
        self.bot = bot
        self.identity = identity
        self.service = service
        self.flags = flags
        self.buttons = buttons
        self.drain = drain
        #: the command names this bot answers (a bare unknown one in a group is another's)
        builtins = (c.name for c in BUILTIN_COMMANDS)  # /state, /memory, /connect
        self.commands = frozenset([*(a.lower() for a in service.agents), *builtins])
        self.stream = StreamOptions.from_settings(service.settings)

    async def handle(self, update: Update) -> None:
        """Handle one update to its end; log what cannot be delivered."""
        event = parse_update(update, self.identity, self.commands) or parse_press(
            update, self.identity
        )
        if event is None:
            return
        ids = {"platform": "telegram", "update_id": update.update_id}
        try:
            claimed = await self.flags.claim(
                f"telegram:update:{self.identity.id}:{update.update_id}", DEDUPE_TTL
            )
        except (RedisError, OSError) as exc:
            log.error("telegram_dedupe_unavailable", error=repr(exc), **ids)
            await self._refuse(event, STORE_DOWN, ids)
            return
        if not claimed:
            log.info("telegram_duplicate_update", **ids)
            return
        if self.drain.closing:
            await self._refuse(event, RESTARTING, ids)
            return
        with self.drain.track():
            try:
                if isinstance(event, Press):
                    await handle_press(self.bot, event, self.service, self.buttons)
                else:
                    await self._answer(event, ids)
            except TelegramError as exc:
                log.error("telegram_send_failed", error=str(exc), **ids)
                delivery_failed("telegram")
            except Exception:  # never into the intake's task: logged, and a click answered
                log.exception("telegram_update_failed", **ids)
                if isinstance(event, Press):
                    await self._refuse(event, UNEXPECTED, ids)

    async def _answer(self, event: InboundMessage | SlashCommand, ids: dict[str, object]) -> None:
        where = where_of(event)
        typing = asyncio.create_task(self._typing(where))
        sink = None
        if isinstance(event, InboundMessage):  # commands run no model: nothing to stream
            sink = telegram_stream(self.bot, where, self.stream)
        try:
            reply = await self._run(event, sink)
        except asyncio.CancelledError:
            await send_reply(self.bot, where, Reply(INTERRUPTED), self.buttons)
            raise
        finally:
            typing.cancel()
        if reply is not None and not await finish_stream(sink, reply):
            await send_reply(self.bot, where, reply, self.buttons)
        if reply is not None:
            log.info("telegram_replied", session_id=event.keys.session_id, **ids)

    async def _run(
        self, event: InboundMessage | SlashCommand, sink: PagedStream | None
    ) -> Reply | None:
        try:
            if isinstance(event, SlashCommand):
                return await self.service.handle_command(event)
            return await self.service.handle_message(event, sink=sink)
        except Exception:
            log.exception("telegram_handler_failed", event_id=event.event_id)
            return Reply(UNEXPECTED)

    async def _typing(self, where: Where) -> None:
        """Show "typing…" while the run works; decoration, so a refusal is only logged."""
        try:
            await self.bot.send_chat_action(
                where.chat, ChatAction.TYPING, message_thread_id=where.thread
            )
        except TelegramError as exc:
            log.warning("telegram_typing_failed", error=str(exc), chat=where.chat)

    async def _refuse(
        self, event: InboundMessage | SlashCommand | Press, text: str, ids: dict[str, object]
    ) -> None:
        """Say why nothing was run, to the clicker alone for a click."""
        try:
            if isinstance(event, Press):
                await self.bot.answer_callback_query(event.query_id, text=text, show_alert=True)
            else:
                await send_reply(self.bot, where_of(event), Reply(text), self.buttons)
        except TelegramError as exc:
            log.error("telegram_send_failed", error=str(exc), **ids)
            delivery_failed("telegram")


def where_of(event: InboundMessage | SlashCommand) -> Where:
    """Where the answer to ``event`` goes: its chat and topic, replying to it in groups."""
    message_id = int(event.event_id.rsplit(":", 1)[1])
    return Where(
        chat=int(event.channel),
        thread=int(event.reply_thread) if event.reply_thread else None,
        reply_to=None if event.is_dm else message_id,
        is_dm=event.is_dm,
        user=int(event.user),
    )
