"""Starting `statebot slack` with the install flow: clear errors for what is missing."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from cryptography.fernet import Fernet

from bots.adapters.slack.cli import oauth_for, reencrypt_installations
from bots.adapters.slack.installation_db import InstallationDb
from bots.adapters.slack.installations import SqlInstallationStore
from bots.adapters.slack.settings import SlackSettings
from bots.adapters.slack.token_cipher import TokenCipher, key_id
from bots.settings import Settings
from tests.bots.adapters.slack.conftest import Database
from tests.bots.adapters.slack.fake_oauth_api import CLIENT_ID, CLIENT_SECRET
from tests.bots.adapters.slack.test_installations import _installation, _raw


def _settings(**values: object) -> tuple[Settings, SlackSettings]:
    """The neutral settings and Slack's own, from one set of values."""
    base: dict[str, object] = {
        "slack_client_id": CLIENT_ID,
        "slack_client_secret": CLIENT_SECRET,
        "statebot_encryption_keys": Fernet.generate_key().decode(),
        "slack_bot_token": None,
        "statebot_db_url": "sqlite:///unused.db",
    }
    merged = {**base, **values}
    own = {name: value for name, value in merged.items() if name in SlackSettings.model_fields}
    neutral = {name: value for name, value in merged.items() if name not in own}
    return Settings(**neutral), SlackSettings(**own)  # type: ignore[arg-type]


def test_missing_encryption_key_is_a_clear_startup_error() -> None:
    """OAuth configured without STATEBOT_ENCRYPTION_KEYS refuses to start, saying how to fix it."""
    with pytest.raises(click.UsageError) as err:
        oauth_for(*_settings(statebot_encryption_keys=""), socket=False)
    message = err.value.message
    assert "STATEBOT_ENCRYPTION_KEYS is not set" in message and "Fernet.generate_key()" in message


def test_malformed_key_half_credentials_and_socket_mode_are_refused() -> None:
    """A bad key, no client secret, --socket or a bot token as well: one clear line each
    (a malformed key is refused by SlackSettings itself: tests/bots/settings/test_secrets)."""
    cases = [
        (_settings(slack_client_secret=None), False, "SLACK_CLIENT_SECRET is not set"),
        (_settings(), True, "runs in HTTP mode: drop --socket"),
        (_settings(slack_bot_token="xoxb-1"), False, "not both"),
        (_settings(statebot_db_url="memory://"), False, "kept in the durable store"),
    ]
    for settings, socket, expected in cases:
        with pytest.raises(click.UsageError, match=expected):
            oauth_for(*settings, socket=socket)


def test_single_token_mode_has_no_install_flow() -> None:
    """Without SLACK_CLIENT_ID/SECRET nothing changes: no flow, no key needed."""
    plain = SlackSettings(slack_bot_token="xoxb-1", slack_client_id=None, slack_client_secret=None)
    assert oauth_for(Settings(), plain, socket=True) is None


async def test_reencrypt_command_moves_every_row_to_the_first_key(tmp_path: Path) -> None:
    """`statebot slack --reencrypt`'s work: every row ends under the newest key."""
    database = Database(f"sqlite:///{tmp_path / 'statebot.db'}", None)
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    db = InstallationDb.open(database.url)
    try:
        store = SqlInstallationStore(db, client_id=CLIENT_ID, cipher=TokenCipher([old]))
        await store.async_save(_installation())
    finally:
        await db.aclose()
    settings = _settings(statebot_encryption_keys=f"{new},{old}", statebot_db_url=database.url)
    assert await reencrypt_installations(*settings) == 2
    for table in ("slack_bots", "slack_installations"):
        assert {r["key_id"] for r in _raw(database, table)} == {key_id(new)}
