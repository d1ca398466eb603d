"""Token rotation done once per token, however many events arrive as it expires.

bolt's ``AsyncInstallationStoreAuthorize`` refreshes an expiring token on the event
that notices it; a burst of events from one workspace would each refresh with the
same refresh token, and Slack answers all but the first with an error (the events
then go unanswered). Here a refresh runs under a lock per installation — in-process,
and across processes on PostgreSQL — and first re-reads the installation: whoever
waited finds the refreshed tokens and uses them.
"""

from __future__ import annotations

import asyncio
from typing import Any

from slack_bolt.authorization.async_authorize import AsyncInstallationStoreAuthorize
from slack_sdk.oauth.installation_store import Installation

from bots.adapters.slack.installation_db import InstallationDb
from bots.adapters.slack.installations import SqlInstallationStore


class SerializedRotationAuthorize(AsyncInstallationStoreAuthorize):
    """bolt's installation-store authorize with one refresh per expiring token."""

    def __init__(self, *, store: SqlInstallationStore, db: InstallationDb, **kwargs: Any) -> None:
        super().__init__(installation_store=store, **kwargs)
        self._store = store
        self._db = db
        self._locks: dict[tuple[str, str, str], asyncio.Lock] = {}

    async def _rotate_and_save_tokens_if_necessary(
        self, installation: Installation | None
    ) -> Installation | None:
        if installation is None or not (
            installation.bot_refresh_token or installation.user_refresh_token
        ):
            return None
        ids = (installation.enterprise_id or "", installation.team_id or "", installation.user_id)
        lock = self._locks.setdefault(ids, asyncio.Lock())
        async with lock, self._db.exclusive("statebot:slack-rotation:" + ":".join(ids)):
            current = await self._store.async_find_installation(
                enterprise_id=installation.enterprise_id,
                team_id=installation.team_id,
                user_id=installation.user_id,
                is_enterprise_install=installation.is_enterprise_install,
            )
            if current is None:  # uninstalled meanwhile
                return None
            refreshed = await super()._rotate_and_save_tokens_if_necessary(current)
            if refreshed is not None:
                return refreshed
            # refreshed by whoever held the lock before us: use what they stored
            changed = (current.bot_token, current.user_token) != (
                installation.bot_token,
                installation.user_token,
            )
            return current if changed else None
