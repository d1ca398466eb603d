"""Sending to Slack: every outgoing text passes through here, formatted and delivered.

The ``AsyncWebClient`` is the one I/O seam; its base URL comes from ``SLACK_API_URL``.
Each text is converted once, by :func:`bots.adapters.slack.format.to_mrkdwn` (escaped,
broadcast-free mrkdwn), then split into parts. Each Web API call is retried on 429
and 5xx, waiting the ``Retry-After`` Slack sends, until a total time budget
(``STATEBOT_SLACK_RETRY_SECONDS``) is spent; then :class:`DeliveryError` tells the
caller, which tells the user (``bots.adapters.slack.listeners``): nothing is dropped silently.
A reply Slack refuses as ``msg_too_long`` is uploaded as a file (files upload v2).
A call that never reaches Slack (connection refused, an upload URL that cannot be
reached, a timeout) is a DeliveryError too (``connection_failed``), so the caller's
one failure path sees every way a delivery can fail.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import aiohttp
import structlog
from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.http_retry.builtin_async_handlers import AsyncConnectionErrorRetryHandler
from slack_sdk.web.async_client import AsyncWebClient

from bots.adapters.slack.format import to_mrkdwn
from bots.adapters.slack.traits import MESSAGE_LIMIT
from bots.chat.chunking import chunk_text

WORKING_REACTION = "hourglass_flowing_sand"
FAILED_REACTION = "warning"
DEFAULT_RETRY_SECONDS = 30.0
# Slack answers msg_too_long past ~40k characters; such a reply goes up as a file
UPLOAD_NOTE = "My reply was too long for one message, so it is attached as a file."
#: the error code of a call that never reached Slack (the cause is logged beside it)
CONNECTION_FAILED = "connection_failed"
#: what the HTTP layer raises when Slack (or an upload URL) cannot be reached
TRANSPORT_ERRORS = (aiohttp.ClientError, OSError, asyncio.TimeoutError, SlackClientError)
# waits when Slack sends no Retry-After (5xx): short, doubling
_BACKOFF_START, _BACKOFF_MAX = 0.5, 8.0

log = structlog.get_logger(__name__)

Sleep = Callable[[float], Awaitable[None]]


class DeliveryError(Exception):
    """A Web API call failed for good (retries spent, or Slack refused it)."""

    def __init__(self, method: str, error: str, cause: str = "") -> None:
        super().__init__(f"Slack {method} failed: {error}" + (f" ({cause})" if cause else ""))
        self.method = method
        self.error = error
        #: what the HTTP layer said when the call never reached Slack
        self.cause = cause


def web_client(token: str | None, base_url: str) -> AsyncWebClient:
    """An AsyncWebClient retrying dropped connections; 429/5xx are SlackSender's job.

    ``token`` None: the OAuth install flow sets each request's workspace token.
    """
    return AsyncWebClient(
        token=token,
        base_url=base_url,
        retry_handlers=[AsyncConnectionErrorRetryHandler(max_retry_count=2)],
    )


def _retry_wait(exc: SlackApiError, backoff: float) -> float | None:
    """Seconds to wait before retrying, or None when the failure is final."""
    status = int(getattr(exc.response, "status_code", 0) or 0)
    if status != 429 and status < 500:
        return None
    headers = {k.lower(): v for k, v in (exc.response.headers or {}).items()}
    value = headers.get("retry-after")
    if isinstance(value, list):
        value = value[0] if value else None
    try:
        return max(0.0, float(value)) if value is not None else backoff
    except ValueError:
        return backoff


def _cause(exc: BaseException) -> str:
    """One line naming why a call never reached Slack."""
    return f"{type(exc).__name__}: {exc}"


class SlackSender:
    """Posts formatted replies for one bot token, retrying within a time budget."""

    __slots__ = ("_client", "_clock", "_limit", "_retry_seconds", "_sleep")

    def __init__(
        self,
        client: AsyncWebClient,
        *,
        limit: int = MESSAGE_LIMIT,
        retry_seconds: float = DEFAULT_RETRY_SECONDS,
        sleep: Sleep = asyncio.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._client = client
        self._limit = limit
        self._retry_seconds = retry_seconds
        self._sleep = sleep
        self._clock = clock

    @property
    def client(self) -> AsyncWebClient:
        """The Web API client (the I/O seam)."""
        return self._client

    def parts(self, text: str) -> list[str]:
        """``text`` as formatted mrkdwn, split into parts Slack accepts."""
        return chunk_text(to_mrkdwn(text), self._limit)

    async def call(self, method: str, **params: Any) -> Any:
        """One Web API call, retried on 429/5xx until the budget is spent.

        Raises DeliveryError with Slack's error code when the call fails for good.
        """
        deadline = self._clock() + self._retry_seconds
        backoff = _BACKOFF_START
        while True:
            try:
                return await getattr(self._client, method)(**params)
            except SlackApiError as exc:
                error = str(exc.response.get("error") or f"http_{exc.response.status_code}")
                wait = _retry_wait(exc, backoff)
                if wait is None or self._clock() + wait > deadline:
                    raise DeliveryError(method, error) from exc
                log.info("slack_retry", method=method, error=error, wait=wait)
                await self._sleep(wait)
                backoff = min(backoff * 2, _BACKOFF_MAX)
            except TRANSPORT_ERRORS as exc:  # the client already retried the connection
                raise DeliveryError(method, CONNECTION_FAILED, _cause(exc)) from exc

    async def post(self, channel: str, text: str, thread_ts: str | None = None) -> list[str]:
        """Post ``text`` (in the thread when given); return the posted message ts.

        A part Slack refuses as too long sends the whole reply as a file instead.
        """
        posted: list[str] = []
        for part in self.parts(text):
            try:
                resp = await self.call(
                    "chat_postMessage",
                    channel=channel,
                    thread_ts=thread_ts,
                    text=part,
                    unfurl_links=False,
                    link_names=False,
                )
            except DeliveryError as exc:
                if exc.error != "msg_too_long":
                    raise
                await self.upload(channel, text, thread_ts)
                return posted
            posted.append(str(resp.get("ts", "")))
        return posted

    async def reply_in_thread(self, channel: str, thread_ts: str, text: str) -> list[str]:
        """Post ``text`` in the thread; return the posted message ts."""
        return await self.post(channel, text, thread_ts)

    async def upload(self, channel: str, text: str, thread_ts: str | None) -> None:
        """Attach ``text`` as a Markdown file (files upload v2) with a short note."""
        log.info("slack_reply_uploaded", channel=channel, length=len(text))
        try:
            await self._client.files_upload_v2(
                channel=channel,
                thread_ts=thread_ts,
                content=text,
                filename="reply.md",
                title="Reply",
                initial_comment=UPLOAD_NOTE,
            )
        except SlackApiError as exc:
            raise DeliveryError("files_upload_v2", str(exc.response.get("error"))) from exc
        except TRANSPORT_ERRORS as exc:  # e.g. the upload URL it was given is unreachable
            raise DeliveryError("files_upload_v2", CONNECTION_FAILED, _cause(exc)) from exc

    async def ephemeral(self, channel: str, user: str, text: str, thread_ts: str | None) -> None:
        """Show ``text`` to ``user`` only, in the thread when there is one."""
        for part in self.parts(text):
            await self.call(
                "chat_postEphemeral", channel=channel, user=user, text=part, thread_ts=thread_ts
            )

    @contextlib.asynccontextmanager
    async def working(self, channel: str, ts: str) -> AsyncIterator[None]:
        """Show a reaction on the user's message while the agent works.

        The reaction is decoration: failing to add or remove it never fails the reply.
        """
        added = await self.react("reactions_add", channel, ts, WORKING_REACTION)
        try:
            yield
        finally:
            if added:
                await self.react("reactions_remove", channel, ts, WORKING_REACTION)

    async def react(self, method: str, channel: str, ts: str, name: str) -> bool:
        """Add or remove a reaction; False (logged) when Slack refuses."""
        try:
            await self.call(method, channel=channel, timestamp=ts, name=name)
        except DeliveryError as exc:
            log.warning("slack_reaction_failed", method=method, error=exc.error)
            return False
        return True
