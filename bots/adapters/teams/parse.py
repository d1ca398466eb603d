"""Pure parsing: Teams activity JSON -> platform-neutral records.

Keys follow the architecture: the workspace is the tenant; a channel conversation is
``19:…@thread.…`` and each reply chain is its thread (the root post's id, which Teams
appends to the conversation id as ``;messageid=…``), so a channel thread is
``teams:{tenant}:{channel}:{root}``; a group chat is one flat conversation (a
channel without threads); a personal chat (``a:…``) is the DM.

Users are keyed by their Entra object id (``from.aadObjectId``, a GUID without
colons, so ``teams:{tenant}:{user}`` is a plain admin id), else their ``29:…`` id.
The bot's own ``<at>`` mention is removed from the text; another user's becomes
``<at id="…">Name</at>`` (the traits' ``user_mention``, read as ``@Name`` by the
model); a channel's or team's becomes plain ``@Name``.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bots.adapters.teams.traits import TRAITS
from bots.inbound import InboundMessage, SlashCommand

PLATFORM = TRAITS.name
PERSONAL = "personal"
GROUP_CHAT = "groupChat"
#: where an invoke for an Adaptive Card's Action.Execute arrives
CARD_ACTION = "adaptiveCard/action"


def _dict(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def tenant_of(activity: Mapping[str, Any]) -> str:
    """The tenant id: ``channelData.tenant.id``, else ``conversation.tenantId``."""
    tenant = _dict(_dict(activity.get("channelData")).get("tenant")).get("id")
    tenant = tenant or _dict(activity.get("conversation")).get("tenantId")
    if not tenant:
        raise ValueError("Teams activity names no tenant (channelData.tenant.id)")
    return str(tenant)


def user_of(account: Mapping[str, Any]) -> str:
    """A user's key part: the Entra object id when Teams sends it, else the 29: id."""
    return str(account.get("aadObjectId") or account.get("id") or "")


@dataclass(frozen=True, slots=True)
class Place:
    """Where an activity was posted, as Statebot keys it."""

    workspace: str
    channel: str
    thread: str | None
    is_dm: bool


def place_of(activity: Mapping[str, Any]) -> Place:
    """(tenant, conversation, reply chain, DM) of a message or card action."""
    conversation = _dict(activity.get("conversation"))
    raw = str(conversation.get("id") or "")
    if not raw:
        raise ValueError("Teams activity has no conversation.id")
    base, _, root = raw.partition(";messageid=")
    kind = conversation.get("conversationType")
    if kind == PERSONAL or (kind is None and base.startswith("a:")):
        return Place(tenant_of(activity), base, None, True)
    if kind == GROUP_CHAT:
        return Place(tenant_of(activity), base, None, False)
    # a channel: the reply chain's root (a new post is the root of its own chain)
    thread = root or str(activity.get("replyToId") or activity.get("id") or "") or None
    return Place(tenant_of(activity), base, thread, False)


def conversation_id(channel: str, thread: str | None) -> str:
    """The conversation id a reply in ``thread`` of ``channel`` is posted to."""
    return f"{channel};messageid={thread}" if thread else channel


def _readable(activity: Mapping[str, Any]) -> tuple[str, bool, tuple[str, ...]]:
    """(text, bot mentioned, mentioned user ids) with mentions rewritten (module doc)."""
    text = str(activity.get("text") or "")
    bot = str(_dict(activity.get("recipient")).get("id") or "")
    mentioned_bot = False
    users: list[str] = []
    for entity in activity.get("entities") or ():
        entity = _dict(entity)
        if entity.get("type") != "mention":
            continue
        who = _dict(entity.get("mentioned"))
        markup = str(entity.get("text") or "")
        name = html.unescape(str(who.get("name") or "")).replace("<", "").replace(">", "")
        if bot and who.get("id") == bot:
            mentioned_bot = True
            text = text.replace(markup, " ") if markup else text
            continue
        who_id = user_of(who)
        if (
            who_id.startswith("19:")
            or not TRAITS.user_id_pattern
            or not (TRAITS.user_id_pattern.fullmatch(who_id))
        ):
            replacement = f"@{name}"  # a channel, a team, a tag: readable, never a mention
        else:
            replacement = f'<at id="{who_id}">{name}</at>'
            users.append(who_id)
        if markup:
            text = text.replace(markup, replacement)
    return _squeeze(html.unescape(text)), mentioned_bot, tuple(dict.fromkeys(users))


