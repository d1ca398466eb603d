"""The installation store and the OAuth state store on a real database."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import sqlalchemy as sa
from cryptography.fernet import Fernet
from slack_sdk.oauth.installation_store import Installation

from bots.adapters.slack.installation_db import InstallationDb
from bots.adapters.slack.installations import SqlInstallationStore
from bots.adapters.slack.oauth_state import SqlOAuthStateStore
from bots.adapters.slack.token_cipher import (
    EncryptionKeyError,
    TokenCipher,
    TokenDecryptError,
    key_id,
)
from tests.bots.adapters.slack.conftest import Database

CLIENT = "111.222"
TEAM = "T0ACME0001"


@pytest.fixture
async def db(database: Database) -> AsyncIterator[InstallationDb]:
    """The installation tables in this run's database."""
    opened = InstallationDb.open(database.url, schema=database.schema)
    yield opened
    await opened.aclose()


def _installation(
    user: str = "U0ADMIN01", token: str = "xoxb-acme-1", **extra: object
) -> Installation:
    return Installation(
        app_id="A0APP0001",
        enterprise_id=None,
        team_id=TEAM,
        team_name="acme",
        bot_token=token,
        bot_id="B0BOT0001",
        bot_user_id="U0BOT0001",
        bot_scopes=["chat:write"],
        user_id=user,
        user_token=f"xoxp-{user}",
        incoming_webhook_url="https://hooks.slack.com/services/T/B/secret",
        **extra,  # type: ignore[arg-type]
    )


def _raw(database: Database, table: str) -> list[dict[str, object]]:
    engine = database.engine()
    try:
        with engine.connect() as conn:
            rows = conn.execute(sa.text(f"SELECT * FROM {database.table(table)}")).mappings()
            return [dict(r) for r in rows]
    finally:
        engine.dispose()


async def test_every_secret_is_encrypted_at_rest(db: InstallationDb, database: Database) -> None:
    """Bot, user and refresh tokens and the webhook URL appear in no stored column."""
    store = SqlInstallationStore(
        db, client_id=CLIENT, cipher=TokenCipher([Fernet.generate_key().decode()])
    )
    await store.async_save(
        _installation(bot_refresh_token="xoxe-refresh", bot_token_expires_in=3600)
    )
    secrets = ("xoxb-acme-1", "xoxp-U0ADMIN01", "xoxe-refresh", "hooks.slack.com")
    for table in ("slack_installations", "slack_bots"):
        for row in _raw(database, table):
            assert not any(s in str(v) for v in row.values() for s in secrets), table
    found = await store.async_find_installation(
        enterprise_id=None, team_id=TEAM, user_id="U0ADMIN01"
    )
    assert found is not None
    assert (found.bot_token, found.user_token, found.bot_refresh_token) == (
        "xoxb-acme-1",
        "xoxp-U0ADMIN01",
        "xoxe-refresh",
    )
    assert found.incoming_webhook_url == "https://hooks.slack.com/services/T/B/secret"


async def test_newer_install_replaces_and_user_lookup_finds_its_own(db: InstallationDb) -> None:
    """A reinstall replaces the row; the newest install wins unless a user is named."""
    store = SqlInstallationStore(
        db, client_id=CLIENT, cipher=TokenCipher([Fernet.generate_key().decode()])
    )
    await store.async_save(_installation("U0ONE0001", "xoxb-old", installed_at=1000.0))
    await store.async_save(_installation("U0TWO0001", "xoxb-new", installed_at=2000.0))
    latest = await store.async_find_installation(enterprise_id=None, team_id=TEAM)
    assert latest is not None and latest.user_id == "U0TWO0001"
    first = await store.async_find_installation(
        enterprise_id=None, team_id=TEAM, user_id="U0ONE0001"
    )
    # the user's own row, carrying the workspace's current bot token
    assert first is not None and (first.user_token, first.bot_token) == (
        "xoxp-U0ONE0001",
        "xoxb-new",
    )
    other_app = SqlInstallationStore(
        db, client_id="999.999", cipher=TokenCipher([Fernet.generate_key().decode()])
    )
    assert await other_app.async_find_installation(enterprise_id=None, team_id=TEAM) is None


