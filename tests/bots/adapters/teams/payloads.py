"""Teams activities as Microsoft's docs and the Agents SDK's tests show them (ids kept
in their shapes, secrets none): a channel message mentioning the bot and a user, a
personal chat message, a group chat message, an Adaptive Card Action.Execute invoke."""

from __future__ import annotations

import copy
from typing import Any

TENANT = "72f988bf-86f1-41af-91ab-2d7cd011db47"
APP_ID = "c9e8c047-2a74-40a2-b28a-b162d5f5327c"
BOT = {"id": f"28:{APP_ID}", "name": "Statebot"}
ANA = {
    "id": "29:1I9Is_Sx0O-Iy2rQ7Xz1lcaPKlO9eqmBRTBuW6XzXFS_ZXcoNEJA",
    "name": "Ana Ruiz",
    "aadObjectId": "6e7b2c1a-9f1e-4b7d-8c2f-0a1b2c3d4e5f",
}
BO = {
    "id": "29:1bSnHZ7Js2STWrgk6ScEErLk1Lp2zQuD5H2qQ960rtvstKp8tKLl-3r8b6DoW0QxZimuTxk_kupZ1DBMpv",
    "name": "Bo Chen",
    "aadObjectId": "0b4c5d6e-7f80-4912-a3b4-c5d6e7f80912",
}
CHANNEL = "19:033451497ea84fcc83d17ed7fb08a1b6@thread.skype"
ROOT = "1481567603816"
PERSONAL = (
    "a:17I0kl8EkpE1O9PH5TWrzrLNwnWWcfrU7QZjKR0WSfOpzbfcAg2IaydGElSo10tVr4C7Fc6GtieTJX663WuJ"
    "Cc1uA83n4CSrHSgGBj5XNYLcVlJAs2ZX8DbYBPck201w-"
)
GROUP = "19:7b1f1f3e1d0e4a8c9b7b2f3e1d0e4a8c@thread.v2"
SERVICE_URL = "https://smba.trafficmanager.net/amer/"


def channel_mention(**changes: Any) -> dict[str, Any]:
    """A new post in a channel: '@Statebot add milk, and tell @Bo Chen' (docs' shape)."""
    activity: dict[str, Any] = {
        "type": "message",
        "id": ROOT,
        "timestamp": "2026-11-27T19:00:00.000Z",
        "localTimestamp": "2026-11-27T20:00:00.000+01:00",
        "serviceUrl": SERVICE_URL,
        "channelId": "msteams",
        "from": copy.deepcopy(ANA),
        "conversation": {
            "isGroup": True,
            "conversationType": "channel",
            "tenantId": TENANT,
            "id": f"{CHANNEL};messageid={ROOT}",
        },
        "recipient": copy.deepcopy(BOT),
        "textFormat": "plain",
        "locale": "en-US",
        "text": "<at>Statebot</at> add milk &amp; eggs, and tell <at>Bo Chen</at>",
        "entities": [
            {"type": "mention", "mentioned": copy.deepcopy(BOT), "text": "<at>Statebot</at>"},
            {
                "type": "mention",
                "mentioned": {"id": BO["id"], "name": BO["name"]},
                "text": "<at>Bo Chen</at>",
            },
            {"type": "clientInfo", "locale": "en-US", "country": "US", "platform": "Web"},
        ],
        "channelData": {
            "teamsChannelId": CHANNEL,
            "teamsTeamId": "19:efa9296d959346209fea44151c742e73@thread.skype",
            "channel": {"id": CHANNEL, "name": "Planning"},
            "team": {"id": "19:efa9296d959346209fea44151c742e73@thread.skype"},
            "tenant": {"id": TENANT},
        },
    }
    activity.update(changes)
    return activity


def channel_reply(**changes: Any) -> dict[str, Any]:
    """A reply in that post's reply chain (its own id, the root's in the conversation)."""
    return channel_mention(id="1481567708462", replyToId=ROOT, **changes)


def personal(**changes: Any) -> dict[str, Any]:
    """A personal (1:1) chat message: no mention needed (docs' shape)."""
    activity: dict[str, Any] = {
        "type": "message",
        "id": "1485983408511",
        "timestamp": "2026-11-27T19:05:00.000Z",
        "serviceUrl": SERVICE_URL,
        "channelId": "msteams",
        "from": copy.deepcopy(ANA),
        "conversation": {"conversationType": "personal", "tenantId": TENANT, "id": PERSONAL},
        "recipient": copy.deepcopy(BOT),
        "textFormat": "plain",
        "text": "what is on the board?",
        "entities": [{"type": "clientInfo", "locale": "en-US"}],
        "channelData": {"tenant": {"id": TENANT}},
    }
    activity.update(changes)
    return activity


def group_chat(**changes: Any) -> dict[str, Any]:
    """A group chat message mentioning the bot."""
    activity = personal(
        id="1485983408999",
        conversation={
            "isGroup": True,
            "conversationType": "groupChat",
            "tenantId": TENANT,
            "id": GROUP,
        },
        text="<at>Statebot</at> hello",
        entities=[
            {"type": "mention", "mentioned": copy.deepcopy(BOT), "text": "<at>Statebot</at>"}
        ],
    )
    activity.update(changes)
    return activity


def card_action(
    data: dict[str, Any],
    *,
    user: dict[str, Any] | None = None,
    card_id: str = "1:card",
    conversation: dict[str, Any] | None = None,
    **changes: Any,
) -> dict[str, Any]:
    """An Action.Execute invoke from a card the bot posted (docs' Universal Actions shape)."""
    activity: dict[str, Any] = {
        "type": "invoke",
        "name": "adaptiveCard/action",
        "id": "f:7f1c8ad6-" + str(abs(hash(str(data))) % 10**8),
        "timestamp": "2026-11-27T19:06:00.000Z",
        "serviceUrl": SERVICE_URL,
        "channelId": "msteams",
        "from": copy.deepcopy(user or ANA),
        "conversation": conversation
        or {
            "isGroup": True,
            "conversationType": "channel",
            "tenantId": TENANT,
            "id": f"{CHANNEL};messageid={ROOT}",
        },
        "recipient": copy.deepcopy(BOT),
        "replyToId": card_id,
        "value": {
            "action": {"type": "Action.Execute", "verb": "statebot", "data": data},
            "trigger": "manual",
        },
        "channelData": {"tenant": {"id": TENANT}, "source": {"name": "message"}},
    }
    activity.update(changes)
    return activity
