"""Slack installations in the durable store: slack_sdk's ``AsyncInstallationStore``.

One row per bot (workspace, or org for an org-wide install) and one per installing
user; a newer install of the same key replaces the older one. Lookup and listing
columns are plain; the whole record, tokens included, is stored only encrypted
(:mod:`bots.adapters.slack.token_cipher`) in ``secrets``. The bot row is the authority on the
bot's tokens: ``find_installation`` answers with it, token rotation saves there, and
revoking the bot (``tokens_revoked``) removes it and strips the bot tokens from every
installation of that workspace. A row still encrypted under an older key is
re-encrypted when it is read.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

import sqlalchemy as sa
from slack_sdk.oauth.installation_store import Bot, Installation
from slack_sdk.oauth.installation_store.async_installation_store import AsyncInstallationStore

from bots.adapters.slack.installation_db import InstallationDb
from bots.adapters.slack.token_cipher import TokenCipher

_logger = logging.getLogger(__name__)
T = TypeVar("T")
#: rows read under an older key: (table, row, decrypted record), rewritten after the read
_Stale = list[tuple[sa.Table, Any, dict[str, Any]]]

#: fields of the record kept plain, for lookups and listings (never a secret)
_BOT_COLUMNS = ("app_id", "enterprise_name", "team_name", "bot_id", "bot_user_id")
_BOT_SECRETS = ("bot_token", "bot_refresh_token", "bot_token_expires_at")


def _plain_json(record: dict[str, Any]) -> str:
    """``to_dict_for_copying()`` as JSON: datetimes become the numbers slack_sdk takes."""
    out = dict(record)
    for name, value in record.items():
        if isinstance(value, datetime):
            out[name] = value.timestamp() if name == "installed_at" else int(value.timestamp())
    return json.dumps(out, separators=(",", ":"))


def _scopes(scopes: Any) -> str | None:
    return ",".join(scopes) if scopes else None


class SqlInstallationStore(AsyncInstallationStore):
    """Installations of one Slack app (``client_id``) with encrypted tokens."""

    def __init__(self, db: InstallationDb, *, client_id: str, cipher: TokenCipher) -> None:
        self._db = db
        self._client_id = client_id
        self._cipher = cipher

    @property
    def logger(self) -> logging.Logger:
        """slack_sdk's protocol asks for one."""
        return _logger

    # -- keys -------------------------------------------------------------------------
    @staticmethod
    def _team(team_id: str | None, is_enterprise_install: bool | None) -> str:
        # an org-wide install has no team: stored as "" so the primary key holds
        return "" if is_enterprise_install or not team_id else team_id

    def _where(self, table: sa.Table, enterprise_id: str | None, team: str) -> Any:
        c = table.c
        return sa.and_(
            c.client_id == self._client_id,
            c.enterprise_id == (enterprise_id or ""),
            c.team_id == team,
        )

    # -- encoding ---------------------------------------------------------------------
    def _bot_values(self, bot: Bot) -> dict[str, Any]:
        return {
            "client_id": self._client_id,
            "enterprise_id": bot.enterprise_id or "",
            "team_id": self._team(bot.team_id, bot.is_enterprise_install),
            "is_enterprise_install": bool(bot.is_enterprise_install),
            **{name: getattr(bot, name) for name in _BOT_COLUMNS},
            "bot_scopes": _scopes(bot.bot_scopes),
            "bot_token_expires_at": bot.bot_token_expires_at,
            "installed_at": bot.installed_at,
            "key_id": self._cipher.primary_id,
            "secrets": self._cipher.encrypt(_plain_json(bot.to_dict_for_copying())),
        }

    def _installation_values(self, installation: Installation) -> dict[str, Any]:
        bot_part = self._bot_values(installation.to_bot())
        return {
            **bot_part,
            "user_id": installation.user_id,
            "user_scopes": _scopes(installation.user_scopes),
            "user_token_expires_at": installation.user_token_expires_at,
            "secrets": self._cipher.encrypt(_plain_json(installation.to_dict_for_copying())),
        }

    def _decode(self, table: sa.Table, row: Any, stale: _Stale) -> dict[str, Any]:
        """The stored record; a row under an older key is noted in ``stale``."""
        record: dict[str, Any] = json.loads(self._cipher.decrypt(row.secrets, row.key_id))
        if not self._cipher.is_current(row.key_id):
            stale.append((table, row, record))
        return record

    def _rewrite(self, conn: sa.Connection, stale: _Stale) -> int:
        """Store stale rows again under the primary key (unless changed meanwhile)."""
        count = 0
        for table, row, record in stale:
            keys = table.primary_key.columns
            result = conn.execute(
                sa.update(table)
                .where(*(c == getattr(row, c.name) for c in keys), table.c.secrets == row.secrets)
                .values(
                    key_id=self._cipher.primary_id,
                    secrets=self._cipher.encrypt(json.dumps(record, separators=(",", ":"))),
                )
            )
            count += result.rowcount
        return count

    async def _read(self, fn: Callable[[sa.Connection, _Stale], T]) -> T:
        """Run a lookup; re-encrypt, in a short write afterwards, what it found stale."""
        stale: _Stale = []
        result = await self._db.read(lambda conn: fn(conn, stale))
        if stale:
            await self._db.write(lambda conn: self._rewrite(conn, stale))
        return result

    # -- saves ------------------------------------------------------------------------
    def _upsert(self, conn: sa.Connection, table: sa.Table, values: dict[str, Any]) -> None:
        keys = [c.name for c in table.primary_key.columns]
        statement = self._db.upsert(table).values(**values)
        update = {k: v for k, v in values.items() if k not in keys}
        conn.execute(statement.on_conflict_do_update(index_elements=keys, set_=update))

    async def async_save(self, installation: Installation) -> None:
        """Store the installation and, when it has a bot token, its bot; one transaction."""
        values = self._installation_values(installation)
        bot = self._bot_values(installation.to_bot()) if installation.bot_token else None
        tables = self._db.tables

        def save(conn: sa.Connection) -> None:
            self._upsert(conn, tables.installations, values)
            if bot is not None:
                self._upsert(conn, tables.bots, bot)

        await self._db.write(save)

    async def async_save_bot(self, bot: Bot) -> None:
        """Store the bot (a token rotation of a bot-only lookup saves here)."""
        values = self._bot_values(bot)
        await self._db.write(lambda conn: self._upsert(conn, self._db.tables.bots, values))

    # -- lookups ----------------------------------------------------------------------
    def _latest(
        self, conn: sa.Connection, table: sa.Table, where: Any, stale: _Stale
    ) -> dict[str, Any] | None:
        query = sa.select(table).where(where).order_by(table.c.installed_at.desc()).limit(1)
        row = conn.execute(query).first()
        return None if row is None else self._decode(table, row, stale)

    def _find_bot(
        self, conn: sa.Connection, enterprise_id: str | None, team: str, stale: _Stale
    ) -> Bot | None:
        bots = self._db.tables.bots
        record = self._latest(conn, bots, self._where(bots, enterprise_id, team), stale)
        return None if record is None else Bot(**record)

    async def async_find_bot(
        self,
        *,
        enterprise_id: str | None,
        team_id: str | None,
        is_enterprise_install: bool | None = False,
    ) -> Bot | None:
        """The workspace's (or org's) bot, None when not installed or revoked."""
        team = self._team(team_id, is_enterprise_install)
        return await self._read(
            lambda conn, stale: self._find_bot(conn, enterprise_id, team, stale)
        )

    async def async_find_installation(
        self,
        *,
        enterprise_id: str | None,
        team_id: str | None,
        user_id: str | None = None,
        is_enterprise_install: bool | None = False,
    ) -> Installation | None:
        """That user's installation, else the newest of the workspace; with its bot's tokens."""
        team = self._team(team_id, is_enterprise_install)
        table = self._db.tables.installations

        def find(conn: sa.Connection, stale: _Stale) -> Installation | None:
            where = self._where(table, enterprise_id, team)
            if user_id is not None:
                where = sa.and_(where, table.c.user_id == user_id)
            record = self._latest(conn, table, where, stale)
            if record is None:
                return None
            installation = Installation(**record)
            bot = self._find_bot(conn, enterprise_id, team, stale)
            if bot is not None:  # the bot row holds the current (possibly rotated) tokens
                for name in (*_BOT_COLUMNS, *_BOT_SECRETS, "bot_scopes"):
                    setattr(installation, name, getattr(bot, name))
            return installation

        return await self._read(find)

    async def find_bot_for_workspace(self, workspace: str) -> Bot | None:
        """The newest bot of a workspace named by team id or enterprise id (session keys)."""
        bots = self._db.tables.bots
        c = bots.c
        where = sa.and_(
            c.client_id == self._client_id,
            sa.or_(c.team_id == workspace, c.enterprise_id == workspace),
        )

        def find(conn: sa.Connection, stale: _Stale) -> Bot | None:
            record = self._latest(conn, bots, where, stale)
            return None if record is None else Bot(**record)

        return await self._read(find)

    # -- removals ---------------------------------------------------------------------
    def _strip_bot(self, conn: sa.Connection, enterprise_id: str | None, team: str) -> None:
        """Remove the bot's tokens from the installations of that workspace."""
        table = self._db.tables.installations
        rows = conn.execute(
            sa.select(table).where(self._where(table, enterprise_id, team)).with_for_update()
        ).all()
        for row in rows:
            record = json.loads(self._cipher.decrypt(row.secrets, row.key_id))
            for name in _BOT_SECRETS:
                record[name] = None
            conn.execute(
                sa.update(table)
                .where(*(c == getattr(row, c.name) for c in table.primary_key.columns))
                .values(
                    bot_token_expires_at=None,
                    key_id=self._cipher.primary_id,
                    secrets=self._cipher.encrypt(json.dumps(record)),
                )
            )

    async def async_delete_bot(self, *, enterprise_id: str | None, team_id: str | None) -> None:
        """The bot's tokens were revoked: forget them everywhere."""
        team = self._team(team_id, None)
        bots = self._db.tables.bots

        def delete(conn: sa.Connection) -> None:
            conn.execute(sa.delete(bots).where(self._where(bots, enterprise_id, team)))
            self._strip_bot(conn, enterprise_id, team)

        await self._db.write(delete)

    async def async_delete_installation(
        self, *, enterprise_id: str | None, team_id: str | None, user_id: str | None = None
    ) -> None:
        """Forget one user's installation, or all of the workspace's (``user_id`` None)."""
        table = self._db.tables.installations
        where = self._where(table, enterprise_id, self._team(team_id, None))
        if user_id is not None:
            where = sa.and_(where, table.c.user_id == user_id)
        await self._db.write(lambda conn: conn.execute(sa.delete(table).where(where)))

    async def async_delete_all(self, *, enterprise_id: str | None, team_id: str | None) -> None:
        """The app was uninstalled: forget the bot and every installation, together.

        An org-wide install is stored without a team; ``app_uninstalled`` for it may
        still name a team, so the org's own rows go as well.
        """
        team = self._team(team_id, None)
        tables = self._db.tables

        def delete(conn: sa.Connection) -> None:
            for table in (tables.bots, tables.installations):
                where = self._where(table, enterprise_id, team)
                if enterprise_id:
                    org_wide = sa.and_(
                        self._where(table, enterprise_id, ""), table.c.is_enterprise_install
                    )
                    where = sa.or_(where, org_wide)
                conn.execute(sa.delete(table).where(where))

        await self._db.write(delete)

    # -- maintenance ------------------------------------------------------------------
    async def reencrypt_all(self) -> int:
        """Re-encrypt every row not under the primary key; how many were rewritten."""
        tables = self._db.tables

        def rewrite(conn: sa.Connection) -> int:
            stale: _Stale = []
            for table in (tables.bots, tables.installations):
                old = sa.and_(
                    table.c.client_id == self._client_id, table.c.key_id != self._cipher.primary_id
                )
                for row in conn.execute(sa.select(table).where(old).with_for_update()).all():
                    self._decode(table, row, stale)
            return self._rewrite(conn, stale)

        return await self._db.write(rewrite)
