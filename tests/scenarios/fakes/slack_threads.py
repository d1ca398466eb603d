"""``conversations.replies`` for the fake Slack Web API: threads the tests write.

Answers as Slack documents it: the parent first, then the replies, oldest first;
``latest`` (exclusive unless ``inclusive``) and ``oldest`` cut the range; ``limit``
messages per page, ``has_more`` and ``response_metadata.next_cursor`` for the next
page (the cursor is opaque to the client; here an offset). An unknown thread is
``thread_not_found``.
"""

from __future__ import annotations

from typing import Any


class FakeThreads:
    """Threads by (channel, parent ts), each a list of message dicts, oldest first."""

    def __init__(self) -> None:
        self.threads: dict[tuple[str, str], list[dict[str, Any]]] = {}

    def add(self, channel: str, messages: list[dict[str, Any]]) -> str:
        """Store a thread (its first message is the parent); return the parent's ts."""
        parent = str(messages[0]["ts"])
        for message in messages:
            message.setdefault("type", "message")
            message["thread_ts"] = parent
        self.threads[(channel, parent)] = messages
        return parent

    def replies(self, params: dict[str, Any]) -> dict[str, Any]:
        """The documented answer of ``conversations.replies`` for ``params``."""
        thread = self.threads.get((str(params.get("channel")), str(params.get("ts"))))
        if thread is None:
            return {"ok": False, "error": "thread_not_found"}
        inclusive = str(params.get("inclusive", "")).lower() in ("1", "true")
        latest, oldest = params.get("latest"), params.get("oldest")

        def kept(message: dict[str, Any]) -> bool:
            ts = float(message["ts"])
            if latest is not None and (
                ts > float(latest) or (ts == float(latest) and not inclusive)
            ):
                return False
            return oldest is None or ts > float(oldest) or (ts == float(oldest) and inclusive)

        messages = [m for m in thread if kept(m)]
        start = int(params.get("cursor") or 0)
        limit = int(params.get("limit") or 1000)
        page = messages[start : start + limit]
        more = start + limit < len(messages)
        return {
            "ok": True,
            "messages": page,
            "has_more": more,
            "response_metadata": {"next_cursor": str(start + limit) if more else ""},
        }
