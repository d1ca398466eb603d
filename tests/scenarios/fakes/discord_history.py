"""``GET /channels/{id}/messages`` for the fake Discord API: histories the tests write.

Answers as Discord documents it: at most ``limit`` (1–100, default 50) messages,
newest first, ``before`` a message id when given (ids are snowflakes: later
messages have larger ids). An unknown channel has no messages.
"""

from __future__ import annotations

from typing import Any


class FakeHistories:
    """Messages per channel id, oldest first, as full message objects."""

    def __init__(self) -> None:
        self.channels: dict[str, list[dict[str, Any]]] = {}

    def add(self, channel: str, messages: list[dict[str, Any]]) -> None:
        """Append messages (MESSAGE_CREATE shapes) to a channel's history."""
        self.channels.setdefault(channel, []).extend(messages)

    def page(self, channel: str, query: dict[str, str]) -> list[dict[str, Any]]:
        """The documented answer for ``query`` (``before``, ``limit``)."""
        limit = max(1, min(int(query.get("limit", 50)), 100))
        before = query.get("before")
        kept = [
            m
            for m in self.channels.get(channel, [])
            if before is None or int(m["id"]) < int(before)
        ]
        kept.sort(key=lambda m: int(m["id"]), reverse=True)
        return kept[:limit]
