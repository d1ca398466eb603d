"""A button on one of the bot's cards: the click path Slack's and Discord's take.

A board button (or the add form) runs through ``ChatService.handle_click`` and the
card is redrawn from the new state, both in the invoke's answer (the clicker sees
it at once) and in the message itself (everyone does). Approve / Reject goes through
``ChatService.handle_decision``: only the asker or an admin decides; a refusal, an
expired or already handled question is told to the clicker alone (the invoke's
message answer) and changes nothing; a decision replaces the buttons with its
outcome and the run's answer is posted in the conversation; a run still going after
``INVOKE_WAIT`` seconds (a model answering) gets Teams its answer at once ("the
answer follows") and finishes in the background. A client that sends
``Action.Submit`` instead gets the same, as messages and an update of the card.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import aiohttp
import structlog
from microsoft_agents.activity import Activity, InvokeResponse
from microsoft_agents.hosting.core import TurnContext

from bots.adapters.teams.cards import CONTENT_TYPE, FIELD, board_card, decided_card, fits
from bots.adapters.teams.names import TeamsNames
from bots.adapters.teams.parse import PLATFORM, CardAction
from bots.adapters.teams.replies import deliver
from bots.adapters.teams.send import Sender, message
from bots.chat.approvals import EXPIRED, Approval, Decision
from bots.chat.cards import Click, decode_action
from bots.chat.replies import Reply
from bots.chat.service import ChatService
from bots.ops.metrics import delivery_failed

log = structlog.get_logger(__name__)

NOT_OURS = "That button is not one of mine; nothing was done."
BUTTON_EXPIRED = "That button has expired; nothing was done. List the board again."
MESSAGE_TYPE = "application/vnd.microsoft.activity.message"
#: seconds an Approve / Reject invoke waits for the resumed run before Teams is answered
#: (its client gives up on an invoke after some seconds; a model's answer can take longer)
INVOKE_WAIT = 4.0
WORKING = "Decided; the answer follows in this conversation."

#: ``later(activity, turn)``: run ``turn`` in ``activity``'s conversation once it can
Later = Callable[[Activity, Callable[[TurnContext], Awaitable[None]]], None]


class ActionHandler:
    """Applies card actions and says what the invoke answers."""

    __slots__ = ("budget", "invoke_wait", "later", "names", "service")

    def __init__(
        self,
        service: ChatService,
        budget: float,
        names: TeamsNames,
        later: Later,
        invoke_wait: float | None = None,
    ) -> None:
        self.service = service
        self.budget = budget
        self.names = names
        #: runs a turn in the conversation of an activity later (the bot's proactive path)
        self.later = later
        self.invoke_wait = INVOKE_WAIT if invoke_wait is None else invoke_wait

    @staticmethod
    def note(text: str) -> InvokeResponse:
        """An answer only the clicker sees (Universal Actions' message response)."""
        return InvokeResponse(
            status=200, body={"statusCode": 200, "type": MESSAGE_TYPE, "value": text}
        )

    @staticmethod
    def card(card: dict[str, Any]) -> InvokeResponse:
        """An answer replacing the clicked card."""
        return InvokeResponse(
            status=200, body={"statusCode": 200, "type": CONTENT_TYPE, "value": card}
        )

    async def handle(self, context: TurnContext, action: CardAction) -> InvokeResponse | None:
        """Apply ``action``; the invoke's answer (None for an Action.Submit message)."""
        sender = Sender(context, self.budget, self.names.known)
        ids = {"platform": PLATFORM, "event_id": action.event_id}
        try:
            if action.kind == "approval":
                response = await self._decide(sender, action)
            elif action.kind in ("card", "form"):
                response = await self._click(sender, action)
            else:
                response = self.note(NOT_OURS)
        except aiohttp.ClientError as exc:  # the card or answer could not be posted
            log.error("teams_action_send_failed", error=repr(exc), **ids)
            delivery_failed(PLATFORM)
            return None if not action.invoke else InvokeResponse(status=500)
        if action.invoke:
            return response
        await self._as_messages(sender, action, response)
        return None

    async def _as_messages(
        self, sender: Sender, action: CardAction, response: InvokeResponse
    ) -> None:
        """An Action.Submit has no invoke to answer: a note is posted, a card updated."""
        body = response.body if isinstance(response.body, Mapping) else {}
        if body.get("type") == MESSAGE_TYPE:
            await sender.text(str(body.get("value")))

    def _click_of(self, action: CardAction) -> Click | None:
        click = decode_action(
            str(action.data.get("value") or ""),
            platform=PLATFORM,
            workspace=action.workspace,
            user=action.user,
            event_id=action.event_id,
        )
        if click is None or action.kind != "form":
            return click
        typed = {
            str(k)[len(FIELD) :]: str(v).strip()
            for k, v in action.data.items()
            if str(k).startswith(FIELD) and str(v).strip()
        }
        return Click(
            click.platform,
            click.workspace,
            click.user,
            click.agent_id,
            click.session_id,
            click.tool,
            typed,
            click.view,
            click.view_arguments,
            click.event_id,
        )

    async def _click(self, sender: Sender, action: CardAction) -> InvokeResponse:
        click = self._click_of(action)
        if click is None:
            return self.note(BUTTON_EXPIRED)
        reply = await self.service.handle_click(click)
        card = board_card(reply.card) if reply.card is not None else None
        if card is None or not fits(card):  # done; the clicker reads the tool's answer
            return self.note(reply.text)
        if action.card_id:  # everyone sees the new board, not only the clicker
            await sender.update(action.card_id, message(card=card))
        if reply.ephemeral:  # a stale board: redrawn, and the clicker told why
            return self.note(reply.text)
        return self.card(card)

    async def _decide(self, sender: Sender, action: CardAction) -> InvokeResponse:
        approval = Approval.decode(str(action.data.get("approval") or ""))
        if approval is None:
            return self.note(EXPIRED)
        decision = Decision(
            platform=PLATFORM,
            workspace=action.workspace,
            user=action.user,
            approve=action.data.get("approve") is True,
            approval=approval,
            event_id=action.event_id,
        )
        run = asyncio.ensure_future(self.service.handle_decision(decision))
        done, _ = await asyncio.wait({run}, timeout=self.invoke_wait)
        if run in done:
            return await self._decided(sender, action, approval, run.result())
        # refusals answer at once, so a decision still running was accepted: Teams gets
        # its answer now, the rest is posted when the run ends
        working = decided_card(f"{approval.prompt}\n\n{WORKING}")
        self.later(sender.context.activity, self._finish(action, approval, run))
        return self.card(working)

    def _finish(
        self, action: CardAction, approval: Approval, run: asyncio.Future[Reply]
    ) -> Callable[[TurnContext], Awaitable[None]]:
        async def turn(context: TurnContext) -> None:
            sender = Sender(context, self.budget, self.names.known)
            try:
                reply = await run
            except asyncio.CancelledError:
                run.cancel()
                raise
            response = await self._decided(sender, action, approval, reply)
            body = response.body if isinstance(response.body, Mapping) else {}
            if body.get("type") == MESSAGE_TYPE:  # too late to tell the clicker alone
                await sender.text(str(body.get("value")))

        return turn

    async def _decided(
        self, sender: Sender, action: CardAction, approval: Approval, reply: Reply
    ) -> InvokeResponse:
        if reply.ephemeral:  # not yours, already handled, expired: nothing changed
            return self.note(reply.text)
        if approval.action:  # an admin's question: its outcome takes its place
            done = decided_card(reply.text)
        else:
            outcome = reply.text.split("\n", 1)[0]
            done = decided_card(f"{approval.prompt}\n\n{outcome}")
            await deliver(sender, reply)  # the run's answer (or its next question)
        if action.card_id:
            await sender.update(action.card_id, message(card=done))
        return self.card(done)
