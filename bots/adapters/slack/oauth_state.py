"""One-time, expiring OAuth ``state`` values in the durable store.

``/slack/install`` issues a state (a row with its expiry, and the installer's browser
gets it as a cookie); ``/slack/oauth_redirect`` consumes it by deleting the row: a
state works once, in whichever process the redirect lands, and not after it expires.
Expired rows are swept whenever a new state is issued.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from slack_sdk.oauth.state_store.async_state_store import AsyncOAuthStateStore

from bots.adapters.slack.installation_db import InstallationDb

_logger = logging.getLogger(__name__)

#: seconds between /slack/install and the redirect back; Slack's default
DEFAULT_STATE_SECONDS = 600


class SqlOAuthStateStore(AsyncOAuthStateStore):
    """Issues and consumes OAuth states; ``clock`` is injected for expiry tests."""

    def __init__(
        self,
        db: InstallationDb,
        *,
        expiration_seconds: int = DEFAULT_STATE_SECONDS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._db = db
        self._seconds = expiration_seconds
        self._clock = clock

    @property
    def logger(self) -> logging.Logger:
        """slack_sdk's protocol asks for one."""
        return _logger

    async def async_issue(self, *args: Any, **kwargs: Any) -> str:
        """A new state, valid for ``expiration_seconds``."""
        state = secrets.token_urlsafe(32)
        now = self._clock()
        table = self._db.tables.oauth_states

        def issue(conn: sa.Connection) -> None:
            conn.execute(sa.delete(table).where(table.c.expires_at < now))
            conn.execute(sa.insert(table).values(state=state, expires_at=now + self._seconds))

        await self._db.write(issue)
        return state

    async def async_consume(self, state: str) -> bool:
        """True once for a state issued and not expired; it is gone afterwards either way."""
        table = self._db.tables.oauth_states

        def consume(conn: sa.Connection) -> float | None:
            deleted = conn.execute(
                sa.delete(table).where(table.c.state == state).returning(table.c.expires_at)
            ).first()
            return None if deleted is None else float(deleted.expires_at)

        expires_at = await self._db.write(consume)
        return expires_at is not None and expires_at >= self._clock()
