"""The SDK agent: what Statebot does with each activity the endpoint accepted.

A message addressed to the bot is acknowledged at once (the HTTP 202 goes back
while the work starts) and answered in the background through
``continue_conversation``: typing indicator, the run through the one ChatService
pipeline, then the reply in the same reply chain (a personal chat's answer streams
by edits, ``bots.adapters.teams.stream``). A card button arrives as an
``adaptiveCard/action`` invoke and is answered in the invoke: the new board (also
written into the message for everyone), or a note only the clicker sees.

Every failure ends in something the user sees or, when even that is impossible,
an error log with the ids and ``statebot_delivery_failures_total``:

| what fails | what happens |
|---|---|
| the dedupe claim (Redis down) | the storage-unavailable reply; nothing is run |
| another process claimed the activity (a redelivery) | nothing |
| shutdown has begun | "restarting, please resend"; nothing is run |
| the typing indicator | ignored, the run goes on |
| the run | the service's friendly reply (``bots.chat.errors``) |
| posting (403, or 429/5xx past TEAMS_SEND_TIMEOUT) | an error log, the failure counted |
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import aiohttp
import structlog
from microsoft_agents.activity import Activity, InvokeResponse
from microsoft_agents.hosting.core import ChannelServiceAdapter, TurnContext
from redis.exceptions import RedisError

from bots.adapters.teams.actions import ActionHandler
from bots.adapters.teams.names import TeamsNames
from bots.adapters.teams.parse import PLATFORM, parse_action, parse_message, tenant_of
from bots.adapters.teams.replies import deliver
from bots.adapters.teams.send import Sender
from bots.adapters.teams.stream import teams_stream
from bots.chat.admin_seam import BUILTIN_COMMANDS
from bots.chat.errors import STORE_DOWN, UNEXPECTED
from bots.chat.replies import Reply
from bots.chat.service import ChatService
from bots.chat.streaming import StreamOptions
from bots.inbound import InboundMessage, SlashCommand
from bots.ops.drain import Drain
from bots.ops.flags import Flags, MemoryFlags
from bots.ops.metrics import delivery_failed

log = structlog.get_logger(__name__)

#: seconds between typing indicators while a run works (Teams shows one for a few seconds)
TYPING_EVERY = 3.0
DEDUPE_TTL = 600  # seconds an activity id stays claimed; Teams redelivers within seconds
RESTARTING = "I am restarting, so I did not run this. Please send it again in a minute."
#: what a channel or group chat sees of ``/state`` output (Teams cannot show a message
#: to one person there, and state may hold anything)
PERSONAL_ONLY = (
    "/{command} answers only in a personal chat with me (Teams cannot show a reply to you "
    "alone here); nothing was shown. Send it to me directly."
)
#: built-in commands whose private answers (usage, memories, links) stay in personal chats
_PRIVATE_COMMANDS = frozenset(c.name for c in BUILTIN_COMMANDS)
INTERRUPTED = (
    "I had to stop while working on this because I am restarting; part of it may have "
    "been applied, so please check before resending."
)


class TeamsBot:
    """``on_turn`` for the SDK's ``CloudAdapter``; ``shutdown(grace)`` drains its work."""

    def __init__(
        self,
        service: ChatService,
        adapter: ChannelServiceAdapter,
        *,
        app_id: str,
        send_budget: float,
        flags: Flags | None = None,
        stream: StreamOptions | None = None,
    ) -> None:
        self.service = service
        self.adapter = adapter
        self.app_id = app_id
        self.budget = send_budget
        self.flags: Flags = flags or MemoryFlags()
        self.drain = Drain()
        self.stream = (
            stream if stream is not None else StreamOptions.from_settings(service.settings)
        )
        self.names = TeamsNames()
        #: the Bot Connector URL each tenant last wrote from (reminders post there)
        self.service_urls: dict[str, str] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self.actions = ActionHandler(service, send_budget, self.names, self.later)
        service.use_names(PLATFORM, self.names)  # the model reads names, not ids

    async def on_turn(self, context: TurnContext) -> None:
        """Route one activity: a card action, an addressed message, or nothing."""
        activity = context.activity
        payload = activity.model_dump(by_alias=True, exclude_none=True, mode="json")
        self.names.learn(payload)
        if activity.service_url:
            with contextlib.suppress(ValueError):  # no tenant: nothing to remember it by
                self.service_urls[tenant_of(payload)] = activity.service_url
        action = parse_action(payload)
        if action is not None:
            if self.drain.closing:
                await self._respond(context, self.actions.note(RESTARTING))
                return
            with self.drain.track():
                response = await self.actions.handle(context, action)
            await self._respond(context, response)
            return
        if activity.type == "invoke":  # an invoke that is not ours: say so, in the invoke
            await self._respond(context, InvokeResponse(status=501))
            return
        msg = parse_message(payload)
        if msg is None or (isinstance(msg, InboundMessage) and not msg.addressed):
            return
        await self._accept(context, msg)

    async def _respond(self, context: TurnContext, response: InvokeResponse | None) -> None:
        if response is not None and context.activity.type == "invoke":
            await context.send_activity(Activity(type="invokeResponse", value=response))

    async def _accept(self, context: TurnContext, msg: InboundMessage | SlashCommand) -> None:
        """Claim the message, then answer it in the background (the HTTP ack goes now)."""
        ids = {"platform": PLATFORM, "event_id": msg.event_id, "session_id": msg.keys.session_id}
        sender = Sender(context, self.budget, self.names.known)
        try:
            claimed = await self.flags.claim(f"teams:activity:{msg.event_id}", DEDUPE_TTL)
        except (RedisError, OSError) as exc:
            log.error("teams_dedupe_unavailable", error=repr(exc), **ids)
            await self._post(sender, Reply(STORE_DOWN), ids)
            return
        if not claimed:
            log.info("teams_duplicate_delivery", **ids)
            return
        if self.drain.closing:
            await self._post(sender, Reply(RESTARTING), ids)
            return
        reference = context.activity.get_conversation_reference()
        continuation = reference.get_continuation_activity()
        continuation.id = context.activity.id  # replies answer this message, in its chain
        self._spawn(self._proactive(continuation, self._turn(msg, ids), ids))

    def later(self, activity: Activity, turn: Callable[[TurnContext], Awaitable[None]]) -> None:
        """Run ``turn`` in ``activity``'s conversation in the background (drained on stop)."""
        continuation = activity.get_conversation_reference().get_continuation_activity()
        continuation.id = None  # a new post in the conversation (a reply chain's root stays)
        ids = {"platform": PLATFORM, "event_id": str(activity.id or "")}
        self._spawn(self._proactive(continuation, turn, ids))

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _proactive(
        self,
        continuation: Activity,
        turn: Callable[[TurnContext], Awaitable[None]],
        ids: dict[str, str],
    ) -> None:
        with self.drain.track():
            try:
                await self.adapter.continue_conversation(self.app_id, continuation, turn)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the proactive turn itself failed (token, connector)
                log.error("teams_answer_failed", error=repr(exc), **ids)
                delivery_failed(PLATFORM)

    def _turn(
        self, msg: InboundMessage | SlashCommand, ids: dict[str, str]
    ) -> Callable[[TurnContext], Any]:
        async def turn(context: TurnContext) -> None:
            sender = Sender(context, self.budget, self.names.known)
            typing = asyncio.create_task(_keep_typing(sender))
            sink = teams_stream(sender, self.stream) if msg.is_dm else None
            try:
                if isinstance(msg, SlashCommand):
                    reply: Reply | None = await self.service.handle_command(msg)
                else:
                    reply = await self.service.handle_message(msg, sink=sink)
            except asyncio.CancelledError:
                typing.cancel()
                await self._post(sender, Reply(INTERRUPTED), ids)
                raise
            except Exception:
                log.exception("teams_handler_failed", **ids)
                reply = Reply(UNEXPECTED)
            finally:
                typing.cancel()
            if reply is not None:
                reply = _kept_private(msg, reply)
                if sink is not None and await sink.finished(reply):
                    return
                await self._post(sender, reply, ids)

        return turn

    async def _post(self, sender: Sender, reply: Reply, ids: dict[str, str]) -> bool:
        try:
            await deliver(sender, reply)
        except (aiohttp.ClientError, ValueError) as exc:
            log.error("teams_send_failed", error=repr(exc), **ids)
            delivery_failed(PLATFORM)
            return False
        return True

    async def shutdown(self, grace: float) -> bool:
        """Turn new activities away, let answers in flight finish within ``grace`` s."""
        log.info("teams_shutdown", platform=PLATFORM, in_flight=self.drain.in_flight)
        return await self.drain.shutdown(grace)


def _kept_private(msg: InboundMessage | SlashCommand, reply: Reply) -> Reply:
    """A built-in command's output meant for the asker alone (``/state``, ``/memory``,
    ``/connect``) is not posted where others read it."""
    if not isinstance(msg, SlashCommand) or msg.is_dm:
        return reply
    command = msg.command.lower().lstrip("/")
    if reply.ephemeral and command in _PRIVATE_COMMANDS:
        return Reply(PERSONAL_ONLY.format(command=command), ephemeral=True)
    return reply


async def _keep_typing(sender: Sender) -> None:
    """The typing indicator, renewed every TYPING_EVERY seconds until cancelled."""
    while True:
        await sender.typing()
        await asyncio.sleep(TYPING_EVERY)
