"""Posting to Teams through the SDK's turn context, with 429 and 5xx retried.

The Bot Connector answers 429 when a conversation is written to too fast (its
``Retry-After`` says how long to wait) and sometimes 5xx; the SDK raises
``aiohttp.ClientResponseError`` for both and retries neither. Each call here is
retried (Retry-After honoured, else a short exponential backoff) until it succeeds
or ``budget`` seconds have passed since the first try; then the last error is
raised, for the caller to log and count (nothing is claimed sent that was not).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

import aiohttp
import structlog
from microsoft_agents.activity import Activity, Attachment, Entity
from microsoft_agents.hosting.core import TurnContext
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_delay

from bots.adapters.teams.cards import attachment
from bots.adapters.teams.text import safe_text
from bots.adapters.teams.traits import MESSAGE_LIMIT
from bots.chat.chunking import chunk_text

log = structlog.get_logger(__name__)

T = TypeVar("T")
#: the longest wait one Retry-After may ask for before we give up early
MAX_WAIT = 30.0


def retryable(exc: BaseException) -> bool:
    """A 429 or a 5xx from the Bot Connector (a refused or malformed call is not)."""
    return isinstance(exc, aiohttp.ClientResponseError) and (
        exc.status == 429 or 500 <= exc.status < 600
    )


def _wait(state: RetryCallState) -> float:
    exc = state.outcome.exception() if state.outcome is not None else None
    headers = getattr(exc, "headers", None) or {}
    try:
        wait: float = min(float(str(headers.get("Retry-After", ""))), MAX_WAIT)
        return wait
    except ValueError:
        return min(0.25 * 2.0 ** (state.attempt_number - 1), MAX_WAIT)


async def retried(call: Callable[[], Awaitable[T]], budget: float) -> T:
    """``await call()``, retried on 429/5xx within ``budget`` seconds (module doc)."""
    async for attempt in AsyncRetrying(
        retry=retry_if_exception(retryable),
        stop=stop_after_delay(budget),
        wait=_wait,
        reraise=True,
        before_sleep=lambda s: log.warning(
            "teams_send_retry",
            attempt=s.attempt_number,
            status=getattr(s.outcome.exception() if s.outcome else None, "status", None),
        ),
    ):
        with attempt:
            return await call()
    raise AssertionError("unreachable: tenacity reraises the last error")  # pragma: no cover


def message(
    text: str = "", *, card: dict[str, Any] | None = None, names: Mapping[str, str] | None = None
) -> Activity:
    """A message activity: safe Markdown text with its mention entities, or a card."""
    body, mentions = safe_text(text, names)
    activity = Activity(type="message", text=body, text_format="markdown")
    if mentions:
        activity.entities = [Entity.model_validate(m) for m in mentions]
    if card is not None:
        activity.attachments = [Attachment.model_validate(attachment(card))]
    return activity


class Sender:
    """Sends into the conversation of one turn context, each call retried within budget."""

    __slots__ = ("budget", "context", "names")

    def __init__(
        self, context: TurnContext, budget: float, names: Mapping[str, str] | None = None
    ) -> None:
        self.context = context
        self.budget = budget
        self.names = names

    async def send(self, activity: Activity) -> str:
        """Post one activity; its id (for later edits)."""
        sent = await retried(lambda: self.context.send_activity(activity.model_copy()), self.budget)
        return str(getattr(sent, "id", "") or "")

    async def text(self, text: str) -> list[str]:
        """Post ``text`` cut at the message limit; the ids of the parts."""
        parts = chunk_text(text, MESSAGE_LIMIT) or ["Done."]
        return [await self.send(message(part, names=self.names)) for part in parts]

    async def card(self, card: dict[str, Any], fallback: str = "") -> str:
        """Post an Adaptive Card (``fallback``: its summary in notifications)."""
        activity = message(card=card)
        if fallback:
            activity.summary = fallback[:200]
        return await self.send(activity)

    async def update(self, activity_id: str, activity: Activity) -> None:
        """Replace a posted message (a card after a click, a streamed answer)."""
        activity.id = activity_id
        await retried(lambda: self.context.update_activity(activity.model_copy()), self.budget)

    async def delete(self, activity_id: str) -> None:
        """Remove a posted message."""
        await retried(lambda: self.context.delete_activity(activity_id), self.budget)

    async def typing(self) -> None:
        """Show the typing indicator (decoration: one try, a failure only logged)."""
        try:
            await self.context.send_activity(Activity(type="typing"))
        except aiohttp.ClientError as exc:
            log.warning("teams_typing_failed", error=repr(exc))
