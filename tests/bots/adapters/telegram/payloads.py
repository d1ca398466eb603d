"""Telegram updates as the Bot API delivers them (``getUpdates`` / the webhook body).

Shaped field by field on the Bot API reference (core.telegram.org/bots/api: Update,
Message, MessageEntity, CallbackQuery, ForumTopicCreated) and on the JSON the
library's own tests feed ``Update.de_json``: a group message mentioning the bot, a
message in a forum topic (which Telegram sends as a "reply" to the topic's creation
message), a private chat, a reply to the bot, a command addressed by suffix, a
callback query from an inline keyboard. Ids are made up; no secrets.
"""

from __future__ import annotations

from typing import Any

from tests.bots.adapters.telegram.fake_bot_api import BOT

BOT_NAME = f"@{BOT['username']}"
GROUP = -1001234567890  # a supergroup id: negative, -100 prefix
ALICE: dict[str, Any] = {
    "id": 111111111,
    "is_bot": False,
    "first_name": "Alice",
    "username": "alice",
    "language_code": "en",
}
BOB: dict[str, Any] = {"id": 222222222, "is_bot": False, "first_name": "Bob"}
_DATE = 1764200000


def _utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def group_chat(forum: bool = False) -> dict[str, Any]:
    chat: dict[str, Any] = {"id": GROUP, "title": "Team", "type": "supergroup"}
    if forum:
        chat["is_forum"] = True
    return chat


def message(
    text: str,
    *,
    user: dict[str, Any] = ALICE,
    chat: dict[str, Any] | None = None,
    message_id: int = 42,
    entities: list[dict[str, Any]] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """An update carrying one new message."""
    body: dict[str, Any] = {
        "message_id": message_id,
        "from": user,
        "chat": chat or group_chat(),
        "date": _DATE,
        "text": text,
        **extra,
    }
    if entities:
        body["entities"] = entities
    return {"update_id": 900000001, "message": body}


def mention(text: str = "add milk to the board", **kwargs: Any) -> dict[str, Any]:
    """``@statebot_test_bot <text>`` in a group: a ``mention`` entity at offset 0."""
    full = f"{BOT_NAME} {text}"
    entity = {"type": "mention", "offset": 0, "length": _utf16(BOT_NAME)}
    return message(full, entities=[entity], **kwargs)


def topic_mention(text: str, thread: int = 77, **kwargs: Any) -> dict[str, Any]:
    """A mention inside forum topic ``thread``: is_topic_message, and the "reply" to the
    topic's creation service message Telegram adds to every message in a topic."""
    created = {
        "message_id": thread,
        "from": ALICE,
        "chat": group_chat(forum=True),
        "date": _DATE - 600,
        "message_thread_id": thread,
        "forum_topic_created": {"name": "Sprint", "icon_color": 7322096},
        "is_topic_message": True,
    }
    return mention(
        text,
        chat=group_chat(forum=True),
        message_thread_id=thread,
        is_topic_message=True,
        reply_to_message=created,
        **kwargs,
    )


def private(text: str, user: dict[str, Any] = ALICE, **kwargs: Any) -> dict[str, Any]:
    """A private chat with the bot: the chat id is the user's id."""
    chat = {"id": user["id"], "first_name": user["first_name"], "type": "private"}
    return message(text, user=user, chat=chat, **kwargs)


def reply_to_bot(text: str, bot_message_id: int = 5001, **kwargs: Any) -> dict[str, Any]:
    """A group message replying to one of the bot's messages, without a mention."""
    parent = {"message_id": bot_message_id, "from": BOT, "chat": group_chat(), "date": _DATE}
    return message(text, reply_to_message=parent, **kwargs)


def command(name: str, text: str = "", *, suffix: str = "", **kwargs: Any) -> dict[str, Any]:
    """``/name[@suffix] text``: a ``bot_command`` entity at offset 0."""
    token = f"/{name}" + (f"@{suffix}" if suffix else "")
    full = f"{token} {text}".strip()
    entity = {"type": "bot_command", "offset": 0, "length": _utf16(token)}
    return message(full, entities=[entity], **kwargs)


def callback(
    data: str,
    on: dict[str, Any],
    *,
    user: dict[str, Any] = ALICE,
    query_id: str = "4382bfdwdsb323b2d9",
) -> dict[str, Any]:
    """A callback query: ``user`` pressed a button (``data``) under the bot's message ``on``."""
    return {
        "update_id": 900000002,
        "callback_query": {
            "id": query_id,
            "from": user,
            "message": on,
            "chat_instance": "-7236000000000000000",
            "data": data,
        },
    }
