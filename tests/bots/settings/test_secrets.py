"""One rule for every secret setting (core/crypto.py): placeholders and weak values of
STATEBOT_WEB_SECRET, STATEBOT_STATE_KEYS and STATEBOT_ENCRYPTION_KEYS are refused when
the settings are read, with how to make a good one; what the documented generators
make is always accepted."""

from __future__ import annotations

import base64
import secrets

import pytest
from cryptography.fernet import Fernet
from pydantic import SecretStr, ValidationError

from bots.adapters.slack.settings import SlackSettings
from bots.settings import Settings
from core.crypto import KeyRing, weak_secret_reason

#: the placeholder docs/web-admin.md showed, which the console accepted: anyone could
#: sign an admin cookie with it
DOCUMENTED_PLACEHOLDER = "change-me-to-32-random-characters"

WEAK_TEXTS = [
    DOCUMENTED_PLACEHOLDER,
    "replace-with-a-long-random-string-of-at-least-43-chars",
    "test-secret-" + "x" * 32,  # the test suite's own secret until now
    "s" * 32,
    "0123456789" * 7,  # 70 characters, ten of them, in a loop
    "dGhpcyBpcyBub3QgcmFuZG9t",  # base64, but 24 characters: 144 bits
    "9f86d081884c7d659a2feaa0c55ad015",  # 32 hex digits: 128 bits
]

WEAK_KEYS = [
    base64.urlsafe_b64encode(bytes(32)).decode(),  # all zero
    base64.urlsafe_b64encode(b"my-password-is-good-and-12345678").decode(),  # a text
    base64.urlsafe_b64encode(bytes(range(10)) * 3 + b"ab").decode(),  # a pattern
]


@pytest.mark.parametrize("text", WEAK_TEXTS)
def test_a_weak_web_secret_is_refused_with_how_to_make_one(text: str) -> None:
    """STATEBOT_WEB_SECRET that is a placeholder, a pattern or too short stops Settings,
    naming the fix and never the value (the console started with each before)."""
    with pytest.raises(ValidationError) as caught:
        Settings(statebot_web_secret=SecretStr(text))
    message = str(caught.value)
    assert 'python -c "import secrets; print(secrets.token_urlsafe(32))"' in message
    assert text not in message


@pytest.mark.parametrize("key", WEAK_KEYS)
def test_a_weak_fernet_key_is_refused_in_both_key_settings(key: str) -> None:
    """A key of the right length that is not random bytes is refused by STATEBOT_STATE_KEYS
    and STATEBOT_ENCRYPTION_KEYS alike (both took it before), after a good key too."""
    good = Fernet.generate_key().decode()
    with pytest.raises(ValidationError, match="encryption key #2") as caught:
        Settings(statebot_state_keys=SecretStr(f"{good},{key}"))
    assert key not in str(caught.value)
    with pytest.raises(ValidationError, match="encryption key #1"):
        SlackSettings(statebot_encryption_keys=SecretStr(key))


def test_a_malformed_encryption_key_stops_the_slack_settings() -> None:
    """STATEBOT_ENCRYPTION_KEYS is read by the same key ring as the state keys: a key that
    is not a Fernet key stops SlackSettings at start, not at the first install."""
    with pytest.raises(ValidationError, match="is not a Fernet key"):
        SlackSettings(statebot_encryption_keys=SecretStr("not-a-key"))


def test_what_the_documented_generators_make_is_always_accepted() -> None:
    """token_urlsafe(32), token_hex(32) and Fernet keys pass, a thousand of each: the rule
    never refuses a real secret."""
    for _ in range(1000):
        for text in (secrets.token_urlsafe(32), secrets.token_hex(32)):
            assert weak_secret_reason(text) is None, text
        assert len(KeyRing([Fernet.generate_key().decode()])) == 1
    settings = Settings(
        statebot_web_secret=SecretStr(secrets.token_urlsafe(32)),
        statebot_state_keys=SecretStr(Fernet.generate_key().decode()),
    )
    assert settings.statebot_web_secret is not None
