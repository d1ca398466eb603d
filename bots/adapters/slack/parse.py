"""Pure parsers: Slack payload dicts -> platform-neutral inbound records.

No I/O here; every function takes the dict bolt hands a listener and returns a
frozen record (or ``None`` when the payload is not a user's message).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from bots.adapters.slack.files import attachments_of
from bots.inbound import InboundMessage, SlashCommand

PLATFORM = "slack"

# Only plain user messages (and their file-sharing / broadcast variants) are
# conversation; edits, deletions, joins and bot posts are not.
_USER_SUBTYPES = frozenset({None, "file_share", "thread_broadcast"})
_MENTION = re.compile(r"<@([UW][A-Z0-9]+)(?:\|[^>]*)?>")


def _id_of(value: Any) -> str | None:
    """An id given either as a string or as an ``{"id": …}`` object (interactivity)."""
    if isinstance(value, dict):
        value = value.get("id")
    return value if isinstance(value, str) and value else None


def workspace_of(body: Mapping[str, Any]) -> str:
    """The workspace key: the Enterprise Grid org id when present, else the team id."""
    event = body.get("event")
    candidates = (
        body.get("enterprise_id"),
        body.get("enterprise"),
        body.get("team_id"),
        body.get("team"),
        event.get("team") if isinstance(event, dict) else None,
    )
    for value in candidates:
        found = _id_of(value)
        if found:
            return found
    raise ValueError("Slack payload names neither an enterprise nor a team")


def bot_user_of(body: Mapping[str, Any]) -> str | None:
    """The bot's user id from the event's ``authorizations`` list, if Slack sent it."""
    for auth in body.get("authorizations") or ():
        if isinstance(auth, dict) and auth.get("is_bot") and auth.get("user_id"):
            return str(auth["user_id"])
    return None


def mentioned_users(text: str) -> tuple[str, ...]:
    """User ids mentioned as ``<@U…>`` in message text, in order, without repeats."""
    return tuple(dict.fromkeys(_MENTION.findall(text)))


def strip_mention(text: str, user_id: str | None) -> str:
    """``text`` with every ``<@user_id>`` removed and whitespace trimmed."""
    if user_id:
        text = re.sub(rf"<@{re.escape(user_id)}(?:\|[^>]*)?>", " ", text)
    return re.sub(r"[ \t]{2,}", " ", text).strip()


def unescape(text: str) -> str:
    """Undo Slack's three control-character escapes (and nothing else)."""
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def is_user_message(event: Mapping[str, Any]) -> bool:
    """True for a human's message; False for bot posts, edits, deletions, joins."""
    if event.get("bot_id") or event.get("subtype") not in _USER_SUBTYPES:
        return False
    return bool(event.get("user")) and bool(event.get("ts")) and bool(event.get("channel"))


def parse_event(body: Mapping[str, Any], bot_user_id: str | None = None) -> InboundMessage | None:
    """An ``event_callback`` body (app_mention or message) -> InboundMessage, or None.

    ``thread`` is ``thread_ts`` when the message is in a thread, else its own ``ts``,
    so a channel mention starts a thread-scoped session. A DM (``channel_type`` ``im``)
    is one flat conversation: its top-level messages carry no thread, so they share
    the DM channel's session. The reply goes to that same thread (``reply_thread``).
    The bot's own mention is stripped from the text.

    ``addressed`` is decided here: an ``app_mention``, a message mentioning the bot,
    or a DM. A reply in a thread the bot follows is addressed later by
    :func:`bots.adapters.slack.addressing.addressed`, which needs the flags.
    """
    event = body.get("event")
    if not isinstance(event, dict) or not is_user_message(event):
        return None
    bot_user_id = bot_user_id or bot_user_of(body)
    raw = str(event.get("text") or "")
    mentions = mentioned_users(raw)
    is_dm = event.get("channel_type") == "im"
    thread = event.get("thread_ts") or (None if is_dm else event["ts"])
    bot_mentioned = bool(bot_user_id) and bot_user_id in mentions
    return InboundMessage(
        platform=PLATFORM,
        workspace=workspace_of(body),
        channel=str(event["channel"]),
        thread=str(thread) if thread else None,
        user=str(event["user"]),
        text=unescape(strip_mention(raw, bot_user_id)),
        event_id=str(body.get("event_id") or event["ts"]),
        is_dm=is_dm,
        mentions=mentions,
        bot_mentioned=bot_mentioned,
        addressed=event.get("type") == "app_mention" or bot_mentioned or is_dm,
        reply_thread=str(thread) if thread else None,
        attachments=attachments_of(event),
    )


def parse_command(body: Mapping[str, Any]) -> SlashCommand:
    """A slash-command body -> SlashCommand (``command`` without its leading slash).

    Slack sends no thread with a slash command, so ``thread`` is None and the
    session falls back to the channel. On Enterprise Grid ``workspace`` is the org id
    and ``team`` the workspace's own team id.
    """
    for key in ("command", "channel_id", "user_id"):
        if not body.get(key):
            raise ValueError(f"Slack slash command payload lacks {key!r}")
    channel = str(body["channel_id"])
    workspace = workspace_of(body)
    team = _id_of(body.get("team_id"))
    return SlashCommand(
        platform=PLATFORM,
        workspace=workspace,
        channel=channel,
        thread=None,
        user=str(body["user_id"]),
        command=str(body["command"]).lstrip("/"),
        text=unescape(str(body.get("text") or "").strip()),
        event_id=str(body.get("trigger_id") or f"{channel}:{body['command']}"),
        is_dm=channel.startswith("D") or body.get("channel_name") == "directmessage",
        team=team if team != workspace else None,  # Grid: the org keys, the team is an alias
    )