def _squeeze(text: str) -> str:
    lines = [" ".join(line.split()) for line in text.replace("\r\n", "\n").split("\n")]
    return "\n".join(lines).strip()


def is_user_message(activity: Mapping[str, Any]) -> bool:
    """A person's message with text (not a card submit, not an edit, not a bot's post)."""
    if activity.get("type") != "message" or activity.get("value") is not None:
        return False
    sender = _dict(activity.get("from"))
    if not sender.get("id") or sender.get("role") == "bot":
        return False
    return sender.get("id") != _dict(activity.get("recipient")).get("id")


def parse_message(activity: Mapping[str, Any]) -> InboundMessage | SlashCommand | None:
    """A message activity -> InboundMessage (or SlashCommand for ``/name text``); None
    for anything else.

    Addressed: a personal chat always; a channel or group chat when the bot is
    @mentioned (Teams delivers those only, unless the app asks for more). A text
    starting with ``/`` after the mention is a command (``@Statebot /state dump``).
    """
    if not is_user_message(activity):
        return None
    where = place_of(activity)
    text, mentioned, users = _readable(activity)
    user = user_of(_dict(activity.get("from")))
    event_id = str(activity.get("id") or "")
    if text.startswith("/") and (where.is_dm or mentioned):
        command, _, rest = text[1:].partition(" ")
        if command:
            return SlashCommand(
                platform=PLATFORM,
                workspace=where.workspace,
                channel=where.channel,
                thread=where.thread,
                user=user,
                command=command,
                text=rest.strip(),
                event_id=event_id,
                is_dm=where.is_dm,
                reply_thread=where.thread,
            )
    return InboundMessage(
        platform=PLATFORM,
        workspace=where.workspace,
        channel=where.channel,
        thread=where.thread,
        user=user,
        text=text,
        event_id=event_id,
        is_dm=where.is_dm,
        mentions=users,
        bot_mentioned=mentioned,
        addressed=where.is_dm or mentioned,
        reply_thread=where.thread,
    )


@dataclass(frozen=True, slots=True)
class CardAction:
    """A button on one of the bot's cards: an Action.Execute invoke or an Action.Submit.

    ``data`` is what the button carried (``bots.adapters.teams.cards``) merged with the
    card's inputs; ``card_id`` the message holding the card (for an update in place).
    """

    workspace: str
    channel: str
    thread: str | None
    is_dm: bool
    user: str
    event_id: str
    card_id: str | None
    invoke: bool
    data: Mapping[str, Any] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        """``card``, ``form``, ``approval`` or ``""`` (not one of Statebot's buttons)."""
        kind = self.data.get("statebot")
        return kind if kind in ("card", "form", "approval") else ""


def parse_action(activity: Mapping[str, Any]) -> CardAction | None:
    """An ``adaptiveCard/action`` invoke or a submit message -> CardAction; else None."""
    kind = activity.get("type")
    if kind == "invoke" and activity.get("name") == CARD_ACTION:
        action = _dict(_dict(activity.get("value")).get("action"))
        data, invoke = _dict(action.get("data")), True
    elif kind == "message" and isinstance(activity.get("value"), Mapping):
        data, invoke = _dict(activity.get("value")), False
    else:
        return None
    if not data.get("statebot"):
        return None
    where = place_of(activity)
    return CardAction(
        workspace=where.workspace,
        channel=where.channel,
        thread=where.thread,
        is_dm=where.is_dm,
        user=user_of(_dict(activity.get("from"))),
        event_id=str(activity.get("id") or ""),
        card_id=str(activity.get("replyToId") or "") or None,
        invoke=invoke,
        data=dict(data),
    )
