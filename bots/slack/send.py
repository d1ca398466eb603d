"""Sending to Slack: threaded, chunked replies, ephemeral notes and a working reaction.

The ``AsyncWebClient`` is the one I/O seam; its base URL comes from ``SLACK_API_URL``
and its retry handlers wait out 429s (``Retry-After``) instead of dropping a reply.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import structlog
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
    AsyncServerErrorRetryHandler,
)
from slack_sdk.web.async_client import AsyncWebClient

from bots.chunking import SLACK_LIMIT, chunk_text

WORKING_REACTION = "hourglass_flowing_sand"

log = structlog.get_logger(__name__)


def web_client(token: str, base_url: str) -> AsyncWebClient:
    """An AsyncWebClient that retries 429s, connection errors and 5xx responses."""
    return AsyncWebClient(
        token=token,
        base_url=base_url,
        retry_handlers=[
            AsyncRateLimitErrorRetryHandler(max_retry_count=3),
            AsyncConnectionErrorRetryHandler(max_retry_count=2),
            AsyncServerErrorRetryHandler(max_retry_count=2),
        ],
    )


class SlackSender:
    """Posts replies for one bot token."""

    __slots__ = ("_client", "_limit")

    def __init__(self, client: AsyncWebClient, limit: int = SLACK_LIMIT) -> None:
        self._client = client
        self._limit = limit

    async def post(self, channel: str, text: str) -> None:
        """Post ``text`` at the top level of ``channel`` (a DM), split into parts."""
        for part in chunk_text(text, self._limit):
            await self._client.chat_postMessage(channel=channel, text=part, unfurl_links=False)

    async def reply_in_thread(self, channel: str, thread_ts: str, text: str) -> list[str]:
        """Post ``text`` in the thread, split into parts; return the posted message ts."""
        posted: list[str] = []
        for part in chunk_text(text, self._limit):
            resp = await self._client.chat_postMessage(
                channel=channel, thread_ts=thread_ts, text=part, unfurl_links=False
            )
            posted.append(str(resp.get("ts", "")))
        return posted

    async def ephemeral(self, channel: str, user: str, text: str, thread_ts: str | None) -> None:
        """Show ``text`` to ``user`` only, in the thread when there is one."""
        for part in chunk_text(text, self._limit):
            await self._client.chat_postEphemeral(
                channel=channel, user=user, text=part, thread_ts=thread_ts
            )

    @contextlib.asynccontextmanager
    async def working(self, channel: str, ts: str) -> AsyncIterator[None]:
        """Show a reaction on the user's message while the agent works.

        The reaction is decoration: failing to add or remove it never fails the reply.
        """
        added = await self._react("reactions_add", channel, ts)
        try:
            yield
        finally:
            if added:
                await self._react("reactions_remove", channel, ts)

    async def _react(self, method: str, channel: str, ts: str) -> bool:
        try:
            call = getattr(self._client, method)
            await call(channel=channel, timestamp=ts, name=WORKING_REACTION)
        except SlackApiError as exc:
            log.warning("slack_reaction_failed", method=method, error=exc.response.get("error"))
            return False
        return True
