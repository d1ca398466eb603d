"""Approve / Reject buttons on Discord: components out, component interactions back in.

A paused run's reply is sent with a ``discord.ui.View`` of two buttons under the
question naming the tool and its arguments. Discord caps a ``custom_id`` at 100
characters, too short for :meth:`bots.chat.approvals.Approval.encode` (a Discord session
id alone is ~67), so the encoded approval is kept in an :class:`ApprovalStore`
(Redis when ``REDIS_URL`` is set, shared by every process; else process memory)
under a digest of itself, and the buttons carry ``statebot:approval:<y|n>:<digest>``.
Only the bot can write its buttons, and a digest names exactly one approval.

The buttons are a ``DynamicItem``: any process whose client registered it handles a
click, also after a restart. The click is deferred at once (Discord wants an answer
in 3 s), applied through :meth:`bots.chat.service.ChatService.handle_decision`, then:
refusals (not yours, already handled, expired) go to the clicker only; a decision
removes the buttons and posts the run's answer where the question was.

The same buttons, labelled Confirm / Cancel, confirm an admin's ``/state restore`` or
``/state erase`` (``bots.admin.confirm``); that question is ephemeral, and its outcome
replaces it (text, no buttons).
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import discord
import structlog

from bots.adapters.discord.traits import MESSAGE_LIMIT
from bots.chat.approvals import EXPIRED, Approval, Decision
from bots.chat.chunking import chunk_text
from bots.chat.replies import Reply
from bots.settings import Settings
from core.db.redis.client import RedisClient, connect

if TYPE_CHECKING:
    from bots.chat.service import ChatService

log = structlog.get_logger(__name__)

#: how long a question's buttons keep working (a paused run waits in its session longer)
APPROVAL_TTL = 7 * 86_400
PREFIX = "statebot:approval"
TEMPLATE = rf"{PREFIX}:(?P<choice>[yn]):(?P<token>[0-9a-f]{{32}})"


class ApprovalStore(Protocol):
    """Where encoded approvals wait for their click, by digest."""

    async def put(self, approval: Approval) -> str:
        """Keep ``approval`` for APPROVAL_TTL seconds; return its digest."""
        ...

    async def get(self, token: str) -> Approval | None:
        """The approval under ``token``; None when unknown or expired."""
        ...


def digest(approval: Approval) -> str:
    """32 hex characters naming one encoded approval (the same approval, the same digest)."""
    return hashlib.sha256(approval.encode().encode()).hexdigest()[:32]


class ApprovalHost(Protocol):
    """What a click needs of the client it arrives on (``StatebotDiscord`` is one): the
    parts receive the client through the interaction and never import it."""

    service: ChatService
    approvals: ApprovalStore


class RedisApprovals:
    """Approvals in Redis, readable by every bot process using the same URL and prefix."""

    __slots__ = ("_prefix", "_redis")

    def __init__(self, redis: RedisClient, prefix: str = "statebot:") -> None:
        self._redis = redis
        self._prefix = prefix

    async def put(self, approval: Approval) -> str:
        """``SET approval:<digest> <encoded> EX APPROVAL_TTL``."""
        token = digest(approval)
        key = f"{self._prefix}approval:{token}"
        await self._redis.set(key, approval.encode(), ex=APPROVAL_TTL)
        return token

    async def get(self, token: str) -> Approval | None:
        """``GET approval:<digest>``, decoded."""
        raw = await self._redis.get(f"{self._prefix}approval:{token}")
        return Approval.decode(raw.decode() if isinstance(raw, bytes) else raw) if raw else None

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._redis.aclose()


class MemoryApprovals:
    """Approvals in one process's memory (one process only); expiry on the injected clock."""

    __slots__ = ("_clock", "_items")

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._items: dict[str, tuple[float, str]] = {}

    async def put(self, approval: Approval) -> str:
        """Keep the encoded approval until APPROVAL_TTL has passed."""
        token = digest(approval)
        self._items[token] = (self._clock() + APPROVAL_TTL, approval.encode())
        return token

    async def get(self, token: str) -> Approval | None:
        """The approval, unless unknown or expired."""
        found = self._items.get(token)
        if found is None or found[0] <= self._clock():
            return None
        return Approval.decode(found[1])

    async def aclose(self) -> None:
        """Nothing to close."""


def approvals_for(settings: Settings) -> RedisApprovals | MemoryApprovals:
    """Redis-backed approvals when REDIS_URL is set (many processes), else in memory."""
    if settings.redis_url:
        return RedisApprovals(connect(settings.redis_url))  # plain or cluster URL
    return MemoryApprovals()


class ApprovalButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=TEMPLATE):
    """Approve (``y``) or Reject (``n``) for the approval stored under ``token``."""

    def __init__(
        self, choice: str, token: str, labels: tuple[str, str] = ("Approve", "Reject")
    ) -> None:
        approve = choice == "y"
        super().__init__(
            discord.ui.Button(
                label=labels[0] if approve else labels[1],
                style=discord.ButtonStyle.success if approve else discord.ButtonStyle.danger,
                custom_id=f"{PREFIX}:{choice}:{token}",
            )
        )
        self.approve = approve
        self.token = token

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ApprovalButton:
        """Rebuild the button a click came from (any process, any time)."""
        return cls(match["choice"], match["token"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Apply the click; never raise into discord.py (failures become a reply)."""
        client: ApprovalHost = interaction.client
        ids = {"platform": "discord", "event_id": str(interaction.id)}
        await interaction.response.defer()  # a component: "deferred update", nothing shown
        approval = await client.approvals.get(self.token)
        if approval is None:
            log.info("approval_unknown", **ids)
            await interaction.followup.send(EXPIRED, ephemeral=True)
            return
        decision = Decision(
            platform="discord",
            workspace=str(interaction.guild_id) if interaction.guild_id else "dm",
            user=str(interaction.user.id),
            approve=self.approve,
            approval=approval,
            event_id=str(interaction.id),
        )
        reply = await client.service.handle_decision(decision)
        if approval.action:  # an admin's private question: the outcome takes its place
            text = (chunk_text(reply.text, MESSAGE_LIMIT) or ["Done."])[0]
            await interaction.edit_original_response(content=text, view=None)
            return
        if reply.ephemeral:
            await interaction.followup.send(reply.text, ephemeral=True)
            return
        await interaction.edit_original_response(view=None)  # decided: no more buttons
        if reply.approval is not None:  # the run stopped for another confirmation
            await send_approval(interaction.followup, reply, client.approvals)
            return
        for part in chunk_text(reply.text, MESSAGE_LIMIT) or ["Done."]:
            await interaction.followup.send(part)


def approval_view(token: str, labels: tuple[str, str] = ("Approve", "Reject")) -> discord.ui.View:
    """The two buttons for the approval stored under ``token`` (no timeout: they persist)."""
    view = discord.ui.View(timeout=None)
    view.add_item(ApprovalButton("y", token, labels))
    view.add_item(ApprovalButton("n", token, labels))
    return view


async def send_approval(target: Any, reply: Reply, store: ApprovalStore) -> None:
    """Send the reply's question (tool and arguments) with its buttons to ``target``.

    ``target`` is anything with discord.py's ``send(content, view=...)``: a channel,
    a thread, an interaction's followup webhook.
    """
    assert reply.approval is not None
    token = await store.put(reply.approval)
    view = approval_view(token, reply.approval.labels)
    await target.send(reply.text[:MESSAGE_LIMIT], view=view)
