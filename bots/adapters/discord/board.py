"""Clickable cards on Discord: an embed with button rows, a modal to add, edits in place.

A card with :class:`bots.chat.cards.Controls` is sent as its embed plus a ``View``: short
buttons (``#3 ▶``, ``#3 ✓``, ``#3 ✕``), an item's buttons together in one row, the add
button after them, and a select menu for the items that do not fit Discord's five
rows (``bots.adapters.discord.layout``). A ``custom_id`` holds at most 100 characters,
fewer than a click needs, so what a button (or menu option) runs is kept in a
:class:`~bots.chat.button_store.ButtonStore` under a digest: the button carries
``statebot:card:<digest>``, a menu option the digest as its value. Both are
``DynamicItem``s: any process handles a click, also after a restart.

A click is deferred, run through :meth:`bots.chat.service.ChatService.handle_click` (the
slash-command path) and the board message is edited in place; a stale click gets an
ephemeral follow-up. **Delete** first asks, ephemerally, with a confirm button that
edits the board once confirmed. The add button opens a ``Modal``; its submission runs
the form's tool and edits the board.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any, Protocol

import discord
import structlog

from bots.adapters.discord.embeds import card_embed
from bots.adapters.discord.layout import lay_out
from bots.chat.button_store import ButtonStore
from bots.chat.cards import (
    Card,
    Click,
    Control,
    Controls,
    Form,
    FormField,
    Item,
    button_value,
    decode_action,
    encode_action,
)
from bots.chat.replies import Reply

if TYPE_CHECKING:
    from bots.chat.service import ChatService

log = structlog.get_logger(__name__)

PREFIX = "statebot:card"
TEMPLATE = rf"{PREFIX}:(?P<token>[0-9a-f]{{32}})"
MENU_ID = "statebot:cardmenu"
EXPIRED = "That button has expired; nothing was done. List the board again."
_STYLES = {
    "primary": discord.ButtonStyle.primary,
    "danger": discord.ButtonStyle.danger,
}


class BoardHost(Protocol):
    """What a board click needs of the client it arrives on (``BoardHost`` is one):
    the parts receive the client through the interaction and never import it."""

    service: ChatService
    buttons: ButtonStore

    def get_partial_messageable(self, id: int, /) -> discord.PartialMessageable:
        """A channel to edit a message in, by id."""
        ...


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
        await run_stored(interaction, self.token)


class CardMenu(discord.ui.DynamicItem[discord.ui.Select[Any]], template=MENU_ID):
    """The select menu of the items without buttons; each option's value is a token."""

    def __init__(
        self, options: list[discord.SelectOption] | None = None, row: int | None = None
    ) -> None:
        super().__init__(
            discord.ui.Select(
                custom_id=MENU_ID,
                placeholder="More tasks…",
                options=options or [discord.SelectOption(label="…")],
                row=row,
            )
        )

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> CardMenu:
        """Rebuild the menu a choice came from (any process, any time)."""
        return cls()

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Run the chosen option as its button would run."""
        data: dict[str, Any] = dict(interaction.data or {})  # a select's payload: its values
        values = data.get("values") or []
        await run_stored(interaction, str(values[0]) if values else "")


async def run_stored(interaction: discord.Interaction[Any], token: str) -> None:
    """What a button or menu option runs, by its token: ask first, open the form, or
    run the click and redraw the board."""
    client: BoardHost = interaction.client
    stored = await client.buttons.get(token) if token else None
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


async def _redraw(interaction: discord.Interaction[Any], client: BoardHost, reply: Reply) -> None:
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
    """The buttons (and the menu for the rest) of a placed card (None when it has none)."""
    controls = card.controls
    if controls is None or not controls.session_id:
        return None
    view = discord.ui.View(timeout=None)
    layout = lay_out([len(i.controls) for i in controls.items], add_button=bool(controls.form))
    for row, indexes in enumerate(layout.rows):
        for item in (controls.items[i] for i in indexes):
            for control in item.controls:
                token = await store.put(_stored(controls, control))
                view.add_item(CardButton(token, _label(item, control), control.style, row))
    if layout.menu:
        options = []
        for item in (controls.items[i] for i in layout.menu):
            for control in item.controls:
                token = await store.put(_stored(controls, control))
                label = f"{item.short or item.text[:60]} {control.icon} {control.label}"
                options.append(
                    discord.SelectOption(
                        label=" ".join(label.split())[:100],
                        value=token,
                        description=item.text[:100],
                    )
                )
        view.add_item(CardMenu(options, layout.menu_row))
    if layout.hidden:
        log.info("discord_board_items_hidden", hidden=layout.hidden)
    if controls.form is not None:
        token = await store.put(_form_value(controls, controls.form))
        view.add_item(CardButton(token, controls.form.label, "primary", layout.add_row))
    return view


def _label(item: Item, control: Control) -> str:
    """``#3 ✓``: the item's short name and the control's sign; else label and text."""
    if item.short and control.icon:
        return f"{item.short} {control.icon}"
    return f"{control.label}: {item.text}"


def _stored(controls: Controls, control: Control) -> str:
    """What one button (or menu option) runs, as the store keeps it."""
    value: dict[str, Any] = {"value": button_value(controls, control)}
    if control.confirm:
        value.update(confirm=control.confirm, label=control.label)
    return json.dumps(value, sort_keys=True)


def _form_value(controls: Controls, form: Form) -> str:
    """What the add button keeps: the form's tool and fields."""
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
    return json.dumps(value, sort_keys=True)
