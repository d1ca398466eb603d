"""Clickable cards on Discord: an embed with button rows, a modal to add, edits in place.

A card with :class:`bots.chat.cards.Controls` is sent as its embed plus a ``View``: one row
of buttons per item (the first four items; Discord allows five rows) and a last row
with the add button. A ``custom_id`` holds at most 100 characters, fewer than a click
needs, so what a button runs is kept in a :class:`ButtonStore` (Redis with
``REDIS_URL``, shared by every process; else process memory) under a digest, and the
button carries ``statebot:card:<digest>``. The buttons are a ``DynamicItem``: any
process handles a click, also after a restart.

A click is deferred, run through :meth:`bots.chat.service.ChatService.handle_click` (the
slash-command path) and the board message is edited in place; a stale click gets an
ephemeral follow-up. **Delete** first asks, ephemerally, with a confirm button that
edits the board once confirmed. The add button opens a ``Modal``; its submission runs
the form's tool and edits the board.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import discord
import structlog

from bots.adapters.discord.embeds import card_embed
from bots.chat.cards import (
    Card,
    Click,
    Form,
    FormField,
    button_value,
    decode_action,
    encode_action,
)
from bots.chat.replies import Reply
from bots.settings import Settings
from core.db.redis.client import RedisClient, connect

if TYPE_CHECKING:
    from bots.chat.service import ChatService

log = structlog.get_logger(__name__)

#: how long a card's buttons keep working
BUTTON_TTL = 30 * 86_400
PREFIX = "statebot:card"
TEMPLATE = rf"{PREFIX}:(?P<token>[0-9a-f]{{32}})"
ROWS = 4  # item rows; the fifth holds the add button
EXPIRED = "That button has expired; nothing was done. List the board again."
_STYLES = {
    "primary": discord.ButtonStyle.primary,
    "danger": discord.ButtonStyle.danger,
}


class ButtonStore(Protocol):
    """Where what a button runs waits for its click, by digest."""

    async def put(self, value: str) -> str:
        """Keep ``value`` for BUTTON_TTL seconds; return its digest."""
        ...

    async def get(self, token: str) -> str | None:
        """The value under ``token``; None when unknown or expired."""
        ...


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()[:32]


class BoardHost(Protocol):
    """What a board click needs of the client it arrives on (``BoardHost`` is one):
    the parts receive the client through the interaction and never import it."""

    service: ChatService
    buttons: ButtonStore

    def get_partial_messageable(self, id: int, /) -> discord.PartialMessageable:
        """A channel to edit a message in, by id."""
        ...


class RedisButtons:
    """Button values in Redis, readable by every bot process on the same URL."""

    __slots__ = ("_prefix", "_redis")

    def __init__(self, redis: RedisClient, prefix: str = "statebot:") -> None:
        self._redis = redis
        self._prefix = prefix

    async def put(self, value: str) -> str:
        """``SET card:<digest> <value> EX BUTTON_TTL``."""
        token = _digest(value)
        await self._redis.set(f"{self._prefix}card:{token}", value, ex=BUTTON_TTL)
        return token

    async def get(self, token: str) -> str | None:
        """``GET card:<digest>``."""
        raw = await self._redis.get(f"{self._prefix}card:{token}")
        return raw.decode() if isinstance(raw, bytes) else raw

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._redis.aclose()


class MemoryButtons:
    """Button values in one process's memory; expiry on the injected clock."""

    __slots__ = ("_clock", "_items")

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._items: dict[str, tuple[float, str]] = {}

    async def put(self, value: str) -> str:
        """Keep the value until BUTTON_TTL has passed."""
        token = _digest(value)
        self._items[token] = (self._clock() + BUTTON_TTL, value)
        return token

    async def get(self, token: str) -> str | None:
        """The value, unless unknown or expired."""
        found = self._items.get(token)
        return found[1] if found is not None and found[0] > self._clock() else None

    async def aclose(self) -> None:
        """Nothing to close."""


def buttons_for(settings: Settings) -> RedisButtons | MemoryButtons:
    """Redis-backed buttons when REDIS_URL is set (many processes), else in memory."""
    if settings.redis_url:
        return RedisButtons(connect(settings.redis_url))  # plain or cluster URL
    return MemoryButtons()


class CardButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=TEMPLATE):
    """A card button; what it runs is stored under ``token``."""

    def __init__(
        self, token: str, label: str = "…", style: str = "", row: int | None = None
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label[:80],
                style=_STYLES.get(style, discord.ButtonStyle.secondary),
                custom_id=f"{PREFIX}:{token}",
                row=row,
            )
        )
        self.token = token

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> CardButton:
        """Rebuild the button a click came from (any process, any time)."""
        return cls(match["token"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Ask, open the form, or run the click and redraw the board."""
        client: BoardHost = interaction.client
        stored = await client.buttons.get(self.token)
        if stored is None:
            await interaction.response.send_message(EXPIRED, ephemeral=True)
            return
        data = json.loads(stored)
        click = _click(interaction, str(data["value"]))
        if click is None:
            await interaction.response.send_message(EXPIRED, ephemeral=True)
            return
        if data.get("confirm"):
            await _ask_first(interaction, client, data)
            return
        if data.get("form"):
            form = _form(data["form"])
            await interaction.response.send_modal(FormModal(form, click))
            return
        await interaction.response.defer()
        reply = await client.service.handle_click(click)
        board = data.get("board")
        if board:  # a confirmation: the board is another message
            await _redraw_message(client, int(board[0]), int(board[1]), reply)
            await interaction.edit_original_response(content=reply.text[:2000], view=None)
            return
        await _redraw(interaction, client, reply)


class FormModal(discord.ui.Modal):
    """The add form: one text input per field; submitting runs the form's tool."""

    def __init__(self, form: Form, click: Click) -> None:
        super().__init__(title=form.label[:45], timeout=600)
        self.click = click
        self.inputs: dict[str, discord.ui.TextInput[Any]] = {}
        for field in form.fields:
            text: discord.ui.TextInput[Any] = discord.ui.TextInput(
                label=field.label[:45],
                custom_id=field.name,
                required=field.required,
                placeholder=field.hint[:100] or None,
            )
            self.inputs[field.name] = text
            self.add_item(text)

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        """Run the form's tool with what was typed and redraw the board."""
        client: BoardHost = interaction.client
        arguments = {k: v.value.strip() for k, v in self.inputs.items() if v.value.strip()}
        c = self.click
        click = Click(
            c.platform,
            c.workspace,
            c.user,
            c.agent_id,
            c.session_id,
            c.tool,
            arguments,
            c.view,
            c.view_arguments,
            str(interaction.id),
        )
        await interaction.response.defer()
        await _redraw(interaction, client, await client.service.handle_click(click))


def _click(interaction: discord.Interaction[Any], value: str) -> Click | None:
    return decode_action(
        value,
        platform="discord",
        workspace=str(interaction.guild_id) if interaction.guild_id else "dm",
        user=str(interaction.user.id),
        event_id=str(interaction.id),
    )


def _form(raw: dict[str, Any]) -> Form:
    fields = tuple(FormField(**f) for f in raw["fields"])
    return Form(raw["label"], raw["tool"], fields)


async def _ask_first(
    interaction: discord.Interaction[Any], client: BoardHost, data: dict[str, Any]
) -> None:
    """Delete asks first: an ephemeral question whose button runs it and edits the board."""
    message = interaction.message
    board = [str(message.channel.id), str(message.id)] if message is not None else None
    token = await client.buttons.put(json.dumps({"value": data["value"], "board": board}))
    view = discord.ui.View(timeout=None)
    view.add_item(CardButton(token, data.get("label") or "Yes", "danger"))
    await interaction.response.send_message(data["confirm"], view=view, ephemeral=True)


async def _redraw(
    interaction: discord.Interaction[Any], client: BoardHost, reply: Reply
) -> None:
    """Edit the clicked message to the new board; tell a stale clicker privately."""
    if reply.card is not None:
        embed = card_embed(reply.card)
        view = await card_view(client.buttons, reply.card)
        if embed is not None:
            await interaction.edit_original_response(embed=embed, view=view)
    if reply.ephemeral or reply.card is None:
        await interaction.followup.send(reply.text[:2000], ephemeral=True)


async def _redraw_message(
    client: BoardHost, channel_id: int, message_id: int, reply: Reply
) -> None:
    if reply.card is None:
        return
    embed = card_embed(reply.card)
    if embed is None:
        return
    message = client.get_partial_messageable(channel_id).get_partial_message(message_id)
    await message.edit(embed=embed, view=await card_view(client.buttons, reply.card))


async def card_view(store: ButtonStore, card: Card) -> discord.ui.View | None:
    """The buttons of a placed card (None when it has none)."""
    controls = card.controls
    if controls is None or not controls.session_id:
        return None
    view = discord.ui.View(timeout=None)
    for row, item in enumerate(controls.items[:ROWS]):
        for control in item.controls:
            value: dict[str, Any] = {"value": button_value(controls, control)}
            if control.confirm:
                value.update(confirm=control.confirm, label=control.label)
            token = await store.put(json.dumps(value, sort_keys=True))
            label = f"{control.label}: {item.text}"
            view.add_item(CardButton(token, label, control.style, row))
    if controls.form is not None:
        form = controls.form
        value = {
            "value": encode_action(
                controls.agent_id,
                controls.session_id,
                form.tool,
                {},
                controls.view,
                json.loads(controls.view_arguments),
            ),
            "form": {
                "label": form.label,
                "tool": form.tool,
                "fields": [
                    {"name": f.name, "label": f.label, "required": f.required, "hint": f.hint}
                    for f in form.fields
                ],
            },
        }
        token = await store.put(json.dumps(value, sort_keys=True))
        view.add_item(CardButton(token, form.label, "primary", ROWS))
    return view
