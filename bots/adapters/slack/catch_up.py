"""Slack's side of thread catch-up (``bots.chat.catch_up``): ``conversations.replies``.

A mention inside a thread (``thread_ts`` differs from the message's ``ts``) may be
the bot's first look at that thread; the chat layer asks this source for the
messages before the mention only when the thread's session is new. Slack lists a
thread oldest first, parent included, in pages (``cursor``); the source reads pages
of ``PAGE`` messages up to the mention (``latest``, not inclusive), at most
``MAX_PAGES`` of them, and keeps the latest ``limit``. Join notices and other
``subtype`` events that are not something someone said are left out. A top-level
mention starts its own thread: it has nothing earlier, so no call is made.

Reading a channel's threads needs ``channels:history`` / ``groups:history`` (in the
default scopes). A call Slack refuses raises; the chat layer logs it and the
question is answered without the catch-up.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from bots.chat.catch_up import EarlierMessage

__all__ = ["SlackThread", "slack_thread"]

#: messages asked per page (Slack's documented maximum for most apps is 1000)
PAGE = 200
#: pages read at most: a longer thread's oldest part is never read
MAX_PAGES = 5
#: message subtypes that are something someone said (others: joins, topic changes …)
SAID = frozenset({"", "thread_broadcast", "bot_message", "me_message", "file_share"})


class SlackThread:
    """The messages of one thread before one message, read with the workspace's token."""

    __slots__ = ("_bot_ids", "_channel", "_client", "_latest", "_thread_ts")

    def __init__(
        self,
        client: AsyncWebClient,
        *,
        channel: str,
        thread_ts: str,
        latest: str,
        bot_ids: frozenset[str],
    ) -> None:
        self._client = client
        self._channel = channel
        self._thread_ts = thread_ts
        self._latest = latest
        self._bot_ids = bot_ids

    async def fetch(self, limit: int) -> Sequence[EarlierMessage]:
        """Up to ``limit`` latest messages before the mention, oldest first."""
        kept: deque[EarlierMessage] = deque(maxlen=max(limit, 0))
        cursor: str | None = None
        for _ in range(MAX_PAGES):
            resp = await self._client.conversations_replies(
                channel=self._channel,
                ts=self._thread_ts,
                latest=self._latest,
                inclusive=False,
                limit=PAGE,
                cursor=cursor,
            )
            for raw in resp.get("messages") or ():
                earlier = self._earlier(raw)
                if earlier is not None:
                    kept.append(earlier)
            cursor = (resp.get("response_metadata") or {}).get("next_cursor") or None
            if not resp.get("has_more") or cursor is None:
                break
        return list(kept)

    def _earlier(self, raw: Mapping[str, Any]) -> EarlierMessage | None:
        if str(raw.get("ts", "")) >= self._latest or raw.get("subtype", "") not in SAID:
            return None
        user = str(raw.get("user") or raw.get("bot_id") or "")
        mine = bool(self._bot_ids & {user, str(raw.get("bot_id") or "")})
        return EarlierMessage(user, str(raw.get("text") or ""), from_bot=mine)


def slack_thread(
    client: AsyncWebClient, event: Mapping[str, Any], context: Mapping[str, Any]
) -> SlackThread | None:
    """The earlier messages of ``event``'s thread; None for a message that starts one."""
    thread_ts, ts = event.get("thread_ts"), event.get("ts")
    if not thread_ts or not ts or thread_ts == ts:
        return None
    ours = {context.get("bot_user_id"), context.get("bot_id")}
    return SlackThread(
        client,
        channel=str(event["channel"]),
        thread_ts=str(thread_ts),
        latest=str(ts),
        bot_ids=frozenset(str(i) for i in ours if i),
    )