async def test_key_rotation_reencrypts_on_read_and_by_command(
    db: InstallationDb, database: Database
) -> None:
    """With a new key first, reads re-encrypt rows under it; reencrypt_all does the rest."""
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    await SqlInstallationStore(db, client_id=CLIENT, cipher=TokenCipher([old])).async_save(
        _installation()
    )
    assert {r["key_id"] for r in _raw(database, "slack_bots")} == {key_id(old)}

    rotated = SqlInstallationStore(db, client_id=CLIENT, cipher=TokenCipher([new, old]))
    bot = await rotated.async_find_bot(enterprise_id=None, team_id=TEAM)
    assert bot is not None and bot.bot_token == "xoxb-acme-1"
    assert {r["key_id"] for r in _raw(database, "slack_bots")} == {key_id(new)}
    assert {r["key_id"] for r in _raw(database, "slack_installations")} == {key_id(old)}
    assert await rotated.reencrypt_all() == 1
    assert await rotated.reencrypt_all() == 0
    assert {r["key_id"] for r in _raw(database, "slack_installations")} == {key_id(new)}

    only_new = SqlInstallationStore(db, client_id=CLIENT, cipher=TokenCipher([new]))
    found = await only_new.async_find_installation(enterprise_id=None, team_id=TEAM)
    assert found is not None and found.user_token == "xoxp-U0ADMIN01"


async def test_row_under_an_unknown_key_is_reported_by_key_id(db: InstallationDb) -> None:
    """Dropping a key too early gives an error naming the key id the row needs."""
    old = Fernet.generate_key().decode()
    await SqlInstallationStore(db, client_id=CLIENT, cipher=TokenCipher([old])).async_save(
        _installation()
    )
    lost = SqlInstallationStore(
        db, client_id=CLIENT, cipher=TokenCipher([Fernet.generate_key().decode()])
    )
    with pytest.raises(TokenDecryptError, match=f"key {key_id(old)}, which is not configured"):
        await lost.async_find_bot(enterprise_id=None, team_id=TEAM)


def test_bad_or_missing_keys_are_refused_clearly() -> None:
    """No key, or a string that is not a Fernet key, is a clear error with the fix."""
    with pytest.raises(EncryptionKeyError, match="no encryption key given; generate one"):
        TokenCipher.from_setting(" , ")
    with pytest.raises(EncryptionKeyError, match="key #2 is not a Fernet key"):
        TokenCipher([Fernet.generate_key().decode(), "hunter2"])


async def test_oauth_state_is_one_time_and_expires(db: InstallationDb) -> None:
    """A state is accepted once, and not after its expiry; unknown states never."""
    now = [1_000.0]
    states = SqlOAuthStateStore(db, expiration_seconds=600, clock=lambda: now[0])
    state = await states.async_issue()
    assert await states.async_consume(state) is True
    assert await states.async_consume(state) is False
    late = await states.async_issue()
    now[0] += 601
    assert await states.async_consume(late) is False
    assert await states.async_consume("never-issued") is False


async def test_issuing_sweeps_expired_states(db: InstallationDb, database: Database) -> None:
    """Abandoned installs leave no rows behind once they have expired."""
    now = [1_000.0]
    states = SqlOAuthStateStore(db, expiration_seconds=600, clock=lambda: now[0])
    for _ in range(3):
        await states.async_issue()
    now[0] += 601
    fresh = await states.async_issue()
    assert [r["state"] for r in _raw(database, "slack_oauth_states")] == [fresh]


async def test_org_wide_install_is_found_by_org_and_removed_on_uninstall(
    db: InstallationDb,
) -> None:
    """An org-wide install answers lookups in any of its workspaces; uninstall removes it."""
    store = SqlInstallationStore(
        db, client_id=CLIENT, cipher=TokenCipher([Fernet.generate_key().decode()])
    )
    org = Installation(
        enterprise_id="E0ORG0001",
        team_id=None,
        bot_token="xoxb-org",
        bot_id="B0BOT0001",
        bot_user_id="U0BOT0001",
        user_id="U0ADMIN01",
        is_enterprise_install=True,
    )
    await store.async_save(org)
    found = await store.async_find_installation(
        enterprise_id="E0ORG0001", team_id="T0INORG01", is_enterprise_install=True
    )
    assert found is not None and found.bot_token == "xoxb-org"
    await store.async_delete_all(enterprise_id="E0ORG0001", team_id="T0INORG01")
    assert (
        await store.async_find_bot(
            enterprise_id="E0ORG0001", team_id=None, is_enterprise_install=True
        )
        is None
    )
    assert (
        await store.async_find_installation(
            enterprise_id="E0ORG0001", team_id=None, is_enterprise_install=True
        )
        is None
    )
